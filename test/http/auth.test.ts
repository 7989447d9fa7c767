import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

// Every operation the server publishes, called without and with a bad token: all answer 401 in the error shape.
describe('authentication on every operation', () => {
  let t: TestApp;
  let operations: Array<{ method: string; path: string }>;
  let operationIds: string[];

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const doc = (await t.request('GET', '/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    operationIds = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => (op as { operationId: string }).operationId));
    operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'someid') })),
    );
  });
  afterAll(async () => t?.close());

  it('publishes every operation built so far, under the reference operationIds', () => {
    expect(operationIds.sort()).toEqual(
      [
        // users: the reference's own reads (its client's getAuthenticatedUser, and every user object's location)
        'getAuthenticatedUser', 'getUserById',
        // organizations #88-#93
        'listOrganizationsForAuthenticatedUser', 'getOrganizationById', 'updateOrganizationById', 'deleteOrganizationInviteById',
        'searchOrganizationContent', 'getOrganizationsForEmailDomain',
        // invite links: #91's siblings from the reference (creation, list, read, role change, joining)
        'createOrganizationInvite', 'listOrganizationInviteLinks', 'getOrganizationInviteLink', 'updateOrganizationInviteById',
        'joinOrganizationWithInvite',
        // SAML providers #111-#115 and SSO login infos #116
        'listSAMLProvidersInOrganizationById', 'createOrganizationSAMLProvider', 'getOrganizationSAMLProviderById',
        'deleteOrganizationSAMLProvider', 'updateOrganizationSAMLProvider', 'listSSOProviderLoginsInOrganization',
        // translation settings #127-#131
        'listTranslations', 'createTranslation', 'getTranslation', 'updateTranslation', 'deleteTranslation',
        // members #94-#101
        'listMembersInOrganizationById', 'getMemberInOrganizationById', 'removeMemberFromOrganizationById', 'updateMemberInOrganizationById',
        'updateOrganizationMemberLastSeenAt', 'setUserAsSSOMemberForOrganization', 'listSpacesForOrganizationMember', 'listTeamsForOrganizationMember',
        // teams #102-#110
        'listTeamsInOrganizationById', 'createOrganizationTeam', 'getTeamInOrganizationById', 'removeTeamFromOrganizationById',
        'updateTeamInOrganizationById', 'listTeamMembersInOrganizationById', 'updateMembersInOrganizationTeam', 'addMemberToOrganizationTeamById',
        'deleteMemberFromOrganizationTeamById',
        // collections #18-#25
        'getCollectionById', 'deleteCollectionById', 'updateCollectionById', 'listSpacesInCollectionById', 'moveCollection', 'transferCollection',
        'listCollectionsInOrganizationById', 'createCollection',
        // spaces #26-#28, #30-#32 and the hidden createSpace / listSpacesInOrganizationById
        'getSpaceById', 'deleteSpaceById', 'duplicateSpace', 'updateSpaceById', 'restoreSpace', 'moveSpace', 'transferSpace', 'createSpace',
        'listSpacesInOrganizationById',
        // content #50, #52-#54, #56, page by path, a revision by id, file downloads
        'getCurrentRevision', 'getRevisionById', 'listPages', 'listFiles', 'getFileById', 'getPageById', 'getPageByPath', 'downloadFile',
        // change requests #34-#37 and their content #41, #43-#45, #47
        'listChangeRequestsForSpace', 'createChangeRequest', 'getChangeRequestById', 'updateChangeRequestById',
        'getRevisionOfChangeRequestById', 'listPagesInChangeRequest', 'listFilesInChangeRequestById', 'getFileInChangeRequestById',
        'getPageInChangeRequestById', 'mergeChangeRequest', 'updateChangeRequest', 'getChangeRequestPDF',
        // content import #42, #51
        'importContent', 'importContentInChangeRequest', 'listContentImports', 'getContentImport',
        // repository imports (issue 11): the reference's importGitRepository, and Quire's organization-level imports
        'importGitRepository', 'importRepositoryIntoOrganization', 'importRepositoryUploadIntoOrganization',
        // space comments #1-#9 and the hidden listCommentRepliesInSpace / listCommentersInSpace
        'listCommentsInSpace', 'postCommentInSpace', 'getCommentInSpace', 'updateCommentInSpace', 'deleteCommentInSpace',
        'postCommentReplyInSpace', 'getCommentReplyInSpace', 'updateCommentReplyInSpace', 'deleteCommentReplyInSpace',
        'listCommentRepliesInSpace', 'listCommentersInSpace',
        // change-request comments #10-#17 and the hidden commenters list, reply update and reply delete
        'listCommentsInChangeRequest', 'postCommentInChangeRequest', 'getCommentInChangeRequest', 'updateCommentInChangeRequest',
        'deleteCommentInChangeRequest', 'postCommentReplyInChangeRequest', 'getCommentReplyInChangeRequest',
        'updateCommentReplyInChangeRequest', 'deleteCommentReplyInChangeRequest', 'listCommentRepliesInChangeRequest',
        'listCommentersInChangeRequest',
        // OpenAPI specs #117-#126
        'listOpenAPISpecs', 'createOpenAPISpec', 'getOpenAPISpecBySlug', 'createOrUpdateOpenAPISpecBySlug', 'deleteOpenAPISpecBySlug',
        'listOpenAPISpecVersions', 'getLatestOpenAPISpecVersion', 'getLatestOpenAPISpecVersionContent', 'getOpenAPISpecVersionById',
        'getOpenAPISpecVersionContentById',
        // sites #58-#66 and the hidden getSiteStructure / sortSiteStructure
        'listSites', 'createSite', 'getSiteById', 'deleteSiteById', 'updateSiteById', 'getSiteAdaptiveSchema', 'updateSiteAdaptiveSchema',
        'listSiteAdaptiveTemplateConditions', 'getPublishedContentSite', 'getSiteStructure', 'sortSiteStructure',
        // the visitor signing key of a site (a Quire extension)
        'getSiteVisitorKey', 'rotateSiteVisitorKey',
        // readers' feedback on a site's pages, and its counts per page (a Quire extension)
        'listSitePageFeedback', 'listSitePageFeedbackSummary',
        // reads behind the locations the API hands out (Quire extensions: every URL in an answer answers GET, issue 15)
        'getSiteSectionById', 'getSiteSectionGroupById', 'getSiteSpaceById', 'getSiteShareLinkById', 'getOrganizationInviteToJoin',
        // site sections #67-#71, section groups #72-#78, site spaces #79-#83, share links #84-#87
        'listSiteSections', 'addSectionToSite', 'deleteSiteSectionById', 'updateSiteSectionById', 'moveSiteSection',
        'listSiteSectionGroups', 'addSectionGroupToSite', 'deleteSiteSectionGroupById', 'updateSiteSectionGroupById', 'addSectionToGroup',
        'removeSectionFromGroup', 'moveSiteSectionGroup',
        'listSiteSpaces', 'addSpaceToSite', 'deleteSiteSpaceById', 'updateSiteSpaceById', 'moveSiteSpace',
        'listSiteShareLinks', 'createSiteShareLink', 'deleteSiteShareLinkById', 'updateSiteShareLinkById',
        // links and backlinks #33, #46, #48, #55, #57; search #49 (and #92 above)
        'listSpaceLinks', 'listPageLinksInSpace', 'listPageLinksInChangeRequest', 'listSpaceFileBacklinks', 'listChangeRequestFileBacklinks',
        'searchSpaceContent',
      ].sort(),
    );
  });

  it('answers 401 without a token, with a malformed header, or with an unknown token', async () => {
    for (const { method, path } of operations) {
      const body = ['POST', 'PUT', 'PATCH'].includes(method) ? {} : undefined;
      for (const headers of [{}, { authorization: "Token abc" }, { authorization: "Bearer qt_not_a_real_token" }] as Array<Record<string, string>>) {
        const res = await t.request(method, path, { headers, body, query: { query: 'x' } });
        expect(res.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.body.error.code).toBe(401);
        expect(res.body.error.message).toMatch(/^authorization: /);
      }
    }
  });
});

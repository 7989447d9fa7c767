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
    // Signing in (`security: []`) is the one way in that needs no credentials.
    operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => (op as { security?: unknown[] }).security?.length !== 0)
        .map(([method]) => ({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'someid') })),
    );
  });
  afterAll(async () => t?.close());

  it('publishes every operation built so far, under the reference operationIds', () => {
    expect(operationIds.sort()).toEqual(
      [
        // users: the reference's own reads (its client's getAuthenticatedUser, and every user object's location)
        'getAuthenticatedUser', 'getUserById',
        // signing in, sessions and personal tokens (Quire extensions)
        'signIn', 'setPasswordWithLink', 'requestPasswordReset', 'listSignInProviders', 'getCurrentSession', 'signOut', 'listUserSessions', 'revokeUserSession', 'signOutEverywhere',
        'changeUserPassword', 'listUserTokens', 'createUserToken', 'revokeUserToken',
        // organizations
        'listOrganizationsForAuthenticatedUser', 'getOrganizationById', 'updateOrganizationById', 'deleteOrganizationInviteById',
        'searchOrganizationContent', 'getOrganizationsForEmailDomain',
        // invite links: the deletion's siblings from the reference (creation, list, read, role change, joining)
        'createOrganizationInvite', 'listOrganizationInviteLinks', 'getOrganizationInviteLink', 'updateOrganizationInviteById',
        'joinOrganizationWithInvite',
        // SAML providers and SSO login infos
        'listSAMLProvidersInOrganizationById', 'createOrganizationSAMLProvider', 'getOrganizationSAMLProviderById',
        'deleteOrganizationSAMLProvider', 'updateOrganizationSAMLProvider', 'listSSOProviderLoginsInOrganization',
        // an organization's OpenID Connect provider (a Quire extension)
        'getOrganizationOIDCProvider', 'setOrganizationOIDCProvider', 'deleteOrganizationOIDCProvider',
        // translation settings
        'listTranslations', 'createTranslation', 'getTranslation', 'updateTranslation', 'deleteTranslation',
        // members
        'listMembersInOrganizationById', 'getMemberInOrganizationById', 'removeMemberFromOrganizationById', 'updateMemberInOrganizationById',
        'updateOrganizationMemberLastSeenAt', 'setUserAsSSOMemberForOrganization', 'listSpacesForOrganizationMember', 'listTeamsForOrganizationMember',
        // teams
        'listTeamsInOrganizationById', 'createOrganizationTeam', 'getTeamInOrganizationById', 'removeTeamFromOrganizationById',
        'updateTeamInOrganizationById', 'listTeamMembersInOrganizationById', 'updateMembersInOrganizationTeam', 'addMemberToOrganizationTeamById',
        'deleteMemberFromOrganizationTeamById',
        // collections
        'getCollectionById', 'deleteCollectionById', 'updateCollectionById', 'listSpacesInCollectionById', 'moveCollection', 'transferCollection',
        'listCollectionsInOrganizationById', 'createCollection',
        // spaces and the hidden createSpace / listSpacesInOrganizationById
        'getSpaceById', 'deleteSpaceById', 'duplicateSpace', 'updateSpaceById', 'restoreSpace', 'moveSpace', 'transferSpace', 'createSpace',
        'listSpacesInOrganizationById',
        // content, page by path, a revision by id, file downloads
        'getCurrentRevision', 'getRevisionById', 'listPages', 'listFiles', 'getFileById', 'getPageById', 'getPageByPath', 'downloadFile',
        // a page rendered as published sites render it, for the app (Quire extensions)
        'getPageHtml', 'getPageHtmlInChangeRequest', 'getPageHtmlInRevision',
        // an old revision's pages, and the history of revisions (a Quire extension)
        'listPagesInRevisionById', 'getPageInRevisionById', 'getPageInRevisionByPath', 'listSpaceRevisions',
        // change requests and their content
        'listChangeRequestsForSpace', 'createChangeRequest', 'getChangeRequestById', 'updateChangeRequestById',
        'getRevisionOfChangeRequestById', 'listPagesInChangeRequest', 'listFilesInChangeRequestById', 'getFileInChangeRequestById',
        'getPageInChangeRequestById', 'mergeChangeRequest', 'updateChangeRequest', 'getChangeRequestPDF',
        // change-request reviews and requested reviewers; the review a submission's Location names (a Quire extension)
        'getReviewsByChangeRequestId', 'submitChangeRequestReview', 'getChangeRequestReviewById', 'getRequestedReviewersByChangeRequestId',
        'requestReviewersForChangeRequest', 'removeRequestedReviewerFromChangeRequest',
        // merge rules: an organization's default, a space's, a change request's mergeability (a Quire extension)
        'getOrganizationMergeRules', 'setOrganizationMergeRules', 'getSpaceMergeRules', 'setSpaceMergeRules', 'getChangeRequestMergeability',
        // a change request's preview: where it is for members, and a share link (Quire extensions)
        'getChangeRequestPreview', 'createChangeRequestPreviewLink', 'revokeChangeRequestPreviewLinks',
        // a change request's events as server-sent events (a Quire extension)
        'streamChangeRequestEvents',
        // semantic changes of a change request and of a revision; a change request's page block by block (a Quire extension)
        'getChangeRequestChanges', 'getRevisionSemanticChanges', 'getChangeRequestPageDiff',
        // content import
        'importContent', 'importContentInChangeRequest', 'listContentImports', 'getContentImport',
        // repository imports: the reference's importGitRepository, and Quire's organization-level imports
        'importGitRepository', 'importRepositoryIntoOrganization', 'importRepositoryUploadIntoOrganization',
        // Git Sync (a Quire extension): connect, read, disconnect and run; the reference's one-off export
        'connectGitSync', 'getGitSync', 'disconnectGitSync', 'runGitSync', 'exportToGitRepository',
        // space comments and the hidden listCommentRepliesInSpace / listCommentersInSpace
        'listCommentsInSpace', 'postCommentInSpace', 'getCommentInSpace', 'updateCommentInSpace', 'deleteCommentInSpace',
        'postCommentReplyInSpace', 'getCommentReplyInSpace', 'updateCommentReplyInSpace', 'deleteCommentReplyInSpace',
        'listCommentRepliesInSpace', 'listCommentersInSpace',
        // change-request comments and the hidden commenters list, reply update and reply delete
        'listCommentsInChangeRequest', 'postCommentInChangeRequest', 'getCommentInChangeRequest', 'updateCommentInChangeRequest',
        'deleteCommentInChangeRequest', 'postCommentReplyInChangeRequest', 'getCommentReplyInChangeRequest',
        'updateCommentReplyInChangeRequest', 'deleteCommentReplyInChangeRequest', 'listCommentRepliesInChangeRequest',
        'listCommentersInChangeRequest',
        // OpenAPI specs
        'listOpenAPISpecs', 'createOpenAPISpec', 'getOpenAPISpecBySlug', 'createOrUpdateOpenAPISpecBySlug', 'deleteOpenAPISpecBySlug',
        'listOpenAPISpecVersions', 'getLatestOpenAPISpecVersion', 'getLatestOpenAPISpecVersionContent', 'getOpenAPISpecVersionById',
        'getOpenAPISpecVersionContentById',
        // sites and the hidden getSiteStructure / sortSiteStructure
        'listSites', 'createSite', 'getSiteById', 'deleteSiteById', 'updateSiteById', 'getSiteAdaptiveSchema', 'updateSiteAdaptiveSchema',
        'listSiteAdaptiveTemplateConditions', 'getPublishedContentSite', 'getSiteStructure', 'sortSiteStructure',
        // the visitor signing key of a site (a Quire extension)
        'getSiteVisitorKey', 'rotateSiteVisitorKey',
        // a preview URL of the site, for chosen visitor claims
        'getSitePublishingPreviewById',
        // the OpenID Connect provider a visitor-auth site's visitors sign in with (a Quire extension)
        'getSiteVisitorOIDCProvider', 'setSiteVisitorOIDCProvider', 'deleteSiteVisitorOIDCProvider',
        // readers' feedback on a site's pages, and its counts per page (a Quire extension)
        'listSitePageFeedback', 'listSitePageFeedbackSummary',
        // reads behind the locations the API hands out (Quire extensions: every URL in an answer answers GET)
        'getSiteSectionById', 'getSiteSectionGroupById', 'getSiteSpaceById', 'getSiteShareLinkById', 'getOrganizationInviteToJoin',
        // site sections, section groups, site spaces, share links
        'listSiteSections', 'addSectionToSite', 'deleteSiteSectionById', 'updateSiteSectionById', 'moveSiteSection',
        'listSiteSectionGroups', 'addSectionGroupToSite', 'deleteSiteSectionGroupById', 'updateSiteSectionGroupById', 'addSectionToGroup',
        'removeSectionFromGroup', 'moveSiteSectionGroup',
        'listSiteSpaces', 'addSpaceToSite', 'deleteSiteSpaceById', 'updateSiteSpaceById', 'moveSiteSpace',
        'listSiteShareLinks', 'createSiteShareLink', 'deleteSiteShareLinkById', 'updateSiteShareLinkById',
        // links and backlinks; search in a space (the organization's is above)
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

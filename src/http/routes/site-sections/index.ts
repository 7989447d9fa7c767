import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf, NoContent } from '../../schemas.js';
import { presentList, noContent } from '../../present.js';
import { getStructureItem } from '../../../domain/sites/structure.js';
import { addSection, deleteSection, listSections, moveSection, updateSection } from '../../../domain/sites/site-sections.js';
import {
  addSectionGroup,
  addSectionToGroup,
  deleteSectionGroup,
  listSectionGroups,
  moveSectionGroup,
  removeSectionFromGroup,
  updateSectionGroup,
} from '../../../domain/sites/site-section-groups.js';
import { anchorOf, CreatedHeaders, PublishedQuery, SiteParams, SiteSectionGroupSchema, SiteSectionSchema } from '../sites/schema.js';
import { presentGroup, presentGroupOf, presentSection, presentSectionOf } from '../sites/presenter.js';
import {
  AddGroupBody,
  AddSectionBody,
  AddSectionToGroupBody,
  GroupParams,
  GroupSectionParams,
  ListGroupsQuery,
  ListSectionsQuery,
  MoveGroupBody,
  MoveSectionBody,
  SectionParams,
  UpdateGroupBody,
  UpdateSectionBody,
} from './schema.js';

const tags = ['sites'];
const SECTIONS = '/orgs/:organizationId/sites/:siteId/sections';
const GROUPS = '/orgs/:organizationId/sites/:siteId/section-groups';

export const siteSectionRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  // ---- sections

  app.get(
    SECTIONS,
    { schema: { operationId: 'listSiteSections', tags, params: SiteParams, querystring: ListSectionsQuery, response: { 200: ListOf(SiteSectionSchema), ...ErrorResponses } } },
    async (request) => {
      const { tree, page } = await listSections(ctx, callerOf(request), request.params.organizationId, request.params.siteId, request.query);
      return presentList(page, (s) => presentSection(urls, tree, s));
    },
  );

  app.post(
    SECTIONS,
    {
      schema: {
        operationId: 'addSectionToSite',
        tags,
        params: SiteParams,
        body: AddSectionBody,
        response: { 201: { ...SiteSectionSchema, headers: CreatedHeaders }, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const view = await addSection(ctx, callerOf(request), request.params.organizationId, request.params.siteId, request.body);
      const section = presentSectionOf(urls, view);
      return reply.status(201).header('location', section.urls.location).send(section);
    },
  );

  app.get(
    `${SECTIONS}/:siteSectionId`,
    { schema: { operationId: 'getSiteSectionById', tags, params: SectionParams, querystring: PublishedQuery, response: { 200: SiteSectionSchema, ...ErrorResponses } } },
    async (request) => {
      const { organizationId, siteId, siteSectionId } = request.params;
      const item = { type: 'site-section', id: siteSectionId } as const;
      return presentSectionOf(urls, await getStructureItem(ctx, callerOf(request), organizationId, siteId, item, request.query.shareKey));
    },
  );

  app.delete(
    `${SECTIONS}/:siteSectionId`,
    { schema: { operationId: 'deleteSiteSectionById', tags, params: SectionParams, response: { 204: NoContent, 205: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      const { organizationId, siteId, siteSectionId } = request.params;
      return noContent(reply, (await deleteSection(ctx, callerOf(request), organizationId, siteId, siteSectionId)) ? 205 : 204);
    },
  );

  app.patch(
    `${SECTIONS}/:siteSectionId`,
    { schema: { operationId: 'updateSiteSectionById', tags, params: SectionParams, body: UpdateSectionBody, response: { 200: SiteSectionSchema, ...ErrorResponses } } },
    async (request) => {
      const { organizationId, siteId, siteSectionId } = request.params;
      return presentSectionOf(urls, await updateSection(ctx, callerOf(request), organizationId, siteId, siteSectionId, request.body));
    },
  );

  app.post(
    `${SECTIONS}/:siteSectionId/move`,
    {
      schema: {
        operationId: 'moveSiteSection',
        tags,
        deprecated: true,
        params: SectionParams,
        body: MoveSectionBody,
        response: { 200: SiteSectionSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const { organizationId, siteId, siteSectionId } = request.params;
      const anchor = anchorOf(request.body?.position, (p) => ({ type: p.type, id: p.siteSection }), 'position');
      return presentSectionOf(urls, await moveSection(ctx, callerOf(request), organizationId, siteId, siteSectionId, anchor));
    },
  );

  // ---- section groups

  app.get(
    GROUPS,
    {
      schema: {
        operationId: 'listSiteSectionGroups',
        tags,
        params: SiteParams,
        querystring: ListGroupsQuery,
        response: { 200: ListOf(SiteSectionGroupSchema), ...ErrorResponses },
      },
    },
    async (request) => {
      const { tree, page } = await listSectionGroups(ctx, callerOf(request), request.params.organizationId, request.params.siteId, request.query);
      return presentList(page, (g) => presentGroup(urls, tree, g));
    },
  );

  app.get(
    `${GROUPS}/:siteSectionGroupId`,
    { schema: { operationId: 'getSiteSectionGroupById', tags, params: GroupParams, querystring: PublishedQuery, response: { 200: SiteSectionGroupSchema, ...ErrorResponses } } },
    async (request) => {
      const { organizationId, siteId, siteSectionGroupId } = request.params;
      const item = { type: 'site-section-group', id: siteSectionGroupId } as const;
      return presentGroupOf(urls, await getStructureItem(ctx, callerOf(request), organizationId, siteId, item, request.query.shareKey));
    },
  );

  app.post(
    GROUPS,
    {
      schema: {
        operationId: 'addSectionGroupToSite',
        tags,
        params: SiteParams,
        body: AddGroupBody,
        response: { 201: { ...SiteSectionGroupSchema, headers: CreatedHeaders }, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const { organizationId, siteId } = request.params;
      const view = await addSectionGroup(ctx, callerOf(request), organizationId, siteId, request.body);
      return reply
        .status(201)
        .header('location', urls.api(`/orgs/${organizationId}/sites/${siteId}/section-groups/${view.item.id}`))
        .send(presentGroupOf(urls, view));
    },
  );

  app.delete(
    `${GROUPS}/:siteSectionGroupId`,
    { schema: { operationId: 'deleteSiteSectionGroupById', tags, params: GroupParams, response: { 204: NoContent, 205: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      const { organizationId, siteId, siteSectionGroupId } = request.params;
      return noContent(reply, (await deleteSectionGroup(ctx, callerOf(request), organizationId, siteId, siteSectionGroupId)) ? 205 : 204);
    },
  );

  app.patch(
    `${GROUPS}/:siteSectionGroupId`,
    {
      schema: {
        operationId: 'updateSiteSectionGroupById',
        tags,
        params: GroupParams,
        body: UpdateGroupBody,
        response: { 200: SiteSectionGroupSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const { organizationId, siteId, siteSectionGroupId } = request.params;
      return presentGroupOf(urls, await updateSectionGroup(ctx, callerOf(request), organizationId, siteId, siteSectionGroupId, request.body));
    },
  );

  app.post(
    `${GROUPS}/:siteSectionGroupId/sections`,
    {
      schema: {
        operationId: 'addSectionToGroup',
        tags,
        params: GroupParams,
        body: AddSectionToGroupBody,
        response: { 201: { ...SiteSectionGroupSchema, headers: CreatedHeaders }, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const { organizationId, siteId, siteSectionGroupId } = request.params;
      const view = await addSectionToGroup(ctx, callerOf(request), organizationId, siteId, siteSectionGroupId, request.body.sectionId);
      return reply
        .status(201)
        .header('location', urls.api(`/orgs/${organizationId}/sites/${siteId}/section-groups/${siteSectionGroupId}`))
        .send(presentGroupOf(urls, view));
    },
  );

  app.delete(
    `${GROUPS}/:siteSectionGroupId/sections/:siteSectionId`,
    {
      schema: { operationId: 'removeSectionFromGroup', tags, params: GroupSectionParams, response: { 204: NoContent, 205: NoContent, ...ErrorResponses } },
    },
    async (request, reply) => {
      const { organizationId, siteId, siteSectionGroupId, siteSectionId } = request.params;
      const removed = await removeSectionFromGroup(ctx, callerOf(request), organizationId, siteId, siteSectionGroupId, siteSectionId);
      return noContent(reply, removed ? 205 : 204);
    },
  );

  app.post(
    `${GROUPS}/:siteSectionGroupId/move`,
    {
      schema: {
        operationId: 'moveSiteSectionGroup',
        tags,
        deprecated: true,
        params: GroupParams,
        body: MoveGroupBody,
        response: { 200: SiteSectionGroupSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const { organizationId, siteId, siteSectionGroupId } = request.params;
      const anchor = anchorOf(request.body?.position, (p) => p, 'position');
      return presentGroupOf(urls, await moveSectionGroup(ctx, callerOf(request), organizationId, siteId, siteSectionGroupId, anchor));
    },
  );
};

/**
 * Sites and the resources of their structure (site spaces, sections, section groups), share links and the
 * published site. The bodies of the structure operations live beside their routes (site-sections, site-spaces,
 * share-links).
 */
import { Type } from 'typebox';
import { ListQuery, Nullable, StringEnum, Timestamp, Url } from '../../schemas.js';
import { SpaceSchema } from '../spaces/schema.js';
import { SITE_TYPES } from '../../../domain/sites/sites.js';
import { SITE_VISIBILITIES, type StructurePointer as Pointer } from '../../../domain/sites/tree.js';
import type { Anchor } from '../../../domain/sites/structure.js';

export const SiteParams = Type.Object({ organizationId: Type.String(), siteId: Type.String() });

export const SiteType = StringEnum(SITE_TYPES);
export const SiteVisibility = StringEnum(SITE_VISIBILITIES);
export const AgentsContext = StringEnum(['included', 'excluded'] as const);
export const SiteTitle = Type.String({ minLength: 2, maxLength: 128 });
export const Condition = Type.String({ minLength: 1, maxLength: 1024, description: 'An expression over visitor.claims: &&, ||, !, ==, !=, parentheses, strings, true, false' });
export const Icon = Type.String({ maxLength: 50 });
export const SectionTitle = Type.String({ minLength: 2, maxLength: 128 });
export const SectionPath = Type.String({ minLength: 1, maxLength: 100 });
export const SiteSpacePath = Type.String({ minLength: 1, maxLength: 100 });
export const GroupTitle = Type.String({ minLength: 1, maxLength: 100 });
export const ShareKeyQuery = Type.Optional(Type.String({ description: 'The secret of an active share link of a share-link site' }));

export const SiteSchema = Type.Object({
  object: Type.Literal('site'),
  id: Type.String(),
  type: SiteType,
  title: Type.String(),
  basename: Type.Optional(Type.String()),
  proxy: Type.Optional(Type.Object({ origin: Type.String(), target: Type.String() })),
  visibility: SiteVisibility,
  published: Type.Boolean({ description: 'True when the site has at least one site space' }),
  siteSpaces: Type.Number(),
  createdAt: Timestamp,
  adaptiveContent: Type.Object({ enabled: Type.Boolean() }),
  agentsContext: AgentsContext,
  features: Type.Array(Type.Object({ id: Type.String(), plan: SiteType, frozen: Type.Boolean() })),
  urls: Type.Object({ location: Url, app: Url, published: Type.Optional(Url) }),
});

/** A Quire extension: the key a visitor-auth site's visitor tokens are signed with (src/domain/sites/visitor-auth.ts). */
export const SiteVisitorKeySchema = Type.Object({
  object: Type.Literal('site-visitor-key'),
  key: Type.String({ description: 'The HS256 secret of visitor tokens (JWTs sent as ?jwt_token= to the published site)' }),
  createdAt: Timestamp,
});

export const SiteSpaceSchema = Type.Object({
  object: Type.Literal('site-space'),
  id: Type.String(),
  path: Type.String(),
  section: Type.Optional(Type.String()),
  space: SpaceSchema,
  title: Type.String(),
  default: Type.Boolean(),
  condition: Type.Optional(Type.String()),
  hasAdvancedCustomizationFeature: Type.Boolean(),
  urls: Type.Object({ location: Url, published: Type.Optional(Url) }),
});

export const SiteSectionSchema = Type.Object({
  object: Type.Literal('site-section'),
  id: Type.String(),
  title: Type.String(),
  description: Type.Optional(Type.String()),
  default: Type.Boolean(),
  path: Type.String(),
  condition: Type.Optional(Type.String()),
  sectionGroup: Type.Optional(Type.String()),
  icon: Type.Optional(Type.String()),
  siteSpaces: Type.Array(SiteSpaceSchema),
  urls: Type.Object({ location: Url, published: Type.Optional(Url) }),
});

export const SiteSectionGroupSchema = Type.Object({
  object: Type.Literal('site-section-group'),
  id: Type.String(),
  title: Type.String(),
  icon: Type.Optional(Type.String()),
  sections: Type.Array(SiteSectionSchema),
});

export const SiteStructureSchema = Type.Union([
  Type.Object({ type: Type.Literal('sections'), structure: Type.Array(Type.Union([SiteSectionSchema, SiteSectionGroupSchema])) }),
  Type.Object({ type: Type.Literal('siteSpaces'), structure: Type.Array(SiteSpaceSchema) }),
]);

export const SiteStructureItemSchema = Type.Union([SiteSpaceSchema, SiteSectionSchema, SiteSectionGroupSchema]);

/** SiteCustomizationSettings: every required member, at Quire's defaults (customization is not configurable). */
const Customization = Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, description: 'SiteCustomizationSettings' });

export const PublishedSiteSchema = Type.Object({
  object: Type.Literal('published-content-site'),
  site: SiteSchema,
  structure: SiteStructureSchema,
  customizations: Type.Object({ site: Customization, siteSpaces: Type.Record(Type.String(), Customization) }),
  scripts: Type.Array(Type.Object({ script: Url, cookies: Type.Boolean() })),
});

export const ShareLinkSchema = Type.Object({
  object: Type.Literal('share-link'),
  id: Type.String(),
  createdAt: Timestamp,
  name: Type.String(),
  active: Type.Boolean(),
  urls: Type.Object({ published: Url }),
});

export const AdaptiveSchemaSchema = Type.Object({
  object: Type.Literal('site-adaptive-schema'),
  jsonSchema: Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true }),
  updatedAt: Timestamp,
});

export const TemplateConditionsSchema = Type.Object({
  items: Type.Array(Type.Object({ description: Type.String(), condition: Type.String() })),
});

export const ListSitesQuery = Type.Object({
  ...ListQuery,
  space: Type.Optional(Type.String({ description: 'Only sites that publish this space' })),
  title: Type.Optional(Type.String({ description: 'Only sites whose title contains this (case-insensitive)' })),
  published: Type.Optional(Type.Boolean()),
  type: Type.Optional(Type.Array(SiteType)),
});

/** The body is optional (the reference does not require it): no body creates an "Untitled site" without spaces. */
export const CreateSiteBody = Nullable(
  Type.Object({
    type: Type.Optional(SiteType),
    title: Type.Optional(SiteTitle),
    visibility: Type.Optional(SiteVisibility),
    spaces: Type.Optional(
      Type.Union([
        Type.Array(Type.String({ minLength: 1 }), { maxItems: 100, description: 'Ids of spaces to publish' }),
        StringEnum(['sample', 'empty'] as const, { description: 'Create a new space (sample content, or empty)' }),
      ]),
    ),
  }),
);

export const UpdateSiteBody = Type.Object(
  {
    title: Type.Optional(SiteTitle),
    visibility: Type.Optional(SiteVisibility),
    basename: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    adaptiveContent: Type.Optional(Type.Object({ enabled: Type.Boolean() })),
    agentsContext: Type.Optional(AgentsContext),
    defaultSiteSpace: Type.Optional(Type.String({ minLength: 1 })),
    defaultSiteSection: Type.Optional(Type.String({ minLength: 1 })),
    proxy: Type.Optional(
      Nullable(Type.String({ maxLength: 512, pattern: '^([\\w-]+\\.)*[\\w-]+\\.[a-zA-Z]{2,}(\\/[\\w-]+)+$', description: 'e.g. company.com/docs; null removes it' })),
    ),
  },
  { minProperties: 1 },
);

/** The schema itself is checked by the domain, member by member (domain/sites/adaptive-schema.ts). */
export const UpdateAdaptiveSchemaBody = Type.Object({ jsonSchema: Type.Unknown({ description: 'A draft-07 JSON Schema of boolean visitor claims' }) });

export const PublishedQuery = Type.Object({ shareKey: ShareKeyQuery });

export const StructureType = StringEnum(['site-space', 'site-section', 'site-section-group'] as const);
export const StructurePointer = Type.Object({ type: StructureType, id: Type.String({ minLength: 1 }) });

export const SortStructureBody = Type.Object({
  item: StructurePointer,
  position: Type.Object({ before: Type.Optional(StructurePointer), after: Type.Optional(StructurePointer) }),
});

/** Response headers of a 201, as @fastify/swagger wants them (a map of header name to schema). */
export const CreatedHeaders = { Location: Type.String({ format: 'uri', description: 'API URL of the new resource' }) };

/**
 * The domain's anchor for a move's `position` (`before` wins when both are given): `toPointer` reads the
 * operation's own pointer shape. Undefined (the end) when the position is absent or empty.
 */
export function anchorOf<P>(position: { before?: P; after?: P } | undefined, toPointer: (pointer: P) => Pointer, field: string): Anchor | undefined {
  if (position?.before) return { pointer: toPointer(position.before), side: 'before', field: `${field}.before` };
  if (position?.after) return { pointer: toPointer(position.after), side: 'after', field: `${field}.after` };
  return undefined;
}

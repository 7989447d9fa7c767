/**
 * Table types for Kysely. One schema serves SQLite and PostgreSQL, so column types stay portable:
 * timestamps are ISO-8601 text, booleans are integers 0/1, JSON values are text.
 *
 * One idea, kept in one file though it is long: the database's tables as the one `Database` type every query is
 * checked against, a table a plain interface of its columns, with no logic between them to split along.
 */
import type { ColumnType, Generated } from 'kysely';

export interface UsersTable {
  id: string;
  email: string;
  display_name: string;
  photo_url: string | null;
  created_at: string;
}

export interface ApiTokensTable {
  id: string;
  user_id: string;
  /** SHA-256 of the token, hex. The token itself is never stored. */
  token_hash: string;
  created_at: string;
  last_used_at: string | null;
  /** What its owner called a personal token; null for tokens made otherwise (bootstrap, admin). */
  label: string | null;
}

export interface UserPasswordsTable {
  user_id: string;
  /** argon2id, as a PHC string. */
  hash: string;
  updated_at: string;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  /** SHA-256 of the cookie's secret, hex. */
  secret_hash: string;
  method: string;
  user_agent: string | null;
  ip: string | null;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

/** When a change request's preview links were last revoked (migration 0028). */
export interface ChangeRequestPreviewRevocationsTable {
  change_request_id: string;
  /** ISO time: preview links made before it no longer open the preview. */
  revoked_at: string;
}

/** A visitor-auth site's OpenID Connect provider (migration 0028). */
export interface SiteOidcProvidersTable {
  site_id: string;
  issuer: string;
  client_id: string;
  /** Sealed (SecretBox), never in clear. */
  client_secret: string;
  created_at: string;
  updated_at: string;
}

/** An organization's OpenID Connect provider (migration 0025). */
export interface OidcProvidersTable {
  organization_id: string;
  issuer: string;
  client_id: string;
  /** Sealed (SecretBox), never in clear. */
  client_secret: string;
  label: string;
  /** JSON array of e-mail domains. */
  allowed_domains: string;
  default_role: string | null;
  created_at: string;
  updated_at: string;
}

export interface PasswordResetsTable {
  /** SHA-256 of the link's token. */
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
}

export interface OrganizationsTable {
  id: string;
  title: string;
  type: string;
  use_case: string | null;
  community_type: string | null;
  hostname: string | null;
  default_role: string | null;
  /** JSON `{type: "site", site}` or null. */
  default_content: string | null;
  logo_url: string | null;
  sso: number;
  ai: number;
  invite_links: number;
  plan: string;
  created_at: string;
  updated_at: string;
}

export interface OrganizationEmailDomainsTable {
  organization_id: string;
  /** Lower case. */
  domain: string;
}

export interface MembersTable {
  organization_id: string;
  user_id: string;
  /** null: guest. */
  role: string | null;
  disabled: number;
  sso: number;
  joined_at: string;
  last_seen_at: string | null;
}

export interface TeamsTable {
  id: string;
  organization_id: string;
  title: string;
  created_at: string;
}

export interface TeamMembersTable {
  team_id: string;
  user_id: string;
  /** `owner` or `member`. */
  role: string;
  added_at: string;
}

/** An AuthnRequest Quire sent, until its response comes back or it expires. */
export interface SamlRequestsTable {
  id: string;
  provider_id: string;
  /** Where the browser goes once signed in (a path of the app). */
  next: string;
  created_at: string;
  expires_at: string;
}

/** An assertion already used to sign in, kept until it expires (replays are refused). */
export interface SamlUsedAssertionsTable {
  provider_id: string;
  assertion_id: string;
  expires_at: string;
}

export interface CollectionsTable {
  id: string;
  organization_id: string;
  parent_id: string | null;
  title: string;
  description: string | null;
  default_level: string | null;
  /** Order among the siblings (collections and spaces under one parent). */
  position: number;
  created_at: string;
  updated_at: string;
}

export interface SpacesTable {
  id: string;
  organization_id: string;
  parent_id: string | null;
  title: string;
  emoji: string;
  visibility: string;
  edit_mode: string;
  default_level: string | null;
  position: number;
  /** Oid of refs/heads/main. */
  revision: string;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  /** The folder of the repository holding the space's content: '' (the root) or a relative path ending in '/'. */
  project_directory: ColumnType<string, string | undefined, string>;
}

/** A role given on a space or a collection to a team or to one user. */
export interface ContentGrantsTable {
  id: string;
  organization_id: string;
  space_id: string | null;
  collection_id: string | null;
  team_id: string | null;
  user_id: string | null;
  role: string;
  created_at: string;
}

/** An invite link to an organization. */
export interface LinkInvitesTable {
  /** The secret the link carries (32 random bytes): whoever holds it may join. */
  id: string;
  organization_id: string;
  role: string | null;
  created_by: string | null;
  created_at: string;
}

/** A SAML identity provider of an organization (pending until entity id, SSO URL and certificate are all set). */
export interface SamlProvidersTable {
  id: string;
  organization_id: string;
  label: string;
  entity_id: string | null;
  sso_url: string | null;
  /** PEM, normalized by the domain. */
  certificate: string | null;
  default_team_id: string | null;
  /** Role given to members who arrive through this provider; null: guest. */
  default_role: string | null;
  created_at: string;
  updated_at: string;
}

export interface TranslationSettingsTable {
  id: string;
  organization_id: string;
  title: string;
  /** JSON array of language codes. */
  languages: string;
  created_at: string;
  updated_at: string;
}

/** Ids and timestamps of each path at a commit, derived from history (a cache: deterministic). */
export interface RevisionFactsTable {
  space_id: string;
  commit_oid: string;
  /** The commit whose facts `facts` changes (a stored row of the same space); null: `facts` holds them whole. */
  base_oid: string | null;
  /** How many change rows lead to a whole one from here (0 for a whole one). */
  depth: Generated<number>;
  /** JSON. Whole: path -> {i: id, c: createdAt, u: updatedAt, o: blob oid}. A change: {set: {path: fact}, gone: [path]}. */
  facts: string;
}

export interface ChangeRequestsTable {
  id: string;
  space_id: string;
  /** 1, 2, 3... within the space; its branch is refs/heads/change-requests/<number>. */
  number: number;
  subject: string;
  /** draft, open, archived or merged. */
  status: string;
  created_by: string | null;
  /** Main's oid when the change request was opened. */
  revision_initial: string;
  /** Main's oid at the last update from main. */
  revision_merged_ancestor: string | null;
  /** The merge commit on main, once merged. */
  revision_merged: string | null;
  created_at: string;
  updated_at: string;
}

export interface CommentsTable {
  id: string;
  space_id: string;
  /** null: a comment on the space's main content. */
  change_request_id: string | null;
  posted_by: string | null;
  /** JSON: `{markdown}` or `{document}`. */
  body: string;
  target_revision: string;
  target_page: string | null;
  target_node: string | null;
  /** open or resolved. */
  status: string;
  resolved_at: string | null;
  resolved_by: string | null;
  posted_at: string;
  edited_at: string | null;
}

export interface CommentRepliesTable {
  id: string;
  comment_id: string;
  posted_by: string | null;
  /** JSON: `{markdown}` or `{document}`. */
  body: string;
  posted_at: string;
  edited_at: string | null;
}

/** The merge rules of an organization (`space_id` null: its default) or of one of its spaces. */
export interface MergeRulesTable {
  /** The organization's id, or the space's. */
  owner_id: string;
  /** Set on an organization's row only (one of organization_id and space_id is set). */
  organization_id: string | null;
  space_id: string | null;
  required_approvals: number;
  /** 0 or 1. */
  no_new_broken_links: number;
  /** 0 or 1. */
  no_content_problems: number;
  updated_by: string | null;
  updated_at: string;
}

/** A review of a change request: one row per review submitted (a history; the latest of each reviewer counts). */
export interface ChangeRequestReviewsTable {
  id: string;
  change_request_id: string;
  /** null once the reviewer's account is gone. */
  reviewer_id: string | null;
  /** Who had requested this reviewer's review, when someone had. */
  requested_by: string | null;
  /** approved or changes-requested. */
  status: string;
  /** The change request's head commit when the review was made. */
  revision: string;
  /** The change-request comment posted with the review. */
  comment_id: string | null;
  created_at: string;
  updated_at: string;
}

/** A request that a user review a change request: one per user and change request. */
export interface ChangeRequestReviewRequestsTable {
  change_request_id: string;
  user_id: string;
  requested_by: string | null;
  /** The change request's head commit when the review was (last) requested. */
  revision: string;
  created_at: string;
}

/** A reaction of one user with one emoji on a comment or a reply (exactly one of the two ids is set). */
export interface CommentReactionsTable {
  comment_id: string | null;
  reply_id: string | null;
  user_id: string;
  emoji: string;
  reacted_at: string;
}

/** An OpenAPI specification of an organization, known by its slug. */
export interface OpenApiSpecsTable {
  id: string;
  organization_id: string;
  /** Unique in the organization. */
  slug: string;
  /** The source: a URL fetched by the `fetch-openapi` job, or the text given (exactly one is set). */
  source_url: string | null;
  source_text: string | null;
  /** pending (queued), progress (being fetched and parsed), complete. */
  processing_state: string;
  /** Id of the latest request to process the source; a fetch started for an older one discards its result. */
  request_id: string;
  last_processed_at: string | null;
  /** FETCH_TIMEOUT, FETCH_ERROR or PARSE_ERROR; null after a success. */
  last_process_error_code: string | null;
  /** The reason of the last failure, for operators (not in answers). */
  last_process_error: string | null;
  last_version_id: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** A processed, different content of a spec. */
export interface OpenApiSpecVersionsTable {
  id: string;
  spec_id: string;
  /** 1, 2, 3... within the spec. */
  number: number;
  /** The URL the document was fetched from; null for a text source. */
  url: string | null;
  /** SHA-256 of the canonical JSON of the bundled document: a new version only when it changes. */
  hash: string;
  /** JSON: the bundled document (external $refs resolved into it). */
  content: string;
  created_at: string;
}

/** A content import (into a space or a change request) and its outcome; the import-content job works from this row. */
export interface ContentImportsTable {
  id: string;
  space_id: string;
  /** null: an import into the space's main content. */
  change_request_id: string | null;
  url: string;
  /** website, markdown, html, zip or docx. */
  source: string;
  requested_by: string | null;
  /** pending, running, done or failed. */
  status: string;
  /** The commit the import made (set once, when done). */
  result_revision: string | null;
  imported_resources: number | null;
  total_resources: number | null;
  /** Why the last attempt failed. */
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** What `quire migrate` copied from another server (source, kind and id there) and where it went here. */
export interface MigratedTable {
  source: string;
  kind: string;
  source_id: string;
  target_id: string;
  fingerprint: string | null;
  migrated_at: string;
}

/** A whole git repository imported with its history (into an organization, or into one space). */
export interface RepositoryImportsTable {
  id: string;
  organization_id: string;
  /** null: an organization import (one space per project directory, a site from docs.yaml). */
  space_id: string | null;
  /** url, bundle or zip. */
  source: string;
  url: string | null;
  ref: string | null;
  /** An import into a space: the project directory it sets. */
  project_directory: string | null;
  force: number;
  requested_by: string | null;
  /** pending, running, done or failed. */
  status: string;
  /** JSON: the ids the import creates, written before it creates them. */
  plan: string | null;
  /** JSON: what the import made (set once, when done). */
  result: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

export interface SitesTable {
  id: string;
  organization_id: string;
  /** A SiteType: basic, premium, ... */
  type: string;
  title: string;
  /** public, unlisted, share-link or visitor-auth. */
  visibility: string;
  basename: string | null;
  /** The proxy origin, e.g. `company.com/docs`. */
  proxy: string | null;
  /** included or excluded. */
  agents_context: string;
  adaptive_content: number;
  /** JSON: the adaptive (visitor claims) JSON Schema, or null when none was set. */
  adaptive_schema: string | null;
  adaptive_schema_updated_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The HS256 key of a site's visitor tokens (visitor-auth sites); made on first read, replaced when rotated. */
export interface SiteVisitorKeysTable {
  site_id: string;
  /** 32 random bytes, base64url. */
  key: string;
  created_at: string;
}

export interface SiteSectionGroupsTable {
  id: string;
  site_id: string;
  title: string;
  icon: string | null;
  /** Order among the site's top-level items (groups and sections outside groups). */
  position: number;
  created_at: string;
  updated_at: string;
}

export interface SiteSectionsTable {
  id: string;
  site_id: string;
  /** null: a top-level section. */
  group_id: string | null;
  title: string;
  description: string | null;
  path: string;
  condition: string | null;
  icon: string | null;
  is_default: number;
  /** Order among the siblings: the site's top-level items, or the sections of the group. */
  position: number;
  created_at: string;
  updated_at: string;
}

export interface SiteSpacesTable {
  id: string;
  site_id: string;
  /** null: at the root of a site without sections. */
  section_id: string | null;
  space_id: string;
  path: string;
  condition: string | null;
  is_default: number;
  /** Order among the site spaces of the same section (or of the root). */
  position: number;
  created_at: string;
  updated_at: string;
}

/** A secret link to a site whose visibility is share-link. */
/** What a reader said of a published page (src/domain/sites/page-feedback.ts). */
export interface SitePageFeedbackTable {
  id: string;
  site_id: string;
  space_id: string;
  page_id: string;
  /** `good`, `ok` or `bad`. */
  rating: string;
  /** Plain text, at most PAGE_FEEDBACK_COMMENT_MAX characters; null without one. */
  comment: string | null;
  /** HMAC of the site, the day, the reader's address and user agent: one vote per reader, page and day. */
  client_key: string;
  created_at: string;
}

/** A space's Git Sync connection (migration 0021; src/domain/git-sync). */
export interface GitSyncConnectionsTable {
  space_id: string;
  /** The repository's URL, without credentials. */
  url: string;
  /** The full ref name of the branch on the host (`refs/heads/main`). */
  ref: string;
  /** The space's folder in the repository ('' for its root; else `docs/`). */
  project_directory: string;
  /** `import` or `export`: which side wins the first run. */
  first_sync: string;
  /** `none`, `token` or `ssh-key`. */
  auth_kind: string;
  auth_username: string | null;
  /** The token or private key, sealed (src/store/keys/secret-box.ts); null for none. */
  auth_secret: string | null;
  /** The webhook's shared secret, sealed; null without one. */
  webhook_secret: string | null;
  /** SSH: the host key trusted on first use. */
  host_key: string | null;
  /** `syncing`, `synced`, `conflict`, `error` or `paused`. */
  status: string;
  error: string | null;
  remote_commit: string | null;
  local_commit: string | null;
  last_synced_at: string | null;
  change_request_id: string | null;
  /** Runs failed in a row since the last that did not (migration 0022): the wait before the next try grows with it. */
  failures: Generated<number>;
  /** The user who connected the space (migration 0022); null for a user since removed. */
  connected_by: string | null;
  /** A run's news that is not an error: main followed a force-push, and where the former main is kept (migration 0022). */
  notice: string | null;
  /** The host's branches kept in step with change requests (`docs/*`, migration 0029); null: main only. */
  branch_pattern: string | null;
  created_at: string;
  updated_at: string;
}

/** A branch of the host kept in step with a change request (migration 0029). */
export interface GitSyncBranchesTable {
  space_id: string;
  /** The branch on the host: `refs/heads/docs/intro`, or `refs/heads/quire/cr-<number>` for a change request made in Quire. */
  remote_ref: string;
  /** Null while the host's branch holds nothing to review (already in main) or was refused. */
  change_request_id: string | null;
  /** `host` (the branch came from the host) or `quire` (the change request was made in Quire). */
  origin: string;
  /** The commit both sides were at when last in step; null before the branch was first on the host. */
  synced_commit: string | null;
  /** Where the host's branch was when last looked at (a poll runs again only when it moved); null: absent. */
  remote_commit: string | null;
  /** Why the last run could not bring the two in step (a conflict, a refused commit), as a sentence. */
  error: string | null;
  updated_at: string;
}

export interface ShareLinksTable {
  id: string;
  site_id: string;
  name: string;
  /** The secret of the link, shown in its `urls.published` (so it is kept readable, see share-links.ts). */
  token: string;
  active: number;
  created_at: string;
  updated_at: string;
}

/** A revision (commit) of a space whose links are indexed: the slot holding its rows, and how they were made. */
export interface LinkIndexTable {
  space_id: string;
  commit_oid: string;
  /** The rows of this revision in `links`, `link_pages` and `link_answers` (a later revision may take the slot over). */
  slot: string;
  /** The content root the links were resolved against. */
  root: string;
  version: number;
  indexed_at: string;
}

/** One page of an indexed revision (its slot) and one target it links to. */
export interface LinksTable {
  space_id: string;
  slot: string;
  page_id: string;
  /** `reference` or `dependsOn`. */
  relation: string;
  /** The key shared by every link to the same target: `page:<id>[#anchor]`, `file:<id>`, `url:<url>`, `missing:<path>`... */
  target: string;
  /** `page`, `file`, `url`, `reusable-content` or `missing`. */
  target_kind: string;
  /** The page, file or reusable content id; the URL; the path that resolves to nothing. */
  target_value: string;
  anchor: string | null;
  /** `ok` or `broken`. */
  status: string;
}

/** A document page of an indexed revision (its slot): its place in the page order and what its rows were made from. */
export interface LinkPagesTable {
  space_id: string;
  slot: string;
  page_id: string;
  page_order: number;
  git_path: string;
  /** Blob oid and cover file ids. */
  signature: string;
  /** The paths its links tried and found nothing at, as a JSON array; null for none. */
  probes: string | null;
}

/** What a path of an indexed revision (its slot) resolves to: `page:<id>`, `file:<id>` or `reusable-content:<id>`. */
export interface LinkAnswersTable {
  space_id: string;
  slot: string;
  path: string;
  answer: string;
}

/**
 * A slot whose rows belong to no indexed revision: a big revision's, being written in parts before it is claimed,
 * or a pruned revision's, being removed in parts (src/store/sql/links.ts).
 */
export interface LinkSlotsUnindexedTable {
  space_id: string;
  slot: string;
  /** When its write began; '' for rows being removed. */
  since: string;
}

/**
 * The revision of main a space's search rows come from, and the rules and language they were made with
 * (src/store/sql/search.ts; the engines' own tables, SQLite's search_fts and PostgreSQL's search_pages.document,
 * are read and written with raw SQL there).
 */
export interface SearchSpacesTable {
  /** The space's number in the index: its pages' `doc` are `key * 2^24 + n`. */
  key: Generated<number>;
  space_id: string;
  commit_oid: string;
  version: number;
  /** The language its words were stemmed in (src/content/search-text.ts SEARCH_LANGUAGES). */
  language: string;
  indexed_at: string;
  /** Its live pages (numbers within the space) and their lengths in tokens (src/store/sql/search-terms.ts). */
  docs: Buffer | null;
  /** Pages whose postings are still in its term lists, though they are gone (until the lists are compacted). */
  dead_docs: Generated<number>;
  /** The highest page number its term lists ever held. */
  last_doc: Generated<number>;
}

/** Per space and token, the pages that hold it (src/store/sql/search-terms.ts). */
export interface SearchTermsTable {
  space_id: string;
  term: string;
  /** The highest page number in `postings` (new pages are appended after it). */
  last_doc: number;
  postings: Buffer;
}

export interface SearchPagesTable {
  /** The page's number in the index (SQLite: the rowid of this row and of its FTS5 row). */
  doc: number;
  space_id: string;
  page_id: string;
  /** What the page's rows were made from (blob oid and title). */
  signature: string;
  /** The language most of the page's stop words are of ('' for none), and how many they are. */
  language: string;
  stop_words: number;
}

/**
 * A page as search results show it: its id, title, path, and its sections after its first heading, packed
 * (src/store/sql/search.ts packSections; '' for none).
 */
export interface SearchResultsTable {
  /** The page's number (search_pages.doc); the row goes with the page's. */
  doc: number;
  page_id: string;
  title: string;
  path: string;
  sections: string;
}

/** An image's width and height by its blob's oid (both null: its header gives none), read once from git. */
export interface ImageDimensionsTable {
  blob_oid: string;
  width: number | null;
  height: number | null;
}

/** Secrets shared by every process that uses this database (cursor signing, ...). */
export interface InstanceSecretsTable {
  name: string;
  value: string;
}

export interface Database {
  users: UsersTable;
  api_tokens: ApiTokensTable;
  user_passwords: UserPasswordsTable;
  sessions: SessionsTable;
  password_resets: PasswordResetsTable;
  oidc_providers: OidcProvidersTable;
  site_oidc_providers: SiteOidcProvidersTable;
  change_request_preview_revocations: ChangeRequestPreviewRevocationsTable;
  organizations: OrganizationsTable;
  organization_email_domains: OrganizationEmailDomainsTable;
  members: MembersTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  collections: CollectionsTable;
  spaces: SpacesTable;
  content_grants: ContentGrantsTable;
  link_invites: LinkInvitesTable;
  instance_secrets: InstanceSecretsTable;
  revision_facts: RevisionFactsTable;
  image_dimensions: ImageDimensionsTable;
  change_requests: ChangeRequestsTable;
  comments: CommentsTable;
  comment_replies: CommentRepliesTable;
  comment_reactions: CommentReactionsTable;
  change_request_reviews: ChangeRequestReviewsTable;
  change_request_review_requests: ChangeRequestReviewRequestsTable;
  merge_rules: MergeRulesTable;
  saml_providers: SamlProvidersTable;
  saml_requests: SamlRequestsTable;
  saml_used_assertions: SamlUsedAssertionsTable;
  translation_settings: TranslationSettingsTable;
  openapi_specs: OpenApiSpecsTable;
  openapi_spec_versions: OpenApiSpecVersionsTable;
  content_imports: ContentImportsTable;
  repository_imports: RepositoryImportsTable;
  migrated: MigratedTable;
  sites: SitesTable;
  site_section_groups: SiteSectionGroupsTable;
  site_sections: SiteSectionsTable;
  site_spaces: SiteSpacesTable;
  share_links: ShareLinksTable;
  site_visitor_keys: SiteVisitorKeysTable;
  site_page_feedback: SitePageFeedbackTable;
  git_sync_connections: GitSyncConnectionsTable;
  git_sync_branches: GitSyncBranchesTable;
  link_index: LinkIndexTable;
  links: LinksTable;
  link_pages: LinkPagesTable;
  link_answers: LinkAnswersTable;
  link_slots_unindexed: LinkSlotsUnindexedTable;
  search_spaces: SearchSpacesTable;
  search_pages: SearchPagesTable;
  search_terms: SearchTermsTable;
  search_results: SearchResultsTable;
}

// Generated is re-exported for later tables with database-made values.
export type { Generated };

/**
 * Table types for Kysely. One schema serves SQLite and PostgreSQL, so column types stay portable:
 * timestamps are ISO-8601 text, booleans are integers 0/1, JSON values are text.
 */
import type { Generated } from 'kysely';

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

export interface LinkInvitesTable {
  id: string;
  organization_id: string;
  role: string | null;
  created_by: string | null;
  created_at: string;
}

/** Ids and timestamps of each path at a commit, derived from history (a cache: deterministic). */
export interface RevisionFactsTable {
  space_id: string;
  commit_oid: string;
  /** JSON: path -> {i: id, c: createdAt, u: updatedAt, o: blob oid}. */
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

/** A reaction of one user with one emoji on a comment or a reply (exactly one of the two ids is set). */
export interface CommentReactionsTable {
  comment_id: string | null;
  reply_id: string | null;
  user_id: string;
  emoji: string;
  reacted_at: string;
}

/** A revision (commit) of a space whose links are in `links`, and the extraction rules they were made with. */
export interface LinkIndexTable {
  space_id: string;
  commit_oid: string;
  version: number;
  indexed_at: string;
}

/** One page of an indexed revision and one target it links to. */
export interface LinksTable {
  space_id: string;
  commit_oid: string;
  page_id: string;
  /** The page's place in the revision's page order. */
  page_order: number;
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

/** The revision of main a space's search rows come from. */
export interface SearchSpacesTable {
  space_id: string;
  commit_oid: string;
  version: number;
  indexed_at: string;
}

export interface SearchPagesTable {
  space_id: string;
  page_id: string;
  title: string;
  path: string;
  /** What the page's rows were made from (blob oid and title). */
  signature: string;
}

/** A section of a page: split at headings; position 0 is the text before the first heading (anchor ''). */
export interface SearchSectionsTable {
  space_id: string;
  page_id: string;
  position: number;
  anchor: string;
  title: string;
  /** Plain text. */
  body: string;
}

/** A term of a page and its score there (in the title, in a heading, how often in the text, as one number). */
export interface SearchPostingsTable {
  space_id: string;
  term: string;
  page_id: string;
  score: number;
}

/** Secrets shared by every process that uses this database (cursor signing, ...). */
export interface InstanceSecretsTable {
  name: string;
  value: string;
}

export interface Database {
  users: UsersTable;
  api_tokens: ApiTokensTable;
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
  change_requests: ChangeRequestsTable;
  comments: CommentsTable;
  comment_replies: CommentRepliesTable;
  comment_reactions: CommentReactionsTable;
  link_index: LinkIndexTable;
  links: LinksTable;
  search_spaces: SearchSpacesTable;
  search_pages: SearchPagesTable;
  search_sections: SearchSectionsTable;
  search_postings: SearchPostingsTable;
}

// Generated is re-exported for later tables with database-made values.
export type { Generated };

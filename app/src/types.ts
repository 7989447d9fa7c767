/** The shapes of the API's answers the app reads (the reference's, and Quire's extensions). */
import type { Role } from '../../src/domain/roles.js';

export type { Role };

export interface User {
  id: string;
  displayName: string;
  email?: string;
  photoURL?: string;
}

export interface SessionInfo {
  user: User;
  session: { id: string };
  csrfToken: string;
}

export interface List<T> {
  items: T[];
  next?: { page: string };
}

export interface Organization {
  id: string;
  title: string;
  inviteLinks: boolean;
  permissions: { view: boolean; admin: boolean; createContent: boolean; listMembers: boolean; listTeams: boolean };
}

export interface Collection {
  id: string;
  title: string;
  description?: string;
  organization: string;
  parent?: string;
}

export interface Space {
  id: string;
  title: string;
  emoji?: string;
  parent?: string;
  organization: string;
  visibility: string;
  defaultLevel: Role | null;
  gitSync?: GitSync;
  /** What the caller may do in the space (the API decides; the app offers only what it allows). */
  permissions: { view: boolean; admin: boolean; edit: boolean; triggerGitSync: boolean; comment: boolean; review: boolean; merge: boolean };
}

/** A space's connection to a branch of a repository on another git host (no credentials in it). */
export interface GitSync {
  repoName: string;
  installationProvider?: string;
  url: string;
  ref: string;
  projectDirectory: string;
  status: 'syncing' | 'synced' | 'conflict' | 'error' | 'paused';
  error?: string;
  lastSyncedAt?: string;
  notice?: string;
  updatedAt: string;
}

export interface Member {
  id: string;
  role: Role | null;
  user: User;
  disabled: boolean;
  joinedAt: string;
  sso: boolean;
  teams: number;
}

export interface Team {
  id: string;
  title: string;
  members: number;
  permissions: { admin: boolean; view: boolean };
}

export interface TeamMember {
  organization: Member;
  team: { role: 'owner' | 'member' };
}

export interface Invite {
  id: string;
  role: Role | null;
  createdAt: string;
  urls: { app: string };
}

export interface SamlProvider {
  id: string;
  label: string;
  ssoURL: string;
  entityID: string;
  certificate: string;
  defaultTeam?: Team;
  defaultRole: Role | null;
  status: 'active' | 'pending';
  service: { acsURL: string; startURL: string; entityID: string };
}

export interface OidcProvider {
  issuer: string;
  clientId: string;
  label: string;
  allowedDomains: string[];
  defaultRole: Role | null;
  callbackUrl: string;
  startUrl: string;
}

export interface ContentPage {
  id: string;
  title: string;
  kind?: string;
  type: 'document' | 'group' | 'link';
  path?: string;
  pages?: ContentPage[];
  href?: string;
}

export interface PageHtml {
  id: string;
  title: string;
  path: string;
  html: string;
  outline: Array<{ depth: number; text: string; id: string }>;
}

export interface ChangeRequest {
  id: string;
  number: number;
  subject: string;
  status: 'draft' | 'open' | 'archived' | 'merged';
  createdBy: User;
  createdAt: string;
  updatedAt: string;
  revision: string;
  revisionInitial: string;
  outdated: boolean;
  comments?: number;
}

export interface SearchResult {
  id: string;
  title: string;
  space?: string;
  pages?: Array<{ id: string; title: string; path: string; sections?: Array<{ id: string; title: string; body: string }> }>;
  path?: string;
}

/** A published site of an organization (sites have no `permissions` member: the organization's say who may edit). */
export interface Site {
  id: string;
  title: string;
  basename?: string;
  visibility: string;
  published: boolean;
  siteSpaces: number;
  urls: { app: string; published?: string };
}

/** A visitor-auth site's OpenID Connect provider (no secret in it). */
export interface SiteOidcProvider {
  issuer: string;
  clientId: string;
  callbackUrl: string;
}

export interface SiteSpace {
  id: string;
  title: string;
  path: string;
  default: boolean;
  space: Space;
  urls: { published?: string };
}

export interface SiteSection {
  object: 'site-section';
  id: string;
  title: string;
  default: boolean;
  siteSpaces: SiteSpace[];
  urls: { published?: string };
}

export interface SiteSectionGroup {
  object: 'site-section-group';
  id: string;
  title: string;
  sections: SiteSection[];
}

export type SiteStructure = { type: 'sections'; structure: Array<SiteSection | SiteSectionGroup> } | { type: 'siteSpaces'; structure: SiteSpace[] };

export interface OpenApiSpec {
  id: string;
  slug: string;
  createdAt: string;
  updatedAt: string;
  sourceURL?: string;
  processingState: 'pending' | 'progress' | 'complete';
  lastVersion?: string;
  lastProcessedAt?: string;
  lastProcessErrorCode?: string;
  lastProcessError?: string;
  urls: { location: string; app: string };
}

export interface OpenApiSpecVersion {
  id: string;
  createdAt: string;
  url: string;
}

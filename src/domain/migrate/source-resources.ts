/**
 * The source's resources as `quire migrate` reads them (the reference's shapes, only the fields used). Apart from
 * the steps so that each step module names the shapes it reads without importing another step.
 */
export interface SourceUser {
  id: string;
  email?: string;
  displayName?: string;
}
export interface SourceOrganization {
  id: string;
  title: string;
}
export interface SourceMember {
  id: string;
  role: string | null;
  user: SourceUser;
}
export interface SourceTeam {
  id: string;
  title: string;
}
export interface SourceCollection {
  id: string;
  title: string;
  description?: string;
  parent?: string;
  defaultLevel?: string | null;
}
export interface SourceSpace {
  id: string;
  title: string;
  emoji?: string;
  visibility?: string;
  editMode?: string;
  defaultLevel?: string | null;
  parent?: string;
  revision: string;
}
export interface SourceChangeRequest {
  id: string;
  number: number;
  status: string;
  subject?: string;
  createdBy?: SourceUser;
  createdAt?: string;
  updatedAt?: string;
  revision: string;
  revisionInitial?: string;
}
export interface SourceReaction {
  emoji: string;
  users?: Array<{ user: SourceUser; reactedAt?: string }>;
}
export interface SourceComment {
  id: string;
  postedBy?: SourceUser;
  postedAt?: string;
  editedAt?: string;
  body?: { markdown?: string };
  status?: string;
  resolvedAt?: string;
  resolvedBy?: SourceUser;
  replies?: number;
  reactions?: SourceReaction[];
  target?: { page?: { id: string }; node?: { id: string } };
}
export interface SourceReply {
  id: string;
  postedBy?: SourceUser;
  postedAt?: string;
  editedAt?: string;
  body?: { markdown?: string };
  reactions?: SourceReaction[];
}
export interface SourceFileInfo {
  id: string;
  name: string;
  downloadURL: string;
  /** With `metadata` (another Quire): where the file is in its repository. */
  git?: { path?: string };
}
export interface SourceSpec {
  id: string;
  slug: string;
  sourceURL?: string;
}
export interface SourceTranslation {
  id: string;
  title: string;
  languages?: string[];
}
export interface SourceSite {
  id: string;
  title: string;
  visibility?: string;
  basename?: string;
}
export interface SourceSection {
  id: string;
  title?: string;
  path?: string;
  icon?: string;
  description?: string;
  default?: boolean;
}
export interface SourceSectionGroup {
  id: string;
  title?: string;
  icon?: string;
  sections?: Array<{ id: string }>;
}
export interface SourceSiteSpace {
  id: string;
  path?: string;
  default?: boolean;
  section?: string;
  space?: { id: string };
}
export interface SourceShareLink {
  id: string;
  name: string;
  active?: boolean;
}

/** The shapes of the API's answers the app reads (the reference's, and Quire's extensions). */
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
}

export interface Collection {
  id: string;
  title: string;
  parent?: string;
}

export interface Space {
  id: string;
  title: string;
  emoji?: string;
  parent?: string;
  organization: string;
  visibility: string;
  /** What the caller may do in the space (the API decides; the app offers only what it allows). */
  permissions: { edit: boolean; comment: boolean; review: boolean; merge: boolean; admin: boolean };
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

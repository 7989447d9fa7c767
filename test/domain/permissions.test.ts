import { describe, expect, it } from 'vitest';
import {
  atLeast,
  changeRequestReviewPermissions,
  collectionPermissions,
  collectionRole,
  mayBeRequestedToReview,
  organizationPermissions,
  spacePermissions,
  spaceRole,
  strongest,
  teamPermissions,
  type OrgAccess,
  type Role,
} from '../../src/domain/permissions.js';

function access(role: Role | null | 'none', extra: Partial<OrgAccess> = {}): OrgAccess {
  return {
    organizationId: 'org',
    userId: 'u',
    membership:
      role === 'none'
        ? null
        : { organization_id: 'org', user_id: 'u', role, disabled: 0, sso: 0, joined_at: '2026-01-01T00:00:00.000Z', last_seen_at: null },
    collections: new Map([
      ['top', { id: 'top', parent_id: null, default_level: null }],
      ['mid', { id: 'mid', parent_id: 'top', default_level: null }],
      ['leaf', { id: 'leaf', parent_id: 'mid', default_level: null }],
    ]),
    spaceGrants: new Map(),
    collectionGrants: new Map(),
    teamRoles: new Map(),
    ...extra,
  };
}

const space = (over: Partial<{ id: string; parent_id: string | null; default_level: string | null; visibility: string }> = {}) => ({
  id: 's',
  parent_id: 'leaf',
  default_level: null,
  visibility: 'private',
  ...over,
});

describe('role order', () => {
  it('ranks admin > create > review > edit > comment > read', () => {
    expect(atLeast('review', 'edit')).toBe(true);
    expect(atLeast('edit', 'review')).toBe(false);
    expect(atLeast(null, 'read')).toBe(false);
    expect(strongest('read', null, 'comment', 'edit')).toBe('edit');
    expect(strongest(null, undefined)).toBeNull();
  });
});

describe('effective role on a space', () => {
  it('gives organization admins admin everywhere', () => {
    expect(spaceRole(access('admin'), space())).toBe('admin');
    expect(collectionRole(access('admin'), 'leaf')).toBe('admin');
  });

  it('gives members their organization role', () => {
    expect(spaceRole(access('edit'), space())).toBe('edit');
    expect(collectionRole(access('read'), 'mid')).toBe('read');
  });

  it('inherits defaultLevel along the collection chain for members, not for guests', () => {
    const a = access('read');
    a.collections.set('top', { id: 'top', parent_id: null, default_level: 'review' });
    expect(spaceRole(a, space())).toBe('review');
    expect(collectionRole(a, 'leaf')).toBe('review');
    expect(spaceRole(a, space({ parent_id: null }))).toBe('read');
    const guest = access(null, { collections: a.collections });
    expect(spaceRole(guest, space())).toBeNull();
  });

  it("uses the space's own defaultLevel for members", () => {
    expect(spaceRole(access('comment'), space({ default_level: 'edit' }))).toBe('edit');
    expect(spaceRole(access(null), space({ default_level: 'edit' }))).toBeNull();
  });

  it('applies grants on the space or any collection above it, for guests too', () => {
    expect(spaceRole(access(null, { spaceGrants: new Map([['s', 'comment']]) }), space())).toBe('comment');
    expect(spaceRole(access(null, { collectionGrants: new Map([['mid', 'edit']]) }), space())).toBe('edit');
    expect(spaceRole(access('read', { collectionGrants: new Map([['top', 'create']]) }), space())).toBe('create');
    expect(spaceRole(access(null, { collectionGrants: new Map([['other', 'edit']]) }), space())).toBeNull();
  });

  it('gives non-members read on public and unlisted spaces only', () => {
    expect(spaceRole(access('none'), space({ visibility: 'public' }))).toBe('read');
    expect(spaceRole(access('none'), space({ visibility: 'unlisted' }))).toBe('read');
    expect(spaceRole(access('none'), space({ visibility: 'private' }))).toBeNull();
    expect(spaceRole(access('none'), space({ visibility: 'in-collection' }))).toBeNull();
    expect(collectionRole(access('none'), 'top')).toBeNull();
  });

  it('lets whoever can see the parent collection read an in-collection space', () => {
    const guest = access(null, { collectionGrants: new Map([['leaf', 'read']]) });
    expect(spaceRole(guest, space({ visibility: 'in-collection' }))).toBe('read');
  });

  it('stops at a cycle in a corrupted collection chain', () => {
    const a = access('read');
    a.collections.set('top', { id: 'top', parent_id: 'leaf', default_level: null });
    expect(spaceRole(a, space())).toBe('read');
  });
});

describe('permissions objects', () => {
  it('derive every flag from the role', () => {
    expect(spacePermissions('review')).toEqual({
      view: true,
      access: true,
      admin: false,
      viewInviteLinks: false,
      edit: true,
      triggerGitSync: true,
      comment: true,
      merge: true,
      review: true,
    });
    expect(spacePermissions('edit')).toMatchObject({ edit: true, merge: false, review: false });
    expect(spacePermissions('read')).toMatchObject({ view: true, comment: false, edit: false });
    expect(Object.values(spacePermissions(null)).every((v) => v === false)).toBe(true);
    expect(collectionPermissions('create')).toEqual({ view: true, admin: false, viewInviteLinks: false, create: true });
  });

  it('for organizations, guests only view', () => {
    expect(organizationPermissions(access(null))).toMatchObject({ view: true, listMembers: false, listTeams: false, createContent: false });
    expect(organizationPermissions(access('create'))).toMatchObject({ listMembers: true, createContent: true, admin: false });
    expect(organizationPermissions(access('none')).view).toBe(false);
    expect(organizationPermissions(access('read', { teamRoles: new Map([['t', 'owner']]) })).ownTeam).toBe(true);
  });

  it('for teams, owners manage their team and members see it', () => {
    const owner = access(null, { teamRoles: new Map([['t', 'owner']]) });
    expect(teamPermissions(owner, 't')).toEqual({ admin: true, view: true });
    expect(teamPermissions(owner, 'other')).toEqual({ admin: false, view: false });
    expect(teamPermissions(access('read'), 't')).toEqual({ admin: false, view: true });
    expect(teamPermissions(access('admin'), 't')).toEqual({ admin: true, view: true });
  });
});

describe('change-request reviews', () => {
  it('read sees, review reviews, the author may not approve, edit or authorship requests reviewers', () => {
    const of = (role: Role | null, author = false) => changeRequestReviewPermissions(role, author);
    expect(of(null)).toEqual({ view: false, review: false, approve: false, requestReviewers: false });
    expect(of('read')).toEqual({ view: true, review: false, approve: false, requestReviewers: false });
    expect(of('edit')).toEqual({ view: true, review: false, approve: false, requestReviewers: true });
    expect(of('review')).toEqual({ view: true, review: true, approve: true, requestReviewers: true });
    expect(of('admin', true)).toEqual({ view: true, review: true, approve: false, requestReviewers: true });
    // An author who can still read may ask for reviews, and no more.
    expect(of('read', true)).toEqual({ view: true, review: false, approve: false, requestReviewers: true });
    expect(of(null, true).requestReviewers).toBe(false);
  });

  it('asks members who read the space, guests with a grant included, and no one else', () => {
    expect(mayBeRequestedToReview(access('read'), space())).toBe(true);
    expect(mayBeRequestedToReview(access(null), space())).toBe(false);
    expect(mayBeRequestedToReview(access(null, { spaceGrants: new Map([['s', 'read']]) }), space())).toBe(true);
    // Public spaces are read by anyone, but only members are asked.
    expect(mayBeRequestedToReview(access('none'), space({ visibility: 'public' }))).toBe(false);
  });
});

import type { MemberSpaceView, MemberView } from '../../../domain/members/members.js';
import { spaceViewOf } from '../../../domain/content/spaces.js';
import { isRole } from '../../../domain/permissions.js';
import { presentUser } from '../../present.js';
import type { Urls } from '../../urls.js';
import { presentSpace } from '../spaces/presenter.js';

export function presentMember(urls: Urls, view: MemberView) {
  const member = view.member;
  return {
    object: 'member' as const,
    id: member.user_id,
    role: isRole(member.role) ? member.role : null,
    user: presentUser(urls, member.user),
    disabled: member.disabled === 1,
    joinedAt: member.joined_at,
    ...(member.last_seen_at ? { lastSeenAt: member.last_seen_at } : {}),
    sso: member.sso === 1,
    spaces: view.spaces,
    teams: view.teams,
  };
}

/** The member's role on the space, and the space with the caller's own permissions on it. */
export function presentMemberSpace(urls: Urls, view: MemberSpaceView) {
  return { permission: view.role, space: presentSpace(urls, spaceViewOf(view.viewerAccess, view.space, view.counters)) };
}

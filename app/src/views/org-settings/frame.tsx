import type { ComponentChildren } from 'preact';
import { api, appHref } from '../../api.js';
import { useApi } from '../../use-api.js';
import { Layout } from '../../components/layout.js';
import { Failure, Loading } from '../../components/status.js';
import type { Organization } from '../../types.js';

export type OrgSettingsSection = 'members' | 'teams' | 'invites' | 'sign-in';

/** Each section, and who may open it (by the permissions the API gives the caller on the organization). */
const SECTIONS: Array<[OrgSettingsSection, string, (org: Organization) => boolean, string]> = [
  ['members', 'Members', (org) => org.permissions.listMembers, 'its members (not guests)'],
  ['teams', 'Teams', (org) => org.permissions.listTeams, 'its members (not guests)'],
  ['invites', 'Invite links', (org) => org.permissions.admin, 'its admins'],
  ['sign-in', 'Single sign-on', (org) => org.permissions.admin, 'its admins'],
];

export const orgSettingsHref = (organizationId: string, section: OrgSettingsSection = 'members') => appHref(`/o/${organizationId}/settings/${section}`);

/** Whether the caller may open any of the organization's settings (the permissions the API gives them). */
export const mayOpenOrgSettings = (org: Organization) => SECTIONS.some(([, , may]) => may(org));

/**
 * An organization's settings: the frame (title, breadcrumbs, the sections the caller's permissions open) around one
 * section, which gets the organization as the API describes it to the caller (and a way to read it again).
 */
export function OrgSettingsFrame({ organizationId, section, title, children }: {
  organizationId: string;
  section: OrgSettingsSection;
  title: string;
  children: (org: Organization, reload: () => void) => ComponentChildren;
}) {
  const [org, reload] = useApi(organizationId, (signal) => api<Organization>(`/orgs/${organizationId}`, { signal }));
  const orgTitle = org.state === 'done' ? org.value.title : 'Organization';
  const [, , may, who] = SECTIONS.find(([key]) => key === section)!;
  return (
    <Layout
      title={`${title} · ${orgTitle}`}
      crumbs={[{ label: orgTitle, href: appHref(`/o/${organizationId}`) }, { label: 'Settings', href: orgSettingsHref(organizationId) }, { label: title }]}
    >
      <h1>Settings of {orgTitle}</h1>
      {org.state === 'loading' && <Loading what="the organization" />}
      {org.state === 'failed' && <Failure error={org.error} />}
      {org.state === 'done' && (
        <>
          <nav class="tabs-nav" aria-label="Settings">
            {SECTIONS.filter(([, , may]) => may(org.value)).map(([key, label]) => (
              <a key={key} href={orgSettingsHref(organizationId, key)} aria-current={key === section ? 'page' : undefined}>
                {label}
              </a>
            ))}
          </nav>
          {may(org.value) ? children(org.value, reload) : <Failure error={new Error(`Only ${who} open these settings of ${org.value.title}.`)} />}
        </>
      )}
    </Layout>
  );
}

/**
 * Helpers of the site suites: an organization with members of each kind, spaces and sites made through the API,
 * and a compact outline of a site's structure for whole-structure comparisons.
 */
import { expect } from 'vitest';
import type { TestApp, TestUser } from './app.js';

export interface SitePeople {
  org: { id: string; admin: TestUser };
  /** Org role `create`: manages sites. */
  creator: TestUser;
  /** Org role `edit`: reads sites, changes nothing. */
  editor: TestUser;
  guest: TestUser;
  stranger: TestUser;
}

export async function sitePeople(t: TestApp): Promise<SitePeople> {
  const org = await t.organization('Acme');
  return {
    org,
    creator: await t.member(org.id, 'create'),
    editor: await t.member(org.id, 'edit'),
    guest: await t.member(org.id, null),
    stranger: await t.user(),
  };
}

export async function createSpace(t: TestApp, organizationId: string, token: string, title: string): Promise<{ id: string; title: string }> {
  const res = await t.request('POST', `/v1/orgs/${organizationId}/spaces`, { token, body: { title } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export async function createSite(t: TestApp, organizationId: string, token: string, body: Record<string, unknown> = {}): Promise<any> {
  const res = await t.request('POST', `/v1/orgs/${organizationId}/sites`, { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** `/v1/orgs/ORG/sites/SITE` followed by `path`. */
export function siteUrl(organizationId: string, siteId: string, path = ''): string {
  return `/v1/orgs/${organizationId}/sites/${siteId}${path}`;
}

/** Sends a request that must answer `status`; returns the body. */
export async function expectStatus(t: TestApp, status: number, method: string, url: string, options: Parameters<TestApp['request']>[2] = {}): Promise<any> {
  const res = await t.request(method, url, options);
  expect(res.status, `${method} ${url} ${JSON.stringify(options.body ?? options.query ?? '')}: ${JSON.stringify(res.body)}`).toBe(status);
  return res.body;
}

/** Sends a request that must answer 400 with a message matching `message` (which names the field). */
export async function expectBadRequest(t: TestApp, method: string, url: string, token: string, body: unknown, message: RegExp): Promise<void> {
  const res = await t.request(method, url, { token, body });
  expect(res.status, `${method} ${url} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`).toBe(400);
  expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
}

type Outline = Array<string | [string, Outline]>;

/**
 * The structure as nested ids with what placement means: `section:ID*` (default), `group:ID`, `space:ID*`, and
 * `?condition` when an item has one. Children follow in a nested list.
 */
export function outline(structure: { type: string; structure: any[] }): Outline {
  const siteSpace = (s: any): string => `space:${s.id}${s.default ? '*' : ''}${s.condition ? `?${s.condition}` : ''}`;
  const section = (s: any): [string, Outline] => [`section:${s.id}${s.default ? '*' : ''}${s.condition ? `?${s.condition}` : ''}`, s.siteSpaces.map(siteSpace)];
  if (structure.type === 'siteSpaces') return structure.structure.map(siteSpace);
  return structure.structure.map((item) => (item.object === 'site-section-group' ? [`group:${item.id}`, item.sections.map(section)] : section(item)));
}

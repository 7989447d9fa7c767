/**
 * A real app on a real database and real repositories in a temp data dir, plus factories for users,
 * organizations, members and tokens. Requests go through Fastify's full pipeline (`inject`), and every JSON answer
 * is checked against the reference OpenAPI document (test/helpers/contract.ts).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../config/index.js';
import { createContainer, type Container } from '../../src/container.js';
import { buildApp } from '../../src/http/app.js';
import { createApiToken, createUser } from '../../src/domain/identity/users.js';
import { createOrganization } from '../../src/domain/organizations/organizations.js';
import { addMember } from '../../src/domain/members/members.js';
import type { Role } from '../../src/domain/permissions.js';
import type { UserRow } from '../../src/store/sql/users.js';
import { insertGrant } from '../../src/store/sql/spaces.js';
import { newId } from '../../src/domain/ids.js';
import { createPostgresDatabase, type DatabaseKind } from './databases.js';
import { assertMatchesReference } from './contract.js';
import { assertRedisReachable, removeRedisPrefix, REDIS_TEST_URL, uniqueRedisPrefix, type QueueDriver } from './queues.js';

export interface TestUser {
  user: UserRow;
  token: string;
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  /** Raw payload sent as is (malformed JSON, uploads). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | string[] | undefined>;
  /** Skip the reference check (for operations the reference does not describe). */
  unchecked?: boolean;
  /** Skip the GET of the URLs the answer hands out (say why where it is used). */
  urlsUnchecked?: boolean;
}

/**
 * Strings of `value` (at any depth) that are URLs of this server. Published-site URLs inside an item with a
 * `condition` (a section or site space shown only to readers whose claims match) are left out: no caller of the
 * API has those claims. `apiUrls: false` leaves out the API's own URLs (answers made for a site's visitors).
 */
function ownUrls(value: unknown, base: string, options: { apiUrls: boolean; conditional?: boolean }, found: string[] = []): string[] {
  if (typeof value === 'string') {
    const api = value.startsWith(`${base}/v1/`);
    if (value.startsWith(`${base}/`) && (api ? options.apiUrls : !options.conditional)) found.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) ownUrls(item, base, options, found);
  } else if (value && typeof value === 'object') {
    const inner = 'condition' in value && value.condition ? { ...options, conditional: true } : options;
    for (const item of Object.values(value)) ownUrls(item, base, inner, found);
  }
  return found;
}

/**
 * Answers also made for callers outside the organization: a site's visitors (its published structure, its
 * sections and site spaces with a share key) and people whose e-mail domain an organization accepts. The API
 * URLs in them are for the organization's members.
 */
const FOR_OUTSIDERS = /^\/v1\/(orgs\/[^/]+\/sites\/[^/]+\/(published|structure|sections|site-spaces|section-groups)|email-domains\/[^/]+\/orgs)(\?|$)/;

export interface TestApp {
  kind: DatabaseKind;
  queue: QueueDriver;
  app: FastifyInstance;
  container: Container;
  config: Config;
  request<T = any>(method: string, url: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /** A user with an API token. */
  user(email?: string, name?: string): Promise<TestUser>;
  /** An organization whose first admin is a new user. */
  organization(title?: string): Promise<{ id: string; admin: TestUser }>;
  /** A new user who is a member of the organization with the role (null: guest). */
  member(organizationId: string, role: Role | null): Promise<TestUser>;
  /** A grant of `role` on a space or collection to a user or a team (no API writes grants yet). */
  grant(organizationId: string, on: { space?: string; collection?: string }, to: { user?: string; team?: string }, role: Role): Promise<void>;
  /** A team of the organization with these users as plain members; returns its id. */
  team(organizationId: string, members: TestUser[]): Promise<string>;
  /** GETs each URL as the holder of `token`, as every answer's URLs are checked: fails when one answers 404. */
  checkUrls(urls: string[], token: string): Promise<void>;
  /** Starts listening on a free port of 127.0.0.1 (for real clients such as git) and returns the base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

let counter = 0;
function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}${counter}-${process.pid}-${Date.now().toString(36)}@example.com`;
}

function queryString(query: RequestOptions['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) value.forEach((v) => params.append(key, v));
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

export interface TestAppOptions {
  /** The job-queue driver (default in-process). With `bullmq`, the app's own BullMQ workers run in this process. */
  queue?: QueueDriver;
  /**
   * Collects every line the server logs (JSON, at the level of `overrides.logLevel`: give one, the default is silent),
   * its jobs' and its requests' (Fastify logs then too), to check what the logs hold.
   */
  logLines?: string[];
}

export async function startTestApp(kind: DatabaseKind, overrides: Partial<Config> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const queue = options.queue ?? 'in-process';
  if (queue === 'bullmq') await assertRedisReachable();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-test-'));
  const postgres = kind === 'postgres' ? await createPostgresDatabase({ migrated: true }) : undefined;
  const redis = queue === 'bullmq' ? { redisUrl: REDIS_TEST_URL, redisPrefix: uniqueRedisPrefix() } : { redisUrl: undefined };
  const config = loadConfig(
    {},
    // One CPU thread unless a suite asks for more: a test run starts hundreds of apps, and a thread's start is most
    // of the CPU some suites use; the suites about the pool's concurrency give their own number.
    { dataDir, databaseUrl: postgres?.url, publicUrl: 'http://quire.test', logLevel: 'silent', jobRetryDelayMs: 20, cpuThreads: 1, ...redis, ...overrides },
  );
  const logLines = options.logLines;
  const logOutput = logLines && { write: (text: string) => void logLines.push(...text.split('\n').filter((line) => line !== '')) };
  const container = await createContainer(config, { workers: queue === 'bullmq', ...(logOutput ? { logOutput } : {}) });
  const app = await buildApp(container, { logger: logLines !== undefined });
  await app.ready();
  const { ctx } = container;

  /**
   * Every URL of this server an answer hands out (in its JSON or its Location header) is fetched with GET as the same
   * caller, at once (before anything else can change), once per caller: none may answer 404. Redirects to
   * this server are followed.
   */
  const checkedUrls = new Set<string>();
  async function checkHandedOutUrls(
    answer: { method: string; url: string },
    urls: string[],
    caller: { token: string | null | undefined; shareKey?: string },
  ): Promise<void> {
    const { token, shareKey } = caller;
    for (const handedOut of urls) {
      const key = `${token ?? ''} ${shareKey ?? ''} ${handedOut}`;
      if (checkedUrls.has(key)) continue;
      checkedUrls.add(key);
      // A caller who read with a share key reads on with it: `shareKey` in the API, `share` on the published site.
      const param = handedOut.startsWith(`${config.publicUrl}/v1/`) ? 'shareKey' : 'share';
      let target = shareKey && !handedOut.includes('?') ? `${handedOut}?${param}=${encodeURIComponent(shareKey)}` : handedOut;
      for (let hop = 0; hop < 5; hop += 1) {
        const response = await app.inject({ method: 'GET', url: target.slice(config.publicUrl.length), headers: token ? { authorization: `Bearer ${token}` } : {} });
        if (response.statusCode === 404) {
          throw new Error(`${answer.method} ${answer.url} handed out ${handedOut}, which answers 404 to GET${target === handedOut ? '' : ` (redirected to ${target})`}: ${response.body.slice(0, 300)}`);
        }
        const location = response.headers.location;
        if (response.statusCode < 300 || response.statusCode >= 400 || typeof location !== 'string') break;
        const next = new URL(location, target).toString();
        if (!next.startsWith(`${config.publicUrl}/`)) break;
        target = next;
      }
    }
  }

  const testApp: TestApp = {
    kind,
    queue,
    app,
    container,
    config,
    async request(method, url, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      let payload: string | Buffer | undefined;
      if (options.rawBody !== undefined) payload = options.rawBody;
      else if (options.body !== undefined) payload = JSON.stringify(options.body);
      if (payload !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
      const response = await app.inject({ method: method as any, url: url + queryString(options.query), headers, payload });
      const text = response.body;
      const isJson = String(response.headers['content-type'] ?? '').includes('application/json');
      const body = text && isJson ? JSON.parse(text) : text || undefined;
      if (!options.unchecked) assertMatchesReference(method, url, response.statusCode, isJson && text ? body : undefined);
      if (response.statusCode < 400 && !options.urlsUnchecked) {
        const handedOut = isJson && body ? ownUrls(body, config.publicUrl, { apiUrls: !(method === 'GET' && FOR_OUTSIDERS.test(url)) }) : [];
        const location = response.headers.location;
        if (typeof location === 'string' && location.startsWith(`${config.publicUrl}/`)) handedOut.push(location);
        const shareKey = typeof options.query?.shareKey === 'string' ? options.query.shareKey : undefined;
        await checkHandedOutUrls({ method, url }, handedOut, { token: options.token, ...(shareKey ? { shareKey } : {}) });
      }
      return { status: response.statusCode, body, headers: response.headers };
    },
    checkUrls(urls, token) {
      return checkHandedOutUrls({ method: 'GET', url: '(checkUrls)' }, urls, { token });
    },
    async user(email, name) {
      const user = await createUser(ctx, { email: email ?? uniqueEmail(), name });
      return { user, token: await createApiToken(ctx, user.id) };
    },
    async organization(title = 'Acme Docs') {
      const admin = await testApp.user(undefined, 'Admin');
      const organization = await createOrganization(ctx, admin.user.id, { title });
      return { id: organization.id, admin };
    },
    async member(organizationId, role) {
      const member = await testApp.user();
      await addMember(ctx, organizationId, member.user.id, role);
      return member;
    },
    async listen() {
      return app.listen({ port: 0, host: '127.0.0.1' });
    },
    async grant(organizationId, on, to, role) {
      await insertGrant(ctx.db, {
        id: newId(),
        organization_id: organizationId,
        space_id: on.space ?? null,
        collection_id: on.collection ?? null,
        user_id: to.user ?? null,
        team_id: to.team ?? null,
        role,
        created_at: new Date().toISOString(),
      });
    },
    async team(organizationId, members) {
      const id = newId();
      const now = new Date().toISOString();
      await ctx.db.insertInto('teams').values({ id, organization_id: organizationId, title: `Team ${id}`, created_at: now }).execute();
      for (const m of members) {
        await ctx.db.insertInto('team_members').values({ team_id: id, user_id: m.user.id, role: 'member', added_at: now }).execute();
      }
      return id;
    },
    async close() {
      await app.close();
      await container.close();
      if (config.redisUrl) await removeRedisPrefix(config.redisPrefix, config.redisUrl);
      await postgres?.drop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
  return testApp;
}

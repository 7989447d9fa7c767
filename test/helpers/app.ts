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
import { insertGrant } from '../../src/store/sql/content.js';
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
}

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
}

export async function startTestApp(kind: DatabaseKind, overrides: Partial<Config> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const queue = options.queue ?? 'in-process';
  if (queue === 'bullmq') await assertRedisReachable();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-test-'));
  const postgres = kind === 'postgres' ? await createPostgresDatabase() : undefined;
  const redis = queue === 'bullmq' ? { redisUrl: REDIS_TEST_URL, redisPrefix: uniqueRedisPrefix() } : { redisUrl: undefined };
  const config = loadConfig(
    {},
    { dataDir, databaseUrl: postgres?.url, publicUrl: 'http://quire.test', logLevel: 'silent', jobRetryDelayMs: 20, ...redis, ...overrides },
  );
  const container = await createContainer(config, { workers: queue === 'bullmq' });
  const app = await buildApp(container, { logger: false });
  await app.ready();
  const { ctx } = container;

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
      return { status: response.statusCode, body, headers: response.headers };
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

#!/usr/bin/env node
/**
 * The `quire` command: serve, and the admin commands of architecture.md section 1.
 */
import { Command, InvalidArgumentError } from 'commander';
import { loadConfig, type Config } from '../config/index.js';
import { createContainer, type Container } from './container.js';
import { buildApp } from './http/app.js';
import { Urls } from './http/urls.js';
import { presentUser } from './http/present.js';
import { presentOrganization } from './http/routes/organizations/presenter.js';
import { createApiToken, createUser } from './domain/identity/users.js';
import { createOrganization } from './domain/organizations/organizations.js';
import { addMember } from './domain/members/members.js';
import { loadOrgAccess, isRole, type Role } from './domain/permissions.js';
import { findUserByEmail } from './store/sql/users.js';
import { emailDomainsOf } from './store/sql/organizations.js';
import { DomainError } from './domain/errors.js';

async function withContainer<T>(run: (container: Container) => Promise<T>): Promise<T> {
  const container = await createContainer(loadConfig());
  try {
    return await run(container);
  } finally {
    await container.close();
  }
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function parseRole(value: string): Role | null {
  if (value === 'guest') return null;
  if (!isRole(value)) throw new InvalidArgumentError('must be admin, create, review, edit, comment, read or guest');
  return value;
}

async function serve(config: Config): Promise<void> {
  const container = await createContainer(config);
  const app = await buildApp(container);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    // In-flight requests get a grace period; keep-alive connections a client never closes must not hold the exit.
    const grace = setTimeout(() => app.server.closeAllConnections(), 3000);
    await app.close();
    clearTimeout(grace);
    await container.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  await app.listen({ port: config.port, host: config.host });
}

const program = new Command('quire').description('Quire: documentation whose content lives in git');

program
  .command('serve')
  .description('HTTP API and git over HTTP on HOST:PORT')
  .action(async () => serve(loadConfig()));

const admin = program.command('admin').description('administration from the command line');

admin
  .command('bootstrap')
  .description('first admin user, an organization and an API token')
  .requiredOption('--email <email>', 'e-mail of the admin')
  .option('--name <name>', 'display name')
  .option('--org <title>', 'title of the organization', 'My organization')
  .action(async (options: { email: string; name?: string; org: string }) =>
    withContainer(async ({ ctx, config }) => {
      const user = (await findUserByEmail(ctx.db, options.email)) ?? (await createUser(ctx, { email: options.email, name: options.name }));
      const organization = await createOrganization(ctx, user.id, { title: options.org });
      const token = await createApiToken(ctx, user.id);
      const urls = new Urls(config.publicUrl);
      const access = await loadOrgAccess(ctx, organization.id, user.id);
      const domains = await emailDomainsOf(ctx.db, [organization.id]);
      print({
        user: presentUser(urls, user),
        organization: presentOrganization(urls, { organization, access, emailDomains: domains.get(organization.id) ?? [] }),
        token,
      });
    }),
  );

admin
  .command('create-user')
  .description('a user, optionally a member of an organization, with an API token')
  .requiredOption('--email <email>', 'e-mail of the user')
  .option('--name <name>', 'display name')
  .option('--org <organizationId>', 'make the user a member of this organization')
  .option('--role <role>', 'role in --org: admin, create, review, edit, comment, read or guest', parseRole)
  .action(async (options: { email: string; name?: string; org?: string; role?: Role | null }) =>
    withContainer(async ({ ctx, config }) => {
      if (options.role !== undefined && !options.org) throw new InvalidArgumentError('--role needs --org');
      const user = await createUser(ctx, { email: options.email, name: options.name });
      if (options.org) await addMember(ctx, options.org, user.id, options.role === undefined ? 'read' : options.role);
      const token = await createApiToken(ctx, user.id);
      print({ user: presentUser(new Urls(config.publicUrl), user), token });
    }),
  );

admin
  .command('create-token')
  .description('a new API token for a user')
  .requiredOption('--user <userId>', 'id of the user')
  .action(async (options: { user: string }) =>
    withContainer(async ({ ctx }) => {
      print({ token: await createApiToken(ctx, options.user) });
    }),
  );

program.parseAsync(process.argv).catch((error: unknown) => {
  const message = error instanceof DomainError || error instanceof InvalidArgumentError ? error.message : (error as Error).stack ?? String(error);
  process.stderr.write(`quire: ${message}\n`);
  process.exit(1);
});

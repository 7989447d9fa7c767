/**
 * A published site's MCP server at `{site}/~quire/mcp`, reached as an agent reaches it: the protocol SDK's own client
 * over HTTP, on both databases. Its tools search the site, read a page as markdown and list the pages; a share-link
 * site answers with its key only, a visitor-auth site with a valid visitor token as the bearer, and what a reader's
 * claims hide (a section, an `{% if %}` block) no tool returns. A site whose `agentsContext` is `excluded` answers no
 * agent (404).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { waitFor } from '../helpers/wait.js';

type ToolText = { content: Array<{ type: string; text: string }>; isError?: boolean };
/** What the SDK's client throws when the server answers a 404 (a JSON-RPC error as its body) to its first exchange. */
const NOT_FOUND = { code: 404, message: expect.stringContaining('"jsonrpc":"2.0"') };

describe.each(DATABASE_KINDS)('site MCP server (%s)', (kind) => {
  let t: TestApp;
  let server: string;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let publicSite: string;
  let publicSiteId: string;
  let sharedSite: string;
  let shareKey: string;
  let portal: string;
  let visitorKey: string;
  const clients: Client[] = [];

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await t.request(method, url, { token: org.admin.token, body });
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const publishedPath = async (siteId: string) => new URL((await api('GET', `/v1/orgs/${org.id}/sites/${siteId}`)).urls.published).pathname;

  /** An SDK client connected to the site's MCP server (`search`: a query string such as `?share=KEY`). */
  async function connect(sitePath: string, options: { search?: string; bearer?: string } = {}): Promise<Client> {
    const client = new Client({ name: 'quire-test-agent', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server}${sitePath}/~quire/mcp${options.search ?? ''}`), {
      requestInit: options.bearer ? { headers: { authorization: `Bearer ${options.bearer}` } } : {},
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolText;

  beforeAll(async () => {
    t = await startTestApp(kind, { publicUrl: 'https://docs.example.test' });
    org = await t.organization('Agents Co');
    server = await t.listen();
    const guideId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Guide' })).id;
    const internalId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Internal' })).id;
    const guide = await Checkout.clone(spaceRemote(server, org.admin.token, guideId));
    await guide.write('README.md', '---\ndescription: Where to start\n---\n\n# Welcome\n\nStart with the [install guide](setup/install.md).\n');
    await guide.write(
      'setup/install.md',
      '# Install\n\n## Requirements\n\nA flux capacitor rated 1.21 gigawatts.\n\n{% if visitor.claims.beta %}\nThe beta channel: run the nightly installer.\n{% endif %}\n',
    );
    await guide.write('SUMMARY.md', '# Summary\n\n* [Welcome](README.md)\n* [Install](setup/install.md)\n');
    await guide.commitAndPush('Guide');
    await guide.dispose();
    const internal = await Checkout.clone(spaceRemote(server, org.admin.token, internalId));
    await internal.write('README.md', '# Runbook\n\nThe flux capacitor spare parts are in room 12.\n');
    await internal.commitAndPush('Internal');
    await internal.dispose();
    // The push's indexing is a job: wait until each space's search finds its text.
    for (const [spaceId, word, title] of [[guideId, 'gigawatts', 'Install'], [internalId, 'spare', 'Runbook']]) {
      await waitFor(async () => JSON.stringify((await api('GET', `/v1/spaces/${spaceId}/search?query=${word}`)).items), {
        until: (found) => found.includes(title),
        what: `search to find "${title}" by ${word}`,
      });
    }

    const open = await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Open docs', visibility: 'public', spaces: [guideId] });
    publicSite = await publishedPath(open.id);
    publicSiteId = open.id;
    const shared = await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Partner docs', visibility: 'share-link', spaces: [guideId] });
    sharedSite = await publishedPath(shared.id);
    shareKey = new URL((await api('POST', `/v1/orgs/${org.id}/sites/${shared.id}/share-links`, { name: 'Agents' })).urls.published).searchParams.get('share')!;
    const gated = await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Portal', visibility: 'visitor-auth' });
    await api('PUT', `/v1/orgs/${org.id}/sites/${gated.id}/adaptive-schema`, {
      jsonSchema: { type: 'object', properties: { beta: { type: 'boolean', description: 'Beta testers' }, staff: { type: 'boolean', description: 'Employees' } }, additionalProperties: false },
    });
    await api('POST', `/v1/orgs/${org.id}/sites/${gated.id}/sections`, { spaceId: guideId, title: 'Guides' });
    const staffOnly = await api('POST', `/v1/orgs/${org.id}/sites/${gated.id}/sections`, { spaceId: internalId, title: 'Internal' });
    await api('PATCH', `/v1/orgs/${org.id}/sites/${gated.id}/sections/${staffOnly.id}`, { condition: 'visitor.claims.staff' });
    portal = await publishedPath(gated.id);
    visitorKey = (await api('GET', `/v1/orgs/${org.id}/sites/${gated.id}/visitor-key`)).key;
  });

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await t?.close();
  });

  const visitorToken = (claims: Record<string, unknown>) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
      .sign(new TextEncoder().encode(visitorKey));

  it('lists its three read-only tools, searches with excerpts and URLs, reads a page as markdown and lists the pages', async () => {
    const client = await connect(publicSite);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['getPage', 'listPages', 'searchDocumentation']);
    expect(tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true);

    const found = await call(client, 'searchDocumentation', { query: 'flux capacitor' });
    expect(found.isError).toBeUndefined();
    expect(found.content[0].text).toContain(`- Install: https://docs.example.test${publicSite}/setup/install`);
    expect(found.content[0].text).toContain('1.21 gigawatts');
    // The internal space is not on this site.
    expect(found.content[0].text).not.toContain('room 12');

    const page = await call(client, 'getPage', { url: `https://docs.example.test${publicSite}/setup/install` });
    expect(page.content[0].text).toMatch(/^# Install\n\n## Requirements\n\nA flux capacitor/);
    // Without claims, the beta block is hidden.
    expect(page.content[0].text).not.toContain('nightly');
    for (const url of [`${publicSite}/setup/install.md`, 'setup/install', '/setup/install']) {
      expect((await call(client, 'getPage', { url })).content[0].text, url).toMatch(/^# Install\n/);
    }
    const home = await call(client, 'getPage', { url: publicSite });
    expect(home.content[0].text).toMatch(/^# Welcome\n\nWhere to start\n/);

    const listed = await call(client, 'listPages', {});
    expect(listed.content[0].text.split('\n')).toEqual([
      `- Welcome: https://docs.example.test${publicSite} — Where to start`,
      `- Install: https://docs.example.test${publicSite}/setup/install`,
    ]);
  });

  it('answers a page that is not there, a bad argument and a method without a session as errors, and goes on answering', async () => {
    const client = await connect(publicSite);
    const missing = await call(client, 'getPage', { url: 'nowhere/at-all' });
    expect(missing.isError).toBe(true);
    expect(missing.content[0].text).toContain('No page of Open docs at nowhere/at-all');
    const empty = (await call(client, 'searchDocumentation', { query: '' })) as ToolText;
    expect(empty.isError).toBe(true);
    expect((await fetch(`${server}${publicSite}/~quire/mcp`)).status).toBe(405);
    expect((await call(client, 'listPages', {})).content[0].text).toContain('Install');
  });

  it("answers no agent while the site's agentsContext is excluded, and answers again at once when it is included", async () => {
    expect((await api('GET', `/v1/orgs/${org.id}/sites/${publicSiteId}`)).agentsContext).toBe('included');
    const before = await connect(publicSite);
    await api('PATCH', `/v1/orgs/${org.id}/sites/${publicSiteId}`, { agentsContext: 'excluded' });
    try {
      await expect(connect(publicSite)).rejects.toMatchObject({ ...NOT_FOUND, message: expect.stringContaining('does not serve AI agents') });
      // A client connected before: each exchange is its own request, refused as well.
      await expect(before.listTools()).rejects.toMatchObject(NOT_FOUND);
      // Not even to a member with an API token (the organization's own MCP server, /v1/mcp, is for them).
      await expect(connect(publicSite, { bearer: org.admin.token })).rejects.toMatchObject(NOT_FOUND);
    } finally {
      await api('PATCH', `/v1/orgs/${org.id}/sites/${publicSiteId}`, { agentsContext: 'included' });
    }
    const client = await connect(publicSite);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['getPage', 'listPages', 'searchDocumentation']);
    expect((await call(client, 'searchDocumentation', { query: 'flux capacitor' })).content[0].text).toContain('1.21 gigawatts');
  });

  it('opens a share-link site with its key only', async () => {
    await expect(connect(sharedSite)).rejects.toMatchObject(NOT_FOUND);
    const client = await connect(sharedSite, { search: `?share=${encodeURIComponent(shareKey)}` });
    expect((await call(client, 'getPage', { url: 'setup/install' })).content[0].text).toMatch(/^# Install\n/);
  });

  it('opens a visitor-auth site with a valid visitor token as the bearer, and returns only what its claims show', async () => {
    await expect(connect(portal)).rejects.toMatchObject(NOT_FOUND);
    await expect(connect(portal, { bearer: 'not-a-token' })).rejects.toMatchObject(NOT_FOUND);

    const reader = await connect(portal, { bearer: await visitorToken({}) });
    const plain = await call(reader, 'searchDocumentation', { query: 'flux capacitor' });
    expect(plain.content[0].text).toContain('1.21 gigawatts');
    expect(plain.content[0].text).not.toContain('room 12');
    expect((await call(reader, 'listPages', { section: 'Internal' })).isError).toBe(true);
    expect((await call(reader, 'getPage', { url: 'internal' })).isError).toBe(true);
    expect((await call(reader, 'getPage', { url: 'setup/install' })).content[0].text).not.toContain('nightly');

    const staff = await connect(portal, { bearer: await visitorToken({ staff: true, beta: true }) });
    expect((await call(staff, 'searchDocumentation', { query: 'spare parts' })).content[0].text).toContain('Runbook');
    expect((await call(staff, 'listPages', { section: 'Internal' })).content[0].text).toContain('- Runbook: ');
    expect((await call(staff, 'getPage', { url: 'setup/install' })).content[0].text).toContain('The beta channel: run the nightly installer.');
  });
});

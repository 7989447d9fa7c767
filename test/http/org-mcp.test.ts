/**
 * The organization's MCP server at `/v1/mcp`, reached as an agent reaches it: the protocol SDK's own client over
 * HTTP with an API token as the bearer, on both databases. Its read tools show only what the token's user may read
 * (another organization's space, or a space they have no access to, answers as a missing one does); its write tools
 * work through change requests only (main never moves) and refuse what the API refuses.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';

type ToolText = { content: Array<{ type: string; text: string }>; isError?: boolean };

const INSTALL = '---\ndescription: Setting it up\n---\n\n# Install\n\n## Requirements\n\nA flux capacitor rated 1.21 gigawatts.\n';

describe.each(DATABASE_KINDS)('organization MCP server (%s)', (kind) => {
  let t: TestApp;
  let server: string;
  let acme: Awaited<ReturnType<TestApp['organization']>>;
  let rivals: Awaited<ReturnType<TestApp['organization']>>;
  let guideId: string;
  let secretId: string;
  let elsewhereId: string;
  let writer: TestUser;
  let reader: TestUser;
  let guest: TestUser;
  const clients: Client[] = [];

  const api = async (method: string, url: string, token: string, body?: unknown) => {
    const res = await t.request(method, url, { token, body });
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };

  /** An SDK client connected to `/v1/mcp` with `token` as the bearer. */
  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: 'quire-test-agent', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server}/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    await client.connect(transport);
    clients.push(client);
    return client;
  }
  const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolText;
  const textOf = (result: ToolText) => result.content.map((part) => part.text).join('\n');

  /** A space of `org` with `files` pushed to main, once its search finds `word`. */
  async function spaceWith(org: { id: string; admin: TestUser }, title: string, files: Record<string, string>, word: string): Promise<string> {
    const id = (await api('POST', `/v1/orgs/${org.id}/spaces`, org.admin.token, { title })).id;
    const checkout = await Checkout.clone(spaceRemote(server, org.admin.token, id));
    for (const [file, text] of Object.entries(files)) await checkout.write(file, text);
    await checkout.commitAndPush(title);
    await checkout.dispose();
    // The push's indexing is a job: wait until the space's search finds the word.
    for (let found = 0; found === 0; await new Promise((resolve) => setTimeout(resolve, 200))) {
      found = (await api('GET', `/v1/spaces/${id}/search?query=${word}`, org.admin.token)).items.length;
    }
    return id;
  }

  beforeAll(async () => {
    t = await startTestApp(kind);
    server = await t.listen();
    acme = await t.organization('Acme');
    rivals = await t.organization('Rivals');
    guideId = await spaceWith(
      acme,
      'Guide',
      {
        'README.md': '# Welcome\n\nStart with the install guide.\n',
        'setup/install.md': INSTALL,
        'SUMMARY.md': '# Summary\n\n* [Welcome](README.md)\n* [Install](setup/install.md)\n',
      },
      'gigawatts',
    );
    secretId = await spaceWith(acme, 'Secret', { 'README.md': '# Runbook\n\n## Parts\n\nThe flux capacitor spare parts are in room 12.\n' }, 'spare');
    elsewhereId = await spaceWith(rivals, 'Elsewhere', { 'README.md': '# Rival notes\n\n## Hardware\n\nTheir flux capacitor is in hangar 9.\n' }, 'hangar');
    writer = await t.member(acme.id, 'edit');
    reader = await t.member(acme.id, 'read');
    // A guest sees only what is granted to them: the guide, not the secret space.
    guest = await t.member(acme.id, null);
    await t.grant(acme.id, { space: guideId }, { user: guest.user.id }, 'read');
  });

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await t?.close();
  });

  it('lists its read and write tools', async () => {
    const { tools } = await (await connect(writer.token)).listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ['comment', 'getChangeRequest', 'getPage', 'listChangeRequests', 'listSpaces', 'openChangeRequest', 'searchContent', 'writePage'].sort(),
    );
    const readOnly = tools.filter((tool) => tool.annotations?.readOnlyHint === true).map((tool) => tool.name);
    expect(readOnly.sort()).toEqual(['getChangeRequest', 'getPage', 'listChangeRequests', 'listSpaces', 'searchContent']);
  });

  it('lists only the spaces the token may read', async () => {
    const member = textOf(await call(await connect(writer.token), 'listSpaces', {}));
    expect(member).toContain(`- Guide (space ${guideId}; organization Acme, ${acme.id}; your role: edit): http`);
    expect(member).toContain(`- Secret (space ${secretId}; `);
    expect(member).not.toContain(elsewhereId);
    expect(member).not.toContain('Rivals');

    const granted = textOf(await call(await connect(guest.token), 'listSpaces', {}));
    expect(granted).toContain(`- Guide (space ${guideId}; organization Acme, ${acme.id}; your role: read): http`);
    expect(granted).not.toContain(secretId);
    expect(granted).not.toContain(elsewhereId);
  });

  it('answers a space the token may not read exactly as a space that does not exist', async () => {
    const unknown = 'no-such-space-0000';
    const sameAsMissing = async (client: Client, tool: string, args: (spaceId: string) => Record<string, unknown>, hidden: string) => {
      const refused = await call(client, tool, args(hidden));
      const missing = await call(client, tool, args(unknown));
      expect(refused.isError, `${tool} on ${hidden}`).toBe(true);
      expect(missing.isError).toBe(true);
      expect(textOf(refused).replaceAll(hidden, 'ID')).toBe(textOf(missing).replaceAll(unknown, 'ID'));
      expect(textOf(refused)).toMatch(/^NotFound: spaceId: /);
    };
    const member = await connect(writer.token);
    const granted = await connect(guest.token);
    for (const [client, hidden] of [[member, elsewhereId], [granted, secretId]] as const) {
      await sameAsMissing(client, 'getPage', (spaceId) => ({ spaceId, path: 'README' }), hidden);
      await sameAsMissing(client, 'searchContent', (spaceId) => ({ spaceId, query: 'flux capacitor' }), hidden);
      await sameAsMissing(client, 'listChangeRequests', (spaceId) => ({ spaceId }), hidden);
    }
    // Searching everything never reaches them either.
    const everything = textOf(await call(granted, 'searchContent', { query: 'flux capacitor' }));
    expect(everything).toContain('1.21 gigawatts');
    expect(everything).not.toMatch(/room 12|hangar 9/);
  });

  it('searches with excerpts, and reads a page as markdown by its path or its id', async () => {
    const client = await connect(writer.token);
    const everywhere = textOf(await call(client, 'searchContent', { query: 'flux capacitor' }));
    expect(everywhere).toMatch(new RegExp(`^- Install \\(page [^,]+, path "setup/install", space Guide \\(${guideId}\\)\\): http`, 'm'));
    expect(everywhere).toContain('  - Requirements: A flux capacitor rated 1.21 gigawatts.');
    expect(everywhere).toContain('room 12');
    expect(everywhere).not.toContain('hangar 9');
    const inGuide = textOf(await call(client, 'searchContent', { query: 'flux capacitor', spaceId: guideId }));
    expect(inGuide).toContain('1.21 gigawatts');
    expect(inGuide).not.toContain('room 12');
    expect(textOf(await call(client, 'searchContent', { query: 'zeppelin', spaceId: guideId }))).toBe('Nothing found for "zeppelin".');

    const page = await call(client, 'getPage', { spaceId: guideId, path: 'setup/install' });
    expect(page.isError).toBeUndefined();
    // The API's page-by-path answer: the same markdown, under its title.
    const viaApi = await api('GET', `/v1/spaces/${guideId}/content/path/setup/install`, writer.token);
    expect(page.content[0].text).toBe(`# Install\n\n${viaApi.markdown}`);
    expect(page.content[0].text).toMatch(/^# Install\n\n## Requirements\n\nA flux capacitor rated 1\.21 gigawatts\.\n$/);
    expect(page.content[1].text).toContain(`Page ${viaApi.id} at path "setup/install" of space ${guideId}: Setting it up`);
    expect((await call(client, 'getPage', { spaceId: guideId, pageId: viaApi.id })).content[0].text).toBe(page.content[0].text);

    const missing = await call(client, 'getPage', { spaceId: guideId, path: 'nowhere' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/^NotFound: /);
  });

  it('writes through a change request only: its changes show, main stays as it was', async () => {
    const client = await connect(writer.token);
    const mainBefore = (await api('GET', `/v1/spaces/${guideId}`, writer.token)).revision;
    const installBefore = (await api('GET', `/v1/spaces/${guideId}/content/path/setup/install`, writer.token)).markdown;

    const opened = textOf(await call(client, 'openChangeRequest', { spaceId: guideId, subject: 'Agent edits' }));
    const [, number, crId] = /^Opened change request #(\d+) \(id ([^)]+)\) in space /.exec(opened)!;
    expect((await api('GET', `/v1/spaces/${guideId}/change-requests/${crId}`, writer.token)).subject).toBe('Agent edits');

    const added = await call(client, 'writePage', { spaceId: guideId, changeRequestId: number, path: 'guides/agents', title: 'Agents', markdown: 'Agents read pages over MCP.\n' });
    expect(textOf(added)).toMatch(new RegExp(`^Created page "guides/agents" \\(guides/agents\\.md\\) in change request #${number}: revision [0-9a-f]{40}$`));
    const replaced = await call(client, 'writePage', {
      spaceId: guideId,
      changeRequestId: crId,
      path: 'setup/install.md',
      markdown: '# Install\n\n## Requirements\n\nA flux capacitor rated 2.42 gigawatts.\n',
    });
    expect(textOf(replaced)).toMatch(/^Replaced page "setup\/install" \(setup\/install\.md\)/);

    // The change request's content, through the API: the new page is listed, the replaced one kept its front matter.
    const pages = (await api('GET', `/v1/spaces/${guideId}/change-requests/${crId}/content/pages`, writer.token)).pages as Array<{ id: string; title: string; path: string; description?: string; markdown?: string }>;
    expect(pages.map((page) => page.title)).toEqual(['Welcome', 'Install', 'Agents']);
    const agents = pages.find((page) => page.path === 'guides/agents')!;
    expect(agents).toMatchObject({ title: 'Agents', markdown: 'Agents read pages over MCP.\n' });
    const install = pages.find((page) => page.path === 'setup/install')!;
    expect(install).toMatchObject({ title: 'Install', description: 'Setting it up', markdown: '## Requirements\n\nA flux capacitor rated 2.42 gigawatts.\n' });

    const review = textOf(await call(client, 'getChangeRequest', { spaceId: guideId, changeRequestId: crId }));
    expect(review).toMatch(new RegExp(`^- #${number} Agent edits \\(id ${crId}, open, by `));
    expect(review).toContain(`- added: Agents (page ${agents.id}, path "guides/agents")`);
    expect(review).toContain(`- changed: Install (page ${install.id}, path "setup/install")`);
    expect(review).toContain('-A flux capacitor rated 1.21 gigawatts.\n+A flux capacitor rated 2.42 gigawatts.');
    expect(review).toContain('+* [Agents](guides/agents.md)');
    expect(textOf(await call(client, 'listChangeRequests', { spaceId: guideId }))).toContain(`- #${number} Agent edits (id ${crId}, open`);

    // Main did not move, and reads as before.
    expect((await api('GET', `/v1/spaces/${guideId}`, writer.token)).revision).toBe(mainBefore);
    expect((await t.container.ctx.reader.resolveRef(guideId, 'refs/heads/main'))).toBe(mainBefore);
    expect((await api('GET', `/v1/spaces/${guideId}/content/path/setup/install`, writer.token)).markdown).toBe(installBefore);
    expect((await t.request('GET', `/v1/spaces/${guideId}/content/path/guides/agents`, { token: writer.token })).status).toBe(404);

    // A comment, as the API lists the change request's comments.
    const posted = textOf(await call(client, 'comment', { spaceId: guideId, changeRequestId: crId, markdown: 'Ready for **review**.' }));
    const commentId = /^Posted comment (\S+) /.exec(posted)![1];
    const comments = (await api('GET', `/v1/spaces/${guideId}/change-requests/${crId}/comments`, writer.token)).items;
    expect(comments).toEqual([expect.objectContaining({ id: commentId, body: { markdown: 'Ready for **review**.' } })]);
    expect(comments[0].postedBy.id).toBe(writer.user.id);

    // An archived change request takes no more changes, as the API says of its imports.
    await api('PATCH', `/v1/spaces/${guideId}/change-requests/${crId}`, writer.token, { status: 'archived' });
    const late = await call(client, 'writePage', { spaceId: guideId, changeRequestId: crId, path: 'guides/late', markdown: 'Too late.\n' });
    expect(late.isError).toBe(true);
    expect(textOf(late)).toBe(`Conflict: changeRequestId: change request ${number} is archived; it takes no more changes`);
  });

  it('refuses writes to a reader, and bad arguments, as tool errors', async () => {
    const author = await connect(writer.token);
    const [, number, crId] = /#(\d+) \(id ([^)]+)\)/.exec(textOf(await call(author, 'openChangeRequest', { spaceId: guideId, subject: 'For readers' })))!;
    const branch = `refs/heads/change-requests/${number}`;
    const head = await t.container.ctx.reader.resolveRef(guideId, branch);

    const client = await connect(reader.token);
    const open = await call(client, 'openChangeRequest', { spaceId: guideId, subject: 'Not allowed' });
    expect(open.isError).toBe(true);
    expect(textOf(open)).toBe('PermissionDenied: you need the "edit" permission on this space to open a change request');
    const write = await call(client, 'writePage', { spaceId: guideId, changeRequestId: crId, path: 'guides/sneaky', markdown: 'Sneaky.\n' });
    expect(write.isError).toBe(true);
    expect(textOf(write)).toBe('PermissionDenied: you need the "edit" permission on this space to write pages in its change requests');
    expect(await t.container.ctx.reader.resolveRef(guideId, branch)).toBe(head);
    const subjects = (await api('GET', `/v1/spaces/${guideId}/change-requests?status=open`, reader.token)).items.map((cr: { subject: string }) => cr.subject);
    expect(subjects).toContain('For readers');
    expect(subjects).not.toContain('Not allowed');
    // Reading goes on.
    expect((await call(client, 'getPage', { spaceId: guideId, path: 'setup/install' })).isError).toBeUndefined();

    for (const [tool, args] of [
      ['searchContent', { query: 'x'.repeat(513) }],
      ['searchContent', { query: '   ' }],
      ['writePage', { spaceId: guideId, changeRequestId: crId, path: 'guides/blank', markdown: ' \n ' }],
      ['writePage', { spaceId: guideId, changeRequestId: crId, path: '../escape', markdown: 'Out.\n' }],
      ['writePage', { spaceId: guideId, changeRequestId: crId, path: 'guides/bad', markdown: '---\ndescription: [unclosed\n---\n\nBad front matter.\n' }],
      ['openChangeRequest', { spaceId: guideId, subject: 's'.repeat(101) }],
    ] as const) {
      const refused = await call(author, tool, args);
      expect(refused.isError, `${tool} ${JSON.stringify(args).slice(0, 80)}`).toBe(true);
    }
    expect(await t.container.ctx.reader.resolveRef(guideId, branch)).toBe(head);
  });

  it('answers 401 in the error shape without a token or with a bad one, and 405 to GET and DELETE', async () => {
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    for (const authorization of [undefined, 'Bearer qt_not_a_real_token', 'Token abc']) {
      const res = await fetch(`${server}/v1/mcp`, { method: 'POST', headers: { ...headers, ...(authorization ? { authorization } : {}) }, body: JSON.stringify(initialize) });
      expect(res.status, String(authorization)).toBe(401);
      const body = await res.json();
      expect(body.error.code).toBe(401);
      expect(body.error.message).toMatch(/^authorization: /);
    }
    await expect(connect('qt_not_a_real_token')).rejects.toThrow(/401/);
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${server}/v1/mcp`, { method, headers: { authorization: `Bearer ${writer.token}` } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect((await res.json()).error).toEqual({ code: 405, message: expect.stringMatching(/^method: /) });
    }
  });
});

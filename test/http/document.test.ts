/**
 * `format=document` through the API: a page pushed with git reads as the reference's JSONDocument
 * (the test app checks every answer against the reference schema), its links resolved to the ids of the pages and
 * files of the revision it was read at.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { tinyPng } from '../helpers/content.js';

describe('pages as documents (sqlite)', () => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let spaceId: string;
  let checkout: Checkout;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    org = await t.organization();
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Docs' } })).body.id;
    checkout = await Checkout.clone(spaceRemote(await t.listen(), org.admin.token, spaceId));
  });
  afterAll(async () => {
    await checkout?.dispose();
    await t?.close();
  });

  it('answers blocks, with links to pages, anchors and files as their ids', async () => {
    await checkout.write('README.md', '# Welcome\n\nStart here.\n');
    await checkout.write('setup.md', '# Setup\n\n## Run\n\nRun it.\n');
    await checkout.write('.gitbook/assets/diagram.png', tinyPng(4, 3));
    await checkout.write(
      'guide.md',
      [
        '# Guide',
        '',
        '{% hint style="success" %}',
        'Read [the setup](setup.md#run) first, or [the site](https://example.com).',
        '{% endhint %}',
        '',
        '![Diagram](.gitbook/assets/diagram.png)',
        '',
        '{% content-ref url="setup.md" %}',
        '[setup.md](setup.md)',
        '{% endcontent-ref %}',
        '',
      ].join('\n'),
    );
    await checkout.write('SUMMARY.md', '# Summary\n\n* [Welcome](README.md)\n* [Setup](setup.md)\n* [Guide](guide.md)\n');
    await checkout.commitAndPush('Pages');

    const pages = (await t.request('GET', `/v1/spaces/${spaceId}/content/pages`, { token: org.admin.token })).body.pages as Array<{ id: string; title: string }>;
    const setup = pages.find((page) => page.title === 'Setup')!;
    const files = (await t.request('GET', `/v1/spaces/${spaceId}/content/files`, { token: org.admin.token })).body.items as Array<{ id: string; name: string }>;
    const diagram = files.find((file) => file.name === 'diagram.png')!;

    const read = await t.request('GET', `/v1/spaces/${spaceId}/content/path/guide`, { token: org.admin.token, query: { format: 'document' } });
    expect(read.status).toBe(200);
    const [hint, images, contentRef] = read.body.document.nodes;
    expect(hint).toMatchObject({ type: 'hint', data: { style: 'success' } });
    const links = hint.nodes[0].nodes.filter((node: { object: string }) => node.object === 'inline');
    expect(links.map((link: { data: unknown }) => link.data)).toEqual([
      { ref: { kind: 'anchor', anchor: 'run', page: setup.id } },
      { ref: { kind: 'url', url: 'https://example.com/' } },
    ]);
    expect(images).toMatchObject({ type: 'images', nodes: [{ type: 'image', data: { ref: { kind: 'file', file: diagram.id }, alt: 'Diagram' } }] });
    expect(contentRef).toEqual({ object: 'block', type: 'content-ref', isVoid: true, data: { ref: { kind: 'page', page: setup.id } } });
  });

  it('converts a big page (and a big child page) on the CPU pool, its links resolved the same way', async () => {
    const filler = Array.from({ length: 600 }, (_, i) => `Paragraph ${i} with *some* text.`).join('\n\n');
    await checkout.write('big.md', `# Big\n\nRead [the setup](setup.md#run) and [the site](https://example.com).\n\n${filler}\n\n{% file src=".gitbook/assets/diagram.png" %}\n`);
    await checkout.write('child.md', `# Child\n\n${filler}\n\n[Back](big.md)\n`);
    await checkout.write('SUMMARY.md', '# Summary\n\n* [Welcome](README.md)\n* [Setup](setup.md)\n* [Guide](guide.md)\n* [Big](big.md)\n  * [Child](child.md)\n');
    await checkout.commitAndPush('Big pages');
    const pages = (await t.request('GET', `/v1/spaces/${spaceId}/content/pages`, { token: org.admin.token })).body.pages as Array<{ id: string; title: string; pages?: Array<{ id: string }> }>;
    const setup = pages.find((page) => page.title === 'Setup')!;
    const big = pages.find((page) => page.title === 'Big')!;
    const diagram = ((await t.request('GET', `/v1/spaces/${spaceId}/content/files`, { token: org.admin.token })).body.items as Array<{ id: string; name: string }>).find((file) => file.name === 'diagram.png')!;

    const read = await t.request('GET', `/v1/spaces/${spaceId}/content/page/${big.id}`, { token: org.admin.token, query: { format: 'document' } });
    expect(read.status).toBe(200);
    const nodes = read.body.document.nodes as Array<{ type: string; nodes?: Array<{ object: string; data?: unknown }>; data?: unknown }>;
    expect(nodes).toHaveLength(602);
    expect(nodes[0].nodes!.filter((node) => node.object === 'inline').map((node) => node.data)).toEqual([
      { ref: { kind: 'anchor', anchor: 'run', page: setup.id } },
      { ref: { kind: 'url', url: 'https://example.com/' } },
    ]);
    expect(nodes.at(-1)).toEqual({ object: 'block', type: 'file', isVoid: true, data: { ref: { kind: 'file', file: diagram.id } } });
    const [child] = read.body.pages as Array<{ title: string; document: { nodes: Array<{ nodes?: Array<{ object: string; data?: unknown }> }> } }>;
    expect(child.title).toBe('Child');
    expect(child.document.nodes.at(-1)!.nodes!.find((node) => node.object === 'inline')?.data).toEqual({ ref: { kind: 'page', page: big.id } });
  });
});

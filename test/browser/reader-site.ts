/**
 * The site the reader-layout suite reads: a handbook published at the root of a site, then a second section (which
 * gathers the handbook into a default section titled like the site), with code in the languages real repositories
 * use, every hint style, a figure, a broken link, and enough pages for a long table of contents.
 */
import zlib from 'node:zlib';
import type { TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';

/** A PNG of `width` x `height` in one colour, with a darker band (a figure's image the test can see). */
export function solidPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body) >>> 0);
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) rows.set(y > height / 3 && y < (2 * height) / 3 ? [9, 105, 218] : [221, 244, 255], y * (width * 3 + 1) + 1 + x * 3);
  }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', zlib.deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

export const PIXEL_PNG = solidPng(320, 120);

export const YAML_SAMPLE = ['# The service', 'name: quire', 'replicas: 3', 'enabled: true', 'ports:', '  - 8080', '  - "9090"', 'env: &defaults', '  LOG_LEVEL: info'].join('\n');

const CODE_PAGE = [
  '# Code samples',
  '',
  'Every language a repository tends to hold.',
  '',
  '## Configuration',
  '',
  '{% code title="deploy.yaml" lineNumbers="true" %}',
  '```yaml',
  YAML_SAMPLE,
  '```',
  '{% endcode %}',
  '',
  '```toml',
  '[server]',
  'port = 8080 # the port',
  'name = "quire"',
  '```',
  '',
  '```dockerfile',
  'FROM node:20-slim',
  'RUN npm ci --omit=dev',
  'CMD ["node", "dist/main.js"]',
  '```',
  '',
  '```hcl',
  'resource "aws_s3_bucket" "docs" {',
  '  bucket = "quire-${var.env}"',
  '  count  = 2 # two of them',
  '}',
  '```',
  '',
  '## Shell',
  '',
  '```console',
  '$ npm install --global quire',
  'added 1 package in 2s',
  '```',
  '',
  '```sh',
  'export QUIRE_DATA_DIR=/srv/quire # where data lives',
  'quire serve --port "${PORT:-8080}"',
  '```',
  '',
  '## Queries',
  '',
  '```graphql',
  'query Page($id: ID!) {',
  '  page(id: $id) { title @include(if: true) }',
  '}',
  '```',
  '',
  '```sql',
  "SELECT id, title FROM pages WHERE space_id = 'a' ORDER BY position LIMIT 10;",
  '```',
  '',
  '```jsonc',
  '{ "name": "quire", "private": true, "version": 1 } // a comment',
  '```',
  '',
  '## Programs',
  '',
  '```go',
  'func main() { fmt.Println("hello", 42) }',
  '```',
  '',
  '```rust',
  'fn main() { let answer: u32 = 42; println!("{}", answer); }',
  '```',
  '',
  '```kotlin',
  'fun main() { val answer = 42; println("answer $answer") }',
  '```',
  '',
  '```swift',
  'let answer = 42 // the answer',
  'print("answer \\(answer)")',
  '```',
  '',
  '```typescript',
  'export const answer: number = 42; // the answer',
  '```',
  '',
].join('\n');

const HINTS_PAGE = [
  '# Hints and figures',
  '',
  '{% hint style="info" %}',
  'Quire keeps every page in git.',
  '{% endhint %}',
  '',
  '{% hint style="success" %}',
  'Your site is published.',
  '{% endhint %}',
  '',
  '{% hint style="warning" %}',
  'Back up **first**.',
  '{% endhint %}',
  '',
  '{% hint style="danger" %}',
  'This deletes the space.',
  '{% endhint %}',
  '',
  '## A figure',
  '',
  '<figure><img src="../.gitbook/assets/pixel.png" alt="A diagram of the pipeline"><figcaption><p>The pipeline</p></figcaption></figure>',
  '',
  '## A broken link',
  '',
  'See [the old guide](old/guide.md) for history.',
  '',
].join('\n');

function longPage(title: string, sections: number): string {
  const body = [`# ${title}`, '', `All about ${title.toLowerCase()}.`, ''];
  for (let i = 1; i <= sections; i++) body.push(`## ${title} part ${i}`, '', `The ${title.toLowerCase()} part ${i} explained at length. `.repeat(12), '');
  return body.join('\n');
}

/** Pages enough for the table of contents to be longer than a phone's screen (the current one near its end). */
const TOPICS = ['Accounts', 'Billing', 'Branches', 'Comments', 'Exports', 'Imports', 'Members', 'Permissions', 'Redirects', 'Spaces', 'Teams', 'Tokens', 'Webhooks'];

export const GUIDE_FILES: Record<string, string | Buffer> = {
  'README.md': '# Welcome\n\nStart with the [install guide](setup/install.md).\n\n## Why Quire\n\nBecause your docs live in git.\n\n## Next steps\n\nRead on.\n',
  'setup/install.md': longPage('Install', 5),
  'setup/configure.md': longPage('Configure', 3),
  'reference/code.md': CODE_PAGE,
  'reference/hints.md': HINTS_PAGE,
  ...Object.fromEntries(TOPICS.map((topic) => [`topics/${topic.toLowerCase()}.md`, longPage(topic, 2)])),
  '.gitbook/assets/pixel.png': PIXEL_PNG,
  'SUMMARY.md': [
    '# Table of contents',
    '',
    '* [Welcome](README.md)',
    '',
    '## Getting started',
    '',
    '* [Install](setup/install.md)',
    '* [Configure](setup/configure.md)',
    '',
    '## Topics',
    '',
    ...TOPICS.map((topic) => `* [${topic}](topics/${topic.toLowerCase()}.md)`),
    '',
    '## Reference',
    '',
    '* [Code samples](reference/code.md)',
    '* [Hints and figures](reference/hints.md)',
    '',
  ].join('\n'),
};

export const API_FILES: Record<string, string> = {
  'README.md': '# API reference\n\nEvery endpoint of the install API.\n\n## Tokens\n\nCreate a token to install things.\n',
  'SUMMARY.md': '# Table of contents\n\n* [API reference](README.md)\n',
};

export interface ReaderSite {
  /** The site's path on the server (`/sites/ORG/SITE`). */
  path: string;
  siteId: string;
  title: string;
}

/** Pushes the two spaces and publishes them: the handbook at the root, then a second section. */
export async function publishReaderSite(t: TestApp, server: string, org: { id: string; admin: { token: string } }): Promise<ReaderSite> {
  const token = org.admin.token;
  const api = async (method: string, url: string, body?: unknown) => (await t.request(method, url, { token, body })).body;
  async function space(title: string, files: Record<string, string | Buffer>): Promise<string> {
    const id = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title })).id as string;
    const checkout = await Checkout.clone(spaceRemote(server, token, id));
    for (const [file, content] of Object.entries(files)) await checkout.write(file, content);
    await checkout.commitAndPush(title);
    await checkout.dispose();
    return id;
  }
  const guide = await space('Handbook', GUIDE_FILES);
  const reference = await space('API', API_FILES);
  const title = 'Quire Handbook';
  const site = await api('POST', `/v1/orgs/${org.id}/sites`, { title, visibility: 'public', spaces: [guide] });
  await api('POST', `/v1/orgs/${org.id}/sites/${site.id}/sections`, { spaceId: reference, title: 'API' });
  const path = new URL((await api('GET', `/v1/orgs/${org.id}/sites/${site.id}`)).urls.published).pathname;
  return { path, siteId: site.id, title };
}

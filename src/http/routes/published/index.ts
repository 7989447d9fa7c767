/**
 * Published sites as HTML at the URLs the API hands out (`urls.published`): `/sites/ORG/SITE[/section][/variant]
 * [/page path]`, and the files of their spaces at `/sites/ORG/SITE/~files/SPACE/OID/NAME`. Outside /v1: readers
 * are anonymous; an API token (bearer) reads as its user, `?share=KEY` opens a share-link site and `?jwt_token=JWT`
 * (a visitor token signed with the site's key) a visitor-auth site, each remembered in a cookie for that site. What a
 * reader may not see answers the same 404 page as what does not exist.
 *
 * Adaptive content: the visitor token's claims, and unsigned claims sent as `?visitor.NAME=value` (remembered too),
 * decide the sections, variants and `{% if %}` blocks shown. Claims count only through what the site's and the page's
 * conditions make of them: a page is kept per outcome of its conditions (variants.ts), so that readers whose claims
 * show the same get the same kept page, and claims nothing reads cost nothing. Answers to readers with claims are sent
 * `private, no-store`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { RouteDeps } from '../deps.js';
import { bearerToken, optionalUserOf } from '../../plugins/auth.js';
import { cachedBytes, sendCachedAnswer } from '../../present.js';
import { DomainError, NotFound } from '../../../domain/errors.js';
import {
  membersMayOpen,
  NothingPublishedYet,
  publishedSpaces,
  readPublishedPage,
  readPublishedSite,
  readPublishedSpace,
  servesAgents,
  type PublishedPage,
  type PublishedTree,
  type SiteVisitor,
} from '../../../domain/sites/published.js';
import { renderNotFound, renderNothingYet } from './layout.js';
import { renderSearch } from './search-page.js';
import { nearestPages, renderSiteNotFound } from './not-found.js';
import { ASSETS, assetAt, ASSETS_PREFIX, type Asset } from './site-assets.js';
import { pageMarkdown, pageSpecs, pageUrl, prerenderSiblings, renderContent, renderPage, siteFrame, spaceToc, type PageSpecs } from './render.js';
import { mayKeepVariant, pageVariant, type PageVariant } from './variants.js';
import { placeOf, searchFilters, sitePages, siteSearch } from './site-reads.js';
import { pageFeedbackRoutes } from './feedback.js';
import { answerMcpExchange, SESSION_METHODS } from '../../mcp.js';
import { contentTypeOf, DEFAULT_CONTENT_TYPE, runsScript } from '../../../content/files.js';
import { cookieValue, secureAttribute } from '../../cookies.js';
import { siteOfferingSignIn } from '../../../domain/sites/visitor-oidc.js';
import { VISITOR_SESSION_COOKIE, VISITOR_SIGN_IN_PATH, visitorSignInRoutes } from './visitor-sign-in.js';
import { CHANGE_REQUEST_PREVIEWS, readChangeRequestPreview } from '../../../domain/sites/change-request-previews.js';
import { unsignedClaimsOf, unsignedClaimsOfCookie } from './unsigned-claims.js';

const SHARE_COOKIE = 'quire_share';
const VISITOR_TOKEN_COOKIE = 'quire_visitor';
const UNSIGNED_CLAIMS_COOKIE = 'quire_visitor_claims';
/** A site's preview link (`?preview=`), and a change request's (its own name: its path is below the site's). */
const SITE_PREVIEW_COOKIE = 'quire_preview';
const CHANGE_REQUEST_PREVIEW_COOKIE = 'quire_change_preview';

const MACHINE_FILES = new Set(['sitemap.xml', 'robots.txt', 'llms.txt', 'llms-full.txt']);
/** The names browsers and pages ask a site's icon by (the pages link `favicon.svg`; browsers try `favicon.ico`). */
const FAVICONS = new Set(['favicon.ico', 'favicon.svg']);
/** Pages per part of `llms-full.txt/N`, as the hosted platform pages it. */
const LLMS_FULL_PART = 100;
/** Where a site's MCP server answers, below the site. */
export const MCP_PATH = '~quire/mcp';
/** What a site whose agents are excluded (servesAgents) answers at the addresses made for agents. */
const AGENTS_EXCLUDED = 'Not found: this site does not serve AI agents (no pages as markdown, llms.txt, llms-full.txt or MCP server).\n';

const SECURITY_HEADERS = {
  // Content HTML is sanitized; this makes sure no script from it runs anyway: only Quire's own (live search).
  'content-security-policy': "default-src 'none'; script-src 'self'; connect-src 'self'; img-src * data:; media-src *; style-src 'unsafe-inline'; frame-ancestors 'self'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

/**
 * Whether `segments` (below the site) name one of the addresses made for agents: a page's `.md` twin, `llms.txt`,
 * `llms-full.txt` or one of its parts.
 */
function agentsAddress(segments: string[]): boolean {
  const last = segments[segments.length - 1];
  if (last === undefined) return false;
  return last.endsWith('.md') || (segments.length === 1 && last === 'llms.txt') || (segments[0] === 'llms-full.txt' && segments.length <= 2);
}

/** Whether the reader asks for markdown before anything else (`Accept: text/markdown`, as agents send it). */
function prefersMarkdown(accept: string | undefined): boolean {
  const first = accept?.split(',', 1)[0].split(';', 1)[0].trim().toLowerCase();
  return first === 'text/markdown' || first === 'text/x-markdown';
}

/** Answers shown for a reader's claims are theirs alone; others are the same for every reader of the site. */
const cacheControl = (tree: PublishedTree) => (tree.claims || tree.preview ? 'private, no-store' : 'private, no-cache');

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Whether the request is a browser's navigation (HTML accepted), not an API client's or an agent's. */
const acceptsHtml = (accept: string | undefined) => (accept ?? '').toLowerCase().includes('text/html');

export const publishedRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  const basePath = new URL(urls.base('/')).pathname.replace(/\/$/, '');
  // Served over https (QUIRE_PUBLIC_URL): the browser must never send the site's cookies (keys, tokens) over http.
  const secure = secureAttribute(urls);
  /** An HttpOnly cookie for the site's pages only. */
  const siteCookie = (name: string, value: string, siteBase: string) => `${name}=${encodeURIComponent(value)}; Path=${siteBase}; HttpOnly; SameSite=Lax${secure}`;

  /**
   * The reader: a bearer token's user if valid; the share key, visitor token and unsigned claims of the query, or
   * else of the site's cookies. What the query brings is remembered in the cookies, but for the visitor token: only
   * once it is known valid (rememberVisitorToken), so that a bad one never replaces a good one.
   */
  async function visitorOf(request: FastifyRequest, reply: FastifyReply, siteBase: string, previewCookie = SITE_PREVIEW_COOKIE): Promise<SiteVisitor> {
    const user = await optionalUserOf(ctx, request);
    const query = (request.query ?? {}) as Record<string, unknown> & { share?: string; jwt_token?: string; preview?: string };
    const cookies = request.headers.cookie;
    const remembered = (value: unknown, cookie: string): string | undefined => {
      if (typeof value !== 'string' || value === '') return cookieValue(cookies, cookie);
      reply.header('set-cookie', siteCookie(cookie, value, siteBase));
      return value;
    };
    const shareKey = remembered(query.share, SHARE_COOKIE);
    const previewToken = remembered(query.preview, previewCookie);
    const visitorSession = cookieValue(cookies, VISITOR_SESSION_COOKIE);
    const visitorToken = typeof query.jwt_token === 'string' && query.jwt_token !== '' ? query.jwt_token : cookieValue(cookies, VISITOR_TOKEN_COOKIE);
    let unsignedClaims = unsignedClaimsOf(query);
    if (unsignedClaims) reply.header('set-cookie', siteCookie(UNSIGNED_CLAIMS_COOKIE, JSON.stringify(unsignedClaims), siteBase));
    else unsignedClaims = unsignedClaimsOfCookie(cookieValue(cookies, UNSIGNED_CLAIMS_COOKIE));
    return {
      ...(user ? { userId: user.id } : {}),
      ...(shareKey ? { shareKey } : {}),
      ...(previewToken ? { previewToken } : {}),
      ...(visitorToken ? { visitorToken } : {}),
      ...(visitorSession ? { visitorSession } : {}),
      ...(unsignedClaims ? { unsignedClaims } : {}),
    };
  }

  function notFound(reply: FastifyReply) {
    return reply.status(404).headers(SECURITY_HEADERS).header('content-type', 'text/html; charset=utf-8').send(renderNotFound());
  }

  const params = Type.Object({ organizationId: Type.String({ maxLength: 100 }), siteName: Type.String({ maxLength: 200 }), '*': Type.Optional(Type.String({ maxLength: 4096 })) });
  // Unsigned claims come as further `visitor.NAME` parameters (unsignedClaimsOf): extra members are allowed.
  const querystring = Type.Object({
    share: Type.Optional(Type.String({ maxLength: 200 })),
    jwt_token: Type.Optional(Type.String({ maxLength: 8192 })),
    /** A preview link's token (site-previews.ts, change-request-previews.ts). */
    preview: Type.Optional(Type.String({ maxLength: 8192 })),
    q: Type.Optional(Type.String({ maxLength: 512 })),
    /** The search page's section filter: a section's id. */
    section: Type.Optional(Type.String({ maxLength: 100 })),
  });

  async function page(request: FastifyRequest<{ Params: { organizationId: string; siteName: string; '*'?: string } }>, reply: FastifyReply) {
    const { organizationId, siteName } = request.params;
    const siteBase = `/sites/${encodeURIComponent(organizationId)}/${encodeURIComponent(siteName)}`;
    const segments = (request.params['*'] ?? '').split('/').filter((s) => s !== '');
    // Sites have no icon of their own yet (Quire stores no site customization): each answers Quire's, whoever asks,
    // so that no browser's request for it ends in a "not found" page.
    if (segments.length === 1 && FAVICONS.has(segments[0])) return sendAsset(reply, ASSETS.icon);
    return serve(request, reply, siteBase, segments, {
      previewCookie: SITE_PREVIEW_COOKIE,
      read: (visitor) => readPublishedSite(ctx, visitor, organizationId, siteName),
      signingInMayOpen: () => membersMayOpen(ctx, organizationId, siteName),
      visitorSignIn: async () => ((await siteOfferingSignIn(ctx, organizationId, siteName)) ? `${basePath}${siteBase}/${VISITOR_SIGN_IN_PATH}` : undefined),
    });
  }

  /**
   * A change request's preview (change-request-previews.ts), at CHANGE_REQUEST_PREVIEWS/ORG/SITE/CHANGE_REQUEST_ID/[page
   * path]: the site's pages as they would read with the change request merged. Members who may read the change
   * request see it (an anonymous browser signs in and comes back); others need its preview link.
   */
  async function changeRequestPage(
    request: FastifyRequest<{ Params: { organizationId: string; siteName: string; changeRequestId: string; '*'?: string } }>,
    reply: FastifyReply,
  ) {
    const { organizationId, siteName, changeRequestId } = request.params;
    const base = `${CHANGE_REQUEST_PREVIEWS}/${encodeURIComponent(organizationId)}/${encodeURIComponent(siteName)}/${encodeURIComponent(changeRequestId)}`;
    const segments = (request.params['*'] ?? '').split('/').filter((s) => s !== '');
    if (segments.length === 1 && FAVICONS.has(segments[0])) return sendAsset(reply, ASSETS.icon);
    return serve(request, reply, base, segments, {
      previewCookie: CHANGE_REQUEST_PREVIEW_COOKIE,
      read: (visitor) => readChangeRequestPreview(ctx, visitor, organizationId, siteName, changeRequestId),
      signingInMayOpen: async () => true,
    });
  }

  /**
   * The answer at `segments` below `siteBase`: of the site as `read` gives it to the reader (the published site, or a
   * change request's preview of it). `signingInMayOpen`: whether an anonymous browser refused is sent to sign in.
   */
  async function serve(
    request: FastifyRequest,
    reply: FastifyReply,
    siteBase: string,
    segments: string[],
    how: {
      previewCookie: string;
      read: (visitor: SiteVisitor) => Promise<PublishedTree>;
      signingInMayOpen: () => Promise<boolean>;
      /** Where the site's visitors sign in through its OpenID Connect provider, when it offers that. */
      visitorSignIn?: () => Promise<string | undefined>;
    },
  ) {
    let tree: PublishedTree | undefined;
    let visitor: SiteVisitor | undefined;
    try {
      visitor = await visitorOf(request, reply, siteBase, how.previewCookie);
      tree = await how.read(visitor);
      // A preview is never indexed (nor its files, nor its machine files).
      if (tree.preview) reply.header('x-robots-tag', 'noindex');
      const query = request.query as { jwt_token?: string };
      if (tree.visitorTokenValid && query.jwt_token) reply.header('set-cookie', siteCookie(VISITOR_TOKEN_COOKIE, query.jwt_token, siteBase));
      if (segments[0] === '~files') return await file(reply, tree, segments.slice(1));
      // A site that does not serve agents has none of their addresses (a plain-text 404, for the tools that ask).
      if (agentsAddress(segments) && !servesAgents(tree.site)) {
        return reply.status(404).headers(SECURITY_HEADERS).header('content-type', 'text/plain; charset=utf-8').header('cache-control', cacheControl(tree)).send(AGENTS_EXCLUDED);
      }
      if (segments.length === 1 && MACHINE_FILES.has(segments[0])) return await machineFile(reply, tree, siteBase, segments[0]);
      if (segments.length === 2 && segments[0] === 'llms-full.txt' && /^[1-9][0-9]{0,5}$/.test(segments[1])) return await machineFile(reply, tree, siteBase, segments[0], Number(segments[1]));
      if (segments.length === 1 && segments[0] === '~search') return await search(request, reply, tree, siteBase);
      const last = segments[segments.length - 1];
      // A page as markdown: its URL + `.md`, or its URL asked for markdown first (`Accept: text/markdown`, as agents do),
      // on a site that serves agents; on another, the page's URL answers its HTML whatever is asked first.
      const twin = last?.endsWith('.md') === true;
      if (twin || (prefersMarkdown(request.headers.accept) && servesAgents(tree.site))) {
        const target = await readPublishedPage(ctx, tree, twin ? [...segments.slice(0, -1), last.slice(0, -3)] : segments);
        if (target.kind !== 'page') throw new NotFound('path: no page here');
        const index = `> The index of this documentation, for agents and tools: ${urls.base(`${siteBase}/llms.txt`)}\n\n`;
        return reply
          .headers(SECURITY_HEADERS)
          .header('content-type', 'text/markdown; charset=utf-8')
          .header('cache-control', cacheControl(tree))
          .header('vary', 'accept')
          .send(index + pageMarkdown(target.page, tree.claims));
      }
      const target = await readPublishedPage(ctx, tree, segments);
      if (target.kind === 'redirect') {
        return reply.status(301).header('location', 'page' in target.to ? pageUrl(siteBase, target.space, target.to.page) : target.to.url).send();
      }
      const specs = await pageSpecs(ctx, target);
      const answer = await cachedPage(target, siteBase, specs, await pageVariant(ctx, target));
      reply.headers(SECURITY_HEADERS).header('cache-control', cacheControl(tree)).header('vary', 'accept');
      if (typeof answer.html === 'string') return reply.header('content-type', 'text/html; charset=utf-8').send(answer.html);
      return sendCachedAnswer(request, reply, target.content, answer.key, answer.html, 'text/html; charset=utf-8');
    } catch (error) {
      if (error instanceof NothingPublishedYet && tree) {
        return reply.headers(SECURITY_HEADERS).header('content-type', 'text/html; charset=utf-8').header('cache-control', cacheControl(tree)).send(renderNothingYet(tree.site.title));
      }
      if (error instanceof DomainError && error.code === 'NotFound') {
        if (tree) return siteNotFound(reply, tree, siteBase, segments);
        // An anonymous reader in a browser at a site for its members: sign in, and come back here.
        const anonymous = !visitor?.userId && !visitor?.shareKey;
        if (anonymous && acceptsHtml(request.headers.accept) && (await how.signingInMayOpen())) {
          return reply.redirect(`${basePath}/app/sign-in?next=${encodeURIComponent(request.url)}`, 302);
        }
        // A visitor-auth site with its own OpenID Connect provider: its visitors sign in there, and come back here.
        const signIn = anonymous && !visitor?.visitorToken && acceptsHtml(request.headers.accept) ? await how.visitorSignIn?.() : undefined;
        if (signIn) return reply.redirect(`${signIn}?next=${encodeURIComponent(request.url)}`, 302);
        return notFound(reply);
      }
      throw error;
    }
  }

  /**
   * "Not found" on a site the reader may read (404): in the site's frame, with the table of contents of the space the
   * address leads into (the site's first when it leads nowhere) and the site's pages nearest to the address.
   */
  async function siteNotFound(reply: FastifyReply, tree: PublishedTree, siteBase: string, segments: string[]) {
    const space = await readPublishedSpace(ctx, tree, segments).then(
      ({ space }) => space,
      () => undefined,
    );
    const pages = await sitePages(ctx, tree, siteBase);
    const candidates = pages
      .filter(({ page }) => !page.hidden)
      .map(({ space: of, page, path }) => {
        const place = placeOf(tree, of);
        return { title: page.title, href: path, path: path.slice(siteBase.length + 1), ...(place ? { place } : {}) };
      });
    const shown = space ?? pages[0]?.space;
    const frame = siteFrame(tree, siteBase, { currentSection: shown?.section?.id ?? tree.defaultSection, liveSearch: ASSETS.search.path });
    const html = renderSiteNotFound(frame, { nearest: nearestPages(segments.join('/'), candidates), ...(shown ? { toc: spaceToc(shown, siteBase) } : {}) });
    return reply.status(404).headers(SECURITY_HEADERS).header('content-type', 'text/html; charset=utf-8').header('cache-control', cacheControl(tree)).send(html);
  }

  /**
   * One of Quire's own files (site-assets.ts): at its own name (named by its content), cached for a year; as a
   * favicon (a name that stays when the icon changes), for a day.
   */
  function sendAsset(reply: FastifyReply, asset: Asset, named = false) {
    return reply
      .header('content-type', asset.type)
      .header('cache-control', named ? 'public, max-age=31536000, immutable' : 'public, max-age=86400')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
      .send(asset.body);
  }

  /**
   * A file of a published space. User files share the site's origin, whose pages trust `script-src 'self'`: a file a
   * browser would run script in (files.ts runsScript) never goes out as itself. It is an attachment (opened, it is
   * downloaded, never shown as a document of the site), and, but for SVG (which `<img>` needs as image/svg+xml and
   * which no browser runs as a script), `application/octet-stream`: with nosniff, browsers refuse to run as a script
   * anything not typed as JavaScript. Every file also goes in a sandbox of its own (CSP), in case it is shown anyway.
   * (Narrowing the pages' `script-src` to the path of Quire's own script instead would need the site's origin in the
   * policy, which proxies and custom hosts change, and would leave HTML files to be opened as documents.)
   */
  async function file(reply: FastifyReply, tree: PublishedTree, segments: string[]) {
    const [spaceId, oid, name = ''] = segments;
    if (!spaceId || !oid || !/^[0-9a-f]{40}$/.test(oid)) throw new NotFound('file: no such file');
    // Only a file of what the site publishes (main as it is now, or the change request's head in its preview): not a
    // blob of another change request or of old history.
    const published = (await publishedSpaces(ctx, tree)).find((space) => space.siteSpace.space_id === spaceId);
    if (!published?.content.files.some((f) => f.blobOid === oid)) throw new NotFound('file: no such file');
    const object = await ctx.reader.readObject(spaceId, oid);
    if (!object || object.type !== 'blob') throw new NotFound('file: no such file');
    const open = tree.site.visibility === 'public' || tree.site.visibility === 'unlisted';
    const type = contentTypeOf(name);
    const active = runsScript(type);
    if (active) reply.header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(name)}`);
    return reply
      .header('content-type', active && type !== 'image/svg+xml' ? DEFAULT_CONTENT_TYPE : type)
      .header('x-content-type-options', 'nosniff')
      // A file is named by its content (blob id): it never changes.
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
      .header('cache-control', open ? 'public, max-age=31536000, immutable' : 'private, max-age=3600')
      .send(object.data);
  }

  /** The search box's results: the site's spaces, best pages first, each with its matching sections. */
  async function search(request: FastifyRequest, reply: FastifyReply, tree: PublishedTree, siteBase: string) {
    const { q, section } = request.query as { q?: string; section?: string };
    const query = String(q ?? '').trim();
    const results = await siteSearch(ctx, tree, siteBase, query);
    // The same results as JSON for the live search of the page's search box.
    if (request.headers.accept?.includes('application/json')) return reply.header('cache-control', cacheControl(tree)).send({ query, results });
    const frame = siteFrame(tree, siteBase, { currentSection: null, liveSearch: ASSETS.search.path });
    // Section filters on a site of several sections (their titles as the tabs show them); an unknown one shows all.
    const filters = searchFilters(tree, frame);
    const filtered = section && tree.sections.some((s) => s.id === section) ? section : undefined;
    const html = renderSearch(frame, {
      query,
      results: filtered ? results.filter((result) => result.sectionId === filtered) : results,
      filters,
      ...(filtered ? { section: filtered } : {}),
    });
    return reply.headers(SECURITY_HEADERS).header('content-type', 'text/html; charset=utf-8').header('cache-control', cacheControl(tree)).send(html);
  }

  /**
   * sitemap.xml, robots.txt, llms.txt and llms-full.txt of the site (absolute URLs: crawlers and agents read them);
   * `part`: `llms-full.txt/N`, the Nth LLMS_FULL_PART pages. llms-full.txt goes out page by page as it is written.
   */
  async function machineFile(reply: FastifyReply, tree: PublishedTree, siteBase: string, name: string, part?: number) {
    const indexable = tree.site.visibility === 'public';
    const spaces = await publishedSpaces(ctx, tree);
    const pages = (await sitePages(ctx, tree, siteBase)).map((entry) => ({ ...entry, url: urls.base(entry.path) }));
    const text = (body: string, type: string) => reply.header('content-type', `${type}; charset=utf-8`).header('cache-control', cacheControl(tree)).send(body);
    if (name === 'robots.txt') {
      if (!indexable) return text('User-agent: *\nDisallow: /\n', 'text/plain');
      const hidden = pages.filter(({ page }) => page.noRobotsIndex).map(({ url }) => `Disallow: ${new URL(url).pathname}`);
      return text(['User-agent: *', 'Allow: /', ...hidden, `Sitemap: ${urls.base(`${siteBase}/sitemap.xml`)}`, ''].join('\n'), 'text/plain');
    }
    if (name === 'sitemap.xml') {
      if (!indexable) throw new NotFound('sitemap: the site is not indexed');
      const entries = pages
        .filter(({ page }) => !page.hidden && !page.noIndex && !page.noRobotsIndex)
        .map(({ page, url }) => `<url><loc>${xml(url)}</loc><lastmod>${xml(page.updatedAt)}</lastmod></url>`);
      return text(`<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries.join('')}</urlset>\n`, 'application/xml');
    }
    const listed = pages.filter(({ page }) => !page.hidden);
    if (name === 'llms.txt') {
      const lines = [`# ${tree.site.title}`, ''];
      for (const space of spaces) {
        const own = listed.filter((entry) => entry.space.siteSpace.id === space.siteSpace.id);
        if (own.length === 0) continue;
        const title = [space.section?.title, tree.spaces.get(space.siteSpace.space_id)?.space.title].filter((t, i, all) => t && all.indexOf(t) === i).join(' / ');
        lines.push(`## ${title}`, '', ...own.map(({ page, url }) => `- [${page.title}](${url}.md)${page.description ? `: ${page.description}` : ''}`), '');
      }
      return text(lines.join('\n'), 'text/plain');
    }
    const shown = part === undefined ? listed : listed.slice((part - 1) * LLMS_FULL_PART, part * LLMS_FULL_PART);
    if (part !== undefined && shown.length === 0) throw new NotFound('llms-full.txt: no such part');
    const claims = tree.claims;
    const chunks = (function* () {
      for (const [i, { page, url }] of shown.entries()) yield `${i > 0 ? '\n---\n\n' : ''}${pageMarkdown(page, claims).trimEnd()}\n\nSource: ${url}\n`;
    })();
    return reply.header('content-type', 'text/plain; charset=utf-8').header('cache-control', cacheControl(tree)).send(Readable.from(chunks));
  }

  /**
   * The whole page, kept with the revision under what else it shows: the site's title, visibility, sections and
   * variants (a change of the site's structure makes a new key; a change of the content is a new revision), the
   * versions of the OpenAPI specs it shows (a spec changes without a new revision), and the reader's variant of its
   * `{% if %}` blocks (variants.ts). What readers with claims see (their sections, their variant) is kept for at most
   * KEPT_VARIANTS keys per page; beyond, it is rendered for them and not kept (the text, not kept bytes).
   */
  async function cachedPage(published: PublishedPage, siteBase: string, specs: PageSpecs | undefined, variant: PageVariant | undefined): Promise<{ key: string; html: Buffer | string }> {
    const { tree } = published;
    const shape = JSON.stringify([
      tree.preview ?? null,
      tree.site.title,
      tree.site.visibility,
      tree.defaultSection,
      tree.sections.map((s) => [s.id, s.title, s.path]),
      tree.siteSpaces.map((s) => [s.id, s.path, s.section_id, tree.defaultSiteSpaces.has(s.id), tree.spaces.get(s.space_id)?.space.title]),
      specs?.key ?? null,
    ]);
    const page = `published-page:${siteBase}:${published.prefix.join('/')}:${published.page.id}`;
    const key = `${page}:${createHash('sha256').update(shape).digest('base64url')}${variant ? `:${variant.key}` : ''}`;
    // The page's content is rendered (on the CPU pool for a variant or a big page) only when the whole page is not kept already.
    const render = async () => {
      // A page read cold: the space's other pages are rendered ahead of their readers.
      if (!variant) void prerenderSiblings(ctx, published, siteBase, ctx.cpu.size);
      const content = await renderContent(ctx, published, siteBase, specs, variant ? { variant } : {});
      // Readers' feedback is about the published pages: a preview asks for none.
      return renderPage(published, siteBase, { liveSearch: ASSETS.search.path, content, feedback: !tree.preview, ...(specs ? { specs } : {}) });
    };
    if (tree.claims && !mayKeepVariant(published.content, page, key)) return { key, html: await render() };
    return { key, html: await cachedBytes(published.content, key, render) };
  }

  // Quire's scripts and icon for published pages (site-assets.ts), and the server's own favicon.
  app.get(`${ASSETS_PREFIX}:asset`, { schema: { hide: true, params: Type.Object({ asset: Type.String({ maxLength: 100 }) }) } }, async (request, reply) => {
    const asset = assetAt(`${ASSETS_PREFIX}${request.params.asset}`);
    if (!asset) return notFound(reply);
    return sendAsset(reply, asset, true);
  });
  app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) => sendAsset(reply, ASSETS.icon));

  /**
   * The site's MCP server (mcp.ts), over the protocol's Streamable HTTP transport without sessions: each POST is one
   * exchange, answered as JSON. The reader is found as for pages, and a bearer that is no API token is taken as the
   * site's visitor token (agents send credentials as a bearer). A site the reader may not read, or one that does not
   * serve agents (servesAgents), is a 404 with a JSON-RPC error as its body (as the SDK's transport answers what it
   * refuses before any exchange: code -32000, no id).
   */
  async function mcp(request: FastifyRequest<{ Params: { organizationId: string; siteName: string } }>, reply: FastifyReply) {
    const { organizationId, siteName } = request.params;
    const siteBase = `/sites/${encodeURIComponent(organizationId)}/${encodeURIComponent(siteName)}`;
    const visitor = await visitorOf(request, reply, siteBase);
    const bearer = bearerToken(request.headers.authorization);
    let tree: PublishedTree;
    try {
      tree = await readPublishedSite(ctx, !visitor.userId && bearer ? { ...visitor, visitorToken: bearer } : visitor, organizationId, siteName);
      if (!servesAgents(tree.site)) throw new NotFound('site: this site does not serve AI agents (its agentsContext is excluded)');
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'NotFound')) throw error;
      return reply
        .status(404)
        .header('content-type', 'application/json')
        .send({ jsonrpc: '2.0', error: { code: -32000, message: `Not found: ${error.message}` }, id: null });
    }
    // The server's module, with the SDK, is loaded at the first exchange (src/http/mcp.ts says why).
    const { siteMcpServer } = await import('./mcp.js');
    await answerMcpExchange(request, reply, siteMcpServer(ctx, tree, siteBase, (path) => urls.base(path)));
  }

  const schema = { hide: true, params, querystring };
  const mcpSchema = { hide: true, params: Type.Object({ organizationId: params.properties.organizationId, siteName: params.properties.siteName }), querystring };
  app.post(`/sites/:organizationId/:siteName/${MCP_PATH}`, { schema: mcpSchema }, mcp as never);
  app.route({ method: [...SESSION_METHODS], url: `/sites/:organizationId/:siteName/${MCP_PATH}`, schema: mcpSchema, handler: async (_request, reply) => reply.status(405).header('allow', 'POST').send() });
  app.get('/sites/:organizationId/:siteName', { schema }, page as never);
  app.get('/sites/:organizationId/:siteName/*', { schema }, page as never);
  const previewParams = Type.Object({ ...params.properties, changeRequestId: Type.String({ maxLength: 100 }) });
  const previewSchema = { hide: true, params: previewParams, querystring };
  app.get(`${CHANGE_REQUEST_PREVIEWS}/:organizationId/:siteName/:changeRequestId`, { schema: previewSchema }, changeRequestPage as never);
  app.get(`${CHANGE_REQUEST_PREVIEWS}/:organizationId/:siteName/:changeRequestId/*`, { schema: previewSchema }, changeRequestPage as never);
  // Readers' "Was this page helpful?" answers (feedback.ts), from whoever reads the site as its pages find them.
  await app.register(pageFeedbackRoutes, { ctx, urls, visitorOf });
  await app.register(visitorSignInRoutes, { ctx, urls });
};


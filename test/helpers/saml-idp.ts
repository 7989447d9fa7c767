/**
 * A SAML identity provider for tests: samlify's IdentityProvider behind an HTTP server on 127.0.0.1. It reads the
 * AuthnRequests Quire sends (HTTP-Redirect binding) and builds signed responses (HTTP-POST binding): for API tests
 * `response` gives the SAMLResponse to post with fetch; for the browser, its SSO endpoint answers with a form that
 * posts the response to Quire's ACS by itself, as a real provider's page does once its user signed in.
 *
 * Each response is built from samlify's own login-response template with the values a test gives (audience,
 * validity, InResponseTo, NameID, attributes), then signed by samlify with the provider's key (the assertion, as
 * Quire's metadata asks; or only the response, or nothing, when a test says so).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as samlify from 'samlify';
import { SIGNING_IDP } from './saml.js';

// samlify checks messages it parses against the SAML XSDs only through a validator it is given (it ships none).
// The test provider parses only Quire's AuthnRequests, which node-saml builds; accepting them unchecked here tests
// nothing less of Quire, whose ACS is the part under test.
samlify.setSchemaValidator({ validate: async () => 'skipped in the test identity provider' });

const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const PERSISTENT_FORMAT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';

export interface KeyPair {
  privateKey: string;
  certificate: string;
}

export interface ResponseOptions {
  /** The NameID in emailAddress format (unless `nameId` is given). */
  email?: string;
  /** A NameID of another format (persistent), the e-mail then only in `attributes`. */
  nameId?: string;
  attributes?: Record<string, string>;
  /** The AuthnRequest answered (its id); absent: an unsolicited (IdP-initiated) response. */
  inResponseTo?: string;
  audience?: string;
  recipient?: string;
  /** Another Issuer than the provider's entity id. */
  issuer?: string;
  notBefore?: Date;
  notOnOrAfter?: Date;
  /** Whose key signs (default the provider's own). */
  signer?: KeyPair;
  /** 'assertion' (default, as Quire's metadata asks), 'response' (only the message), or 'none'. */
  signed?: 'assertion' | 'response' | 'none';
}

export interface AuthnRequestSeen {
  id: string;
  issuer: string;
  acsURL: string;
  relayState: string;
}

export interface TestSamlIdp {
  entityID: string;
  ssoURL: string;
  certificate: string;
  /** Reads an AuthnRequest from the URL Quire sent the browser to (HTTP-Redirect binding). */
  readRequest(url: string, spMetadata: string): Promise<AuthnRequestSeen>;
  /** A SAMLResponse (base64) for the service provider of `spMetadata` (Quire's metadata of one provider). */
  response(spMetadata: string, options: ResponseOptions): Promise<string>;
  /** Who the SSO endpoint signs in (the browser's next visit), and the service provider it answers. */
  signInAs(email: string, spMetadata: string): void;
  close(): Promise<void>;
}

function escapeXml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function attributeStatement(attributes: Record<string, string>): string {
  const entries = Object.entries(attributes);
  if (entries.length === 0) return '';
  const items = entries
    .map(
      ([name, value]) =>
        `<saml:Attribute Name="${escapeXml(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic"><saml:AttributeValue xsi:type="xs:string">${escapeXml(value)}</saml:AttributeValue></saml:Attribute>`,
    )
    .join('');
  return `<saml:AttributeStatement>${items}</saml:AttributeStatement>`;
}

/** A service provider as samlify sees it: Quire's metadata, with WantAssertionsSigned as the test needs. */
function serviceProvider(spMetadata: string, wantAssertionsSigned = true) {
  const metadata = wantAssertionsSigned ? spMetadata : spMetadata.replace('WantAssertionsSigned="true"', 'WantAssertionsSigned="false"');
  return samlify.ServiceProvider({ metadata });
}

export async function startSamlIdp(options: { host?: string } = {}): Promise<TestSamlIdp> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  const entityID = `${base}/metadata`;
  const ssoURL = `${base}/sso`;

  function identityProvider(keys: KeyPair) {
    return samlify.IdentityProvider({
      entityID,
      privateKey: keys.privateKey,
      signingCert: keys.certificate,
      nameIDFormat: [EMAIL_FORMAT],
      singleSignOnService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: ssoURL }],
      // Never used (Quire does no single logout); samlify warns without one.
      singleLogoutService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: `${base}/slo` }],
      wantAuthnRequestsSigned: false,
    });
  }
  const own = identityProvider(SIGNING_IDP);

  async function readRequest(url: string, spMetadata: string): Promise<AuthnRequestSeen> {
    const query = Object.fromEntries(new URL(url).searchParams);
    const { extract } = await own.parseLoginRequest(serviceProvider(spMetadata), 'redirect', { query, octetString: '' } as never);
    const request = extract.request as { id: string; assertionConsumerServiceUrl: string };
    return { id: request.id, issuer: String(extract.issuer), acsURL: request.assertionConsumerServiceUrl, relayState: query.RelayState ?? '' };
  }

  async function response(spMetadata: string, o: ResponseOptions): Promise<string> {
    const signed = o.signed ?? 'assertion';
    const sp = serviceProvider(spMetadata, signed === 'assertion');
    const now = new Date();
    const notOnOrAfter = (o.notOnOrAfter ?? new Date(now.getTime() + 5 * 60 * 1000)).toISOString();
    const values = {
      ID: `_${crypto.randomUUID()}`,
      AssertionID: `_${crypto.randomUUID()}`,
      Destination: sp.entityMeta.getAssertionConsumerService('post') as string,
      Audience: o.audience ?? sp.entityMeta.getEntityID(),
      SubjectRecipient: o.recipient ?? (sp.entityMeta.getAssertionConsumerService('post') as string),
      Issuer: o.issuer ?? entityID,
      IssueInstant: (o.notBefore ?? now).toISOString(),
      StatusCode: samlify.Constants.StatusCode.Success,
      ConditionsNotBefore: (o.notBefore ?? now).toISOString(),
      ConditionsNotOnOrAfter: notOnOrAfter,
      SubjectConfirmationDataNotOnOrAfter: notOnOrAfter,
      NameIDFormat: o.nameId ? PERSISTENT_FORMAT : EMAIL_FORMAT,
      NameID: o.nameId ?? o.email ?? '',
      // Undefined drops the attribute: an unsolicited response carries no InResponseTo at all.
      InResponseTo: o.inResponseTo,
    };
    // The statements are XML; samlify's tag replacement escapes every value it puts in, so they go in first.
    const authnStatement = `<saml:AuthnStatement AuthnInstant="${now.toISOString()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`;
    const template = samlify.SamlLib.defaultLoginResponseTemplate.context
      .replace('{AuthnStatement}', authnStatement)
      .replace('{AttributeStatement}', attributeStatement(o.attributes ?? {}));
    const xml = samlify.SamlLib.replaceTagsByValue(template, values);
    if (signed === 'none') return Buffer.from(xml).toString('base64');
    const idp = o.signer ? identityProvider(o.signer) : own;
    const made = await idp.createLoginResponse(sp, {} as never, 'post', { email: o.email ?? '' }, { customTagReplacement: () => ({ id: values.ID, context: xml }) });
    return (made as { context: string }).context;
  }

  let next: { email: string; spMetadata: string } | undefined;
  server.on('request', (request, reply) => {
    void (async () => {
      const url = new URL(request.url ?? '/', base);
      if (url.pathname !== '/sso' || !next) {
        reply.writeHead(404).end();
        return;
      }
      const seen = await readRequest(url.href, next.spMetadata);
      const samlResponse = await response(next.spMetadata, { email: next.email, inResponseTo: seen.id });
      const page = [
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test identity provider</title></head><body>',
        `<form method="post" action="${escapeXml(seen.acsURL)}">`,
        `<input type="hidden" name="SAMLResponse" value="${escapeXml(samlResponse)}">`,
        `<input type="hidden" name="RelayState" value="${escapeXml(seen.relayState)}">`,
        '<noscript><button type="submit">Continue</button></noscript></form>',
        '<script>document.forms[0].submit()</script></body></html>',
      ].join('');
      reply.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    })().catch((error: unknown) => {
      reply.writeHead(500, { 'content-type': 'text/plain' }).end(String((error as Error).stack));
    });
  });

  return {
    entityID,
    ssoURL,
    certificate: SIGNING_IDP.certificate,
    readRequest,
    response,
    signInAs: (email, spMetadata) => {
      next = { email, spMetadata };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

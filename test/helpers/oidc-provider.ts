/**
 * A real OpenID Connect provider for tests: panva's certified oidc-provider on a free port of 127.0.0.1, with one
 * confidential client (PKCE required) and accounts whose claims the test gives, signed in through its development
 * interactions (a login form taking any account id, then a consent form), which `authorize` fills in by plain HTTP.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface AccountClaims {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Accounts by id (the login the form is given), changeable by the test. */
  accounts: Map<string, AccountClaims>;
  /** Registers the redirect URI of the client (known once Quire's test app exists). */
  setRedirectUri(uri: string): void;
  /**
   * Follows `authorizationUrl` as a browser would, signing in as `accountId` and consenting: the URL the provider
   * sends the browser back to (Quire's callback, with the code and the state).
   */
  authorize(authorizationUrl: string, accountId: string): Promise<URL>;
  close(): Promise<void>;
}

/** A browser's cookies, by name (oidc-provider's cookies have distinct names; paths are not needed here). */
class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, ...value] = pair.trim().split('=');
      const expired = attributes.some((a) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(a));
      if (expired || value.join('=') === '') this.cookies.delete(name);
      else this.cookies.set(name, value.join('='));
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

export async function startOidcProvider(): Promise<TestOidcProvider> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'quire-test';
  const clientSecret = 'a-client-secret-that-must-never-be-logged-0123456789';
  const accounts = new Map<string, AccountClaims>();
  const redirectUris: string[] = [];
  let provider: Provider | undefined;

  const makeProvider = () =>
    new Provider(issuer, {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: redirectUris,
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
      pkce: { required: () => true },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      cookies: { keys: ['a-test-cookie-key'] },
      features: { devInteractions: { enabled: true } },
      findAccount: (_ctx: unknown, id: string) => {
        const claims = accounts.get(id);
        return claims ? { accountId: id, claims: () => ({ sub: id, ...claims }) } : undefined;
      },
    });

  server.on('request', (request, response) => {
    provider ??= makeProvider();
    provider.callback()(request, response);
  });

  async function authorize(authorizationUrl: string, accountId: string): Promise<URL> {
    const jar = new CookieJar();
    let url = authorizationUrl;
    let body: URLSearchParams | undefined;
    for (let step = 0; step < 20; step++) {
      const response = await fetch(url, {
        method: body ? 'POST' : 'GET',
        redirect: 'manual',
        headers: { cookie: jar.header(), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        body,
      });
      jar.take(response);
      body = undefined;
      const location = response.headers.get('location');
      if (location) {
        const next = new URL(location, url);
        if (next.origin !== issuer) return next;
        url = next.href;
        continue;
      }
      const html = await response.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1];
      if (response.status !== 200 || !action || !prompt) throw new Error(`the provider answered ${response.status}: ${html.slice(0, 500)}`);
      url = new URL(action.replace(/&amp;/g, '&'), url).href;
      body = new URLSearchParams(prompt === 'login' ? { prompt, login: accountId, password: 'any' } : { prompt });
    }
    throw new Error('the provider never sent the browser back');
  }

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    setRedirectUri(uri: string) {
      redirectUris.splice(0, redirectUris.length, uri);
      provider = undefined;
    },
    authorize,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

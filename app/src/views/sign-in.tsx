import { useState } from 'preact/hooks';
import { appPaths } from '../../../src/http/app-paths.js';
import { ErrorNotice } from '../components/status.js';
import { useLocation } from 'preact-iso';
import { api, appHref, ApiError, BASE, setCsrfToken } from '../api.js';
import { useSession } from '../session.js';
import type { SessionInfo } from '../types.js';
import { Layout } from '../components/layout.js';
import { useApi, type Loaded } from '../use-api.js';

/**
 * Where to go after signing in: a path of this app, or of a published site of this server (a private site sent the
 * reader here); never another origin.
 */
export function safeNext(next: string | undefined): string {
  if (!next || next.startsWith('//') || next.includes('\\')) return appHref('/');
  return next.startsWith(appHref('/')) || next.startsWith(`${BASE}/sites/`) ? next : appHref('/');
}

/** Goes to `next`: inside the app by its router, to a published site by a full navigation. */
function goTo(next: string, route: (url: string, replace?: boolean) => void): void {
  if (next.startsWith(appHref('/'))) route(next, true);
  else location.assign(next);
}

interface Provider {
  id: string;
  kind: 'oidc' | 'saml';
  label: string;
  startUrl: string;
}

/** How this server signs people in besides passwords, and whether it mails password links. */
interface SignInOptions {
  items: Provider[];
  passwordResetByEmail: boolean;
}

/** Why an identity provider's sign-in came back without a session (the reasons /sso/oidc/callback and the SAML ACS give). */
const PROVIDER_ERRORS: Record<string, string> = {
  unknown_provider: 'That sign-in provider is not configured.',
  provider_unavailable: 'The sign-in provider did not answer. Try again later.',
  invalid_state: 'The sign-in took too long or was started elsewhere. Try again.',
  provider_refused: 'The sign-in provider refused the sign-in.',
  email_missing: 'The sign-in provider gave no e-mail address.',
  email_unverified: 'The sign-in provider has not verified your e-mail address.',
  not_allowed: 'This account may not sign in to that organization. Ask an administrator for an invite.',
};

/** The identity providers this server signs in with, as links that come back to `next`. */
function Providers({ providers, next }: { providers: Loaded<SignInOptions>; next: string }) {
  if (providers.state !== 'done' || providers.value.items.length === 0) return null;
  const back = next.startsWith(BASE) ? next.slice(BASE.length) : next;
  return (
    <div class="providers">
      <p class="aside-note">Or sign in with:</p>
      {providers.value.items.map((provider) => {
        const start = new URL(provider.startUrl, location.href);
        start.searchParams.set('next', back);
        return (
          <a key={`${provider.kind}:${provider.id}`} class="button" href={`${start.pathname}${start.search}`}>
            {provider.label}
          </a>
        );
      })}
    </div>
  );
}

export function SignIn() {
  const { query, route } = useLocation();
  const session = useSession();
  const [error, setError] = useState<string | undefined>(query.error ? (PROVIDER_ERRORS[query.error] ?? 'The sign-in did not complete. Try again.') : undefined);
  const [busy, setBusy] = useState(false);
  const [providers] = useApi('providers', (signal) => api<SignInOptions>('/auth/providers', { signal }));

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(undefined);
    try {
      const info = await api<SessionInfo>('/auth/sign-in', { method: 'POST', body: { email: String(form.get('email')), password: String(form.get('password')) } });
      setCsrfToken(info.csrfToken);
      session.signedIn(info);
      goTo(safeNext(query.next), route);
    } catch (failure) {
      setError(failure instanceof ApiError && failure.status === 401 ? 'No account has this e-mail address and password.' : (failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Layout title="Sign in">
      <section class="card narrow" aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Quire</h1>
        <form onSubmit={submit} class="form">
          <label for="email">E-mail</label>
          <input id="email" name="email" type="email" autoComplete="username" required />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autoComplete="current-password" required />
          <ErrorNotice message={error} />
          <button type="submit" class="button button-primary" disabled={busy}>
            {busy ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
        <Providers providers={providers} next={safeNext(query.next)} />
        {providers.state === 'done' && providers.value.passwordResetByEmail ? (
          <p class="aside-note">
            <a href={appHref(appPaths.forgotPassword)}>Forgot your password?</a>
          </p>
        ) : (
          <p class="aside-note">No password yet, or forgot it? An administrator gives you a link: <code>quire admin reset-password YOUR_EMAIL</code>.</p>
        )}
      </section>
    </Layout>
  );
}

/** Asks for a one-time password link by e-mail; the answer does not say whether an account has the address. */
export function ForgotPassword() {
  const [error, setError] = useState<string>();
  const [sentTo, setSentTo] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(undefined);
    try {
      const answer = await api<{ email: string }>('/auth/password-reset', { method: 'POST', body: { email: String(form.get('email')) } });
      setSentTo(answer.email);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Layout title="Forgot your password?">
      <section class="card narrow" aria-labelledby="forgot-title">
        <h1 id="forgot-title">Forgot your password?</h1>
        {sentTo ? (
          <p class="notice" role="status">
            If an account exists for {sentTo}, we sent it a link to set a new password. The link works once, for 24 hours.
          </p>
        ) : (
          <form onSubmit={submit} class="form">
            <p>Give the e-mail address of your account: we mail it a link that sets a new password.</p>
            <label for="email">E-mail</label>
            <input id="email" name="email" type="email" autoComplete="username" required />
            <ErrorNotice message={error} />
            <button type="submit" class="button button-primary" disabled={busy}>
              {busy ? 'Sending…' : 'Send the link'}
            </button>
          </form>
        )}
        <p class="aside-note">
          <a href={appHref(appPaths.signIn)}>Back to sign in</a>
        </p>
      </section>
    </Layout>
  );
}

export function SetPassword() {
  const { route } = useLocation();
  const session = useSession();
  const [error, setError] = useState<string>();
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const password = String(form.get('password'));
    if (password !== String(form.get('confirm'))) {
      setError('The two passwords differ.');
      return;
    }
    try {
      const info = await api<SessionInfo>('/auth/password', { method: 'POST', body: { token, password } });
      setCsrfToken(info.csrfToken);
      session.signedIn(info);
      history.replaceState(null, '', location.pathname);
      route(appHref('/'), true);
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  return (
    <Layout title="Set your password">
      <section class="card narrow" aria-labelledby="password-title">
        <h1 id="password-title">Set your password</h1>
        {!token ? (
          <p class="notice notice-error" role="alert">
            This link has no token. Ask an administrator for a new one.
          </p>
        ) : (
          <form onSubmit={submit} class="form">
            <label for="new-password">New password (at least 10 characters)</label>
            <input id="new-password" name="password" type="password" autoComplete="new-password" minLength={10} maxLength={256} required />
            <label for="confirm-password">The same again</label>
            <input id="confirm-password" name="confirm" type="password" autoComplete="new-password" minLength={10} maxLength={256} required />
            <ErrorNotice message={error} />
            <button type="submit" class="button button-primary">
              Set password and sign in
            </button>
          </form>
        )}
      </section>
    </Layout>
  );
}

import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, appHref } from '../api.js';
import { useApi } from '../use-api.js';
import { useSession } from '../session.js';
import { Layout } from '../components/layout.js';
import { Show, ErrorNotice } from '../components/status.js';
import { Time } from '../components/time.js';
import { browserLabel } from '../user-agent.js';

interface Session {
  id: string;
  method: string;
  userAgent?: string;
  createdAt: string;
  lastSeenAt: string;
  current: boolean;
}

interface Token {
  id: string;
  label?: string;
  createdAt: string;
}

/** Sessions listed before "Show all": a phone shows them without scrolling past the rest of the account. */
const SESSIONS_SHOWN = 3;

/** This browser's session first, then the others by when they were last seen, newest first. */
function bySeen(a: Session, b: Session): number {
  if (a.current !== b.current) return a.current ? -1 : 1;
  return b.lastSeenAt.localeCompare(a.lastSeenAt);
}

function Sessions() {
  const session = useSession();
  const { route } = useLocation();
  const [sessions, reload] = useApi('sessions', (signal) => api<{ items: Session[] }>('/user/sessions', { signal }));
  const [all, setAll] = useState(false);
  const everywhere = async () => {
    await api('/user/sessions', { method: 'DELETE' });
    session.signedOut();
    route(appHref('/sign-in'));
  };
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Where you are signed in</h2>
      <Show loaded={sessions} what="your sessions">
        {(value) => {
          const sorted = [...value.items].sort(bySeen);
          const shown = all ? sorted : sorted.slice(0, SESSIONS_SHOWN);
          return (
            <>
              <ul class="rows sessions">
                {shown.map((s) => (
                  <li key={s.id}>
                    <span>
                      <span title={s.userAgent}>{browserLabel(s.userAgent)}</span>
                      {s.current && <strong> (this browser)</strong>}
                      <br />
                      <small>
                        signed in <Time at={s.createdAt} /> by {s.method} · last seen <Time at={s.lastSeenAt} />
                      </small>
                    </span>
                    {!s.current && (
                      <button type="button" class="button" onClick={() => api(`/user/sessions/${s.id}`, { method: 'DELETE' }).then(reload)}>
                        End this session
                      </button>
                    )}
                  </li>
                ))}
              </ul>
              {sorted.length > shown.length && (
                <button type="button" class="button" onClick={() => setAll(true)}>
                  Show all {sorted.length} sessions
                </button>
              )}
            </>
          );
        }}
      </Show>
      <button type="button" class="button" onClick={everywhere}>
        Sign out everywhere
      </button>
    </section>
  );
}

function Tokens() {
  const [tokens, reload] = useApi('tokens', (signal) => api<{ items: Token[] }>('/user/tokens', { signal }));
  const [made, setMade] = useState<string>();
  const [error, setError] = useState<string>();
  const create = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    try {
      const token = await api<{ token: string }>('/user/tokens', { method: 'POST', body: { label: String(new FormData(form).get('label')) } });
      setMade(token.token);
      setError(undefined);
      form.reset();
      reload();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return (
    <section aria-labelledby="tokens-title">
      <h2 id="tokens-title">API tokens</h2>
      <p>Tokens act as you in the API and in git (as the password). Keep them secret.</p>
      {made && (
        <div class="notice" role="status">
          <p>Your new token (shown this once):</p>
          <code class="token">{made}</code>
        </div>
      )}
      <Show loaded={tokens} what="your tokens">
        {(value) => (
          <ul class="rows">
            {value.items.map((token) => (
              <li key={token.id}>
                <span>
                  {token.label ?? 'Unnamed token'} · made <Time at={token.createdAt} />
                </span>
                <button type="button" class="button" onClick={() => api(`/user/tokens/${token.id}`, { method: 'DELETE' }).then(reload)}>
                  Revoke <span class="visually-hidden">{token.label ?? 'unnamed token'}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </Show>
      <form class="form form-inline" onSubmit={create}>
        <label for="token-label">What is it for?</label>
        <input id="token-label" name="label" required maxLength={100} />
        <button type="submit" class="button">
          Make a token
        </button>
      </form>
      <ErrorNotice message={error} />
    </section>
  );
}

export function SettingsView() {
  const session = useSession();
  return (
    <Layout title="Your account" crumbs={[{ label: 'Your account' }]}>
      <h1>Your account</h1>
      <p>
        {session.current?.user.displayName} · {session.current?.user.email}
      </p>
      <Sessions />
      <Tokens />
    </Layout>
  );
}

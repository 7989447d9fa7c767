/**
 * The Quire app: a client of the /v1 API for members in the browser (sign in, find and read content, review change
 * requests) and for admins (members, teams, invite links, single sign-on, space settings). Preact and its router
 * preact-iso: a few kilobytes for a component model and history-based routing with working back/forward and deep
 * links (see README, "The app").
 */
import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { LocationProvider, Router, Route, useLocation } from 'preact-iso';
import { CONTENT_CSS } from '../../src/http/routes/published/site-css.js';
import { appPaths } from '../../src/http/app-paths.js';
import { api, appHref, BASE, setCsrfToken, whenSignedOut } from './api.js';
import { SessionContext, useSession, type SessionState } from './session.js';
import { applyTheme, storedTheme } from './theme.js';
import type { SessionInfo } from './types.js';
import { ForgotPassword, SignIn, SetPassword } from './views/sign-in.js';
import { Home } from './views/home.js';
import { OrganizationView } from './views/organization.js';
import { SpaceView } from './views/space.js';
import { ChangeRequestsView } from './views/change-requests.js';
import { ChangeRequestView } from './views/change-request.js';
import { SettingsView } from './views/settings.js';
import { HistoryView, RevisionView } from './views/history.js';
import { InviteView } from './views/invite.js';
import { CollectionView } from './views/collection.js';
import { SiteView } from './views/site.js';
import { OpenApiSpecView } from './views/openapi-spec.js';
import { MembersSettings } from './views/org-settings/members.js';
import { TeamSettings, TeamsSettings } from './views/org-settings/teams.js';
import { InvitesSettings } from './views/org-settings/invites.js';
import { SignInSettings } from './views/org-settings/sign-in.js';
import { SpaceSettingsView } from './views/space-settings.js';
import { NotFound } from './views/not-found.js';
import { Loading } from './components/status.js';
import './styles.css';

// Content is styled as on published sites: the same palette and block rules.
const style = document.createElement('style');
style.textContent = CONTENT_CSS;
document.head.prepend(style);
applyTheme(storedTheme());

const PUBLIC = new Set([appHref(appPaths.signIn), appHref(appPaths.setPassword), appHref(appPaths.forgotPassword)]);

/** Sends a signed-out reader to sign in, and back here afterwards. */
function Guard({ children }: { children: preact.ComponentChildren }) {
  const { path, url, route } = useLocation();
  const { current } = useSession();
  const open = PUBLIC.has(path);
  useEffect(() => {
    if (current === null && !open) route(`${appHref(appPaths.signIn)}?next=${encodeURIComponent(url)}`, true);
  }, [current, open, url]);
  if (current === undefined) return <Loading what="Quire" />;
  if (current === null && !open) return null;
  return <>{children}</>;
}

function App() {
  const [current, setCurrent] = useState<SessionInfo | null | undefined>(undefined);
  const sessionState = useMemo<SessionState>(
    () => ({
      current,
      signedIn: (info: SessionInfo) => setCurrent(info),
      signedOut: () => {
        setCsrfToken(undefined);
        setCurrent(null);
      },
    }),
    [current],
  );
  useEffect(() => {
    whenSignedOut(() => {
      setCsrfToken(undefined);
      setCurrent(null);
    });
    api<SessionInfo>('/user/session').then(
      (info) => {
        setCsrfToken(info.csrfToken);
        setCurrent(info);
      },
      () => setCurrent(null),
    );
  }, []);
  const at = (path: string) => `${BASE}/app${path}`;
  return (
    <SessionContext.Provider value={sessionState}>
      <LocationProvider scope={`${BASE}/app`}>
        <Guard>
          <Router>
            <Route path={at(appPaths.signIn)} component={SignIn} />
            <Route path={at(appPaths.setPassword)} component={SetPassword} />
            <Route path={at(appPaths.forgotPassword)} component={ForgotPassword} />
            <Route path={at('/')} component={Home} />
            <Route path={at('/settings')} component={SettingsView} />
            <Route path={at('/o/:organizationId')} component={OrganizationView} />
            <Route path={at('/o/:organizationId/sites/:siteId')} component={SiteView} />
            <Route path={at('/o/:organizationId/openapi/:slug')} component={OpenApiSpecView} />
            <Route path={at('/c/:collectionId')} component={CollectionView} />
            <Route path={at('/o/:organizationId/settings')} component={MembersSettings} />
            <Route path={at('/o/:organizationId/settings/members')} component={MembersSettings} />
            <Route path={at('/o/:organizationId/settings/teams')} component={TeamsSettings} />
            <Route path={at('/o/:organizationId/settings/teams/:teamId')} component={TeamSettings} />
            <Route path={at('/o/:organizationId/settings/invites')} component={InvitesSettings} />
            <Route path={at('/o/:organizationId/settings/sign-in')} component={SignInSettings} />
            <Route path={at('/invite/:organizationId/:inviteId')} component={InviteView} />
            <Route path={at('/s/:spaceId/~/changes')} component={ChangeRequestsView} />
            <Route path={at('/s/:spaceId/~/settings')} component={SpaceSettingsView} />
            <Route path={at('/s/:spaceId/~/revisions')} component={HistoryView} />
            <Route path={at('/s/:spaceId/~/revisions/:oid/:pagePath*')} component={RevisionView} />
            <Route path={at('/s/:spaceId/~/changes/:number/:pagePath*')} component={ChangeRequestView} />
            <Route path={at('/s/:spaceId/:pagePath*')} component={SpaceView} />
            <Route default component={NotFound} />
          </Router>
        </Guard>
      </LocationProvider>
    </SessionContext.Provider>
  );
}

render(<App />, document.getElementById('app')!);

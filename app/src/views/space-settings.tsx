import { api } from '../api.js';
import { formFields, useAction } from '../use-action.js';
import { Layout } from '../components/layout.js';
import { ChoiceSelect } from '../components/choice-select.js';
import { ErrorNotice, Failure, Loading } from '../components/status.js';
import { RoleSelect, roleOf } from '../components/role-select.js';
import { Time } from '../components/time.js';
import type { GitSync, Space } from '../types.js';
import { SpaceTabs, spaceCrumbs, useSpaceAndReload } from './space.js';

/** The visibilities of a space, as the reader chooses among them. */
const VISIBILITIES: Array<[string, string]> = [
  ['private', 'Private: members given access'],
  ['in-collection', 'As its collection: who may read the collection'],
  ['share-link', 'Share link: whoever has a share link'],
  ['visitor-auth', 'Signed-in visitors: readers the site authenticates'],
  ['unlisted', 'Unlisted: anyone with the URL'],
  ['public', 'Public: anyone'],
];

function TitleForm({ space, changed }: { space: Space; changed: () => void }) {
  const action = useAction();
  const save = (event: Event) => {
    const { title } = formFields(event);
    return action.run(() => api(`/spaces/${space.id}`, { method: 'PATCH', body: { title } }).then(changed));
  };
  return (
    <form class="form form-inline" onSubmit={save}>
      <label for="space-title">Title</label>
      <input id="space-title" name="title" required maxLength={50} defaultValue={space.title} />
      <button type="submit" class="button" disabled={action.busy}>
        Rename
      </button>
      <ErrorNotice message={action.error} />
    </form>
  );
}

function AccessForm({ space, changed }: { space: Space; changed: () => void }) {
  const action = useAction();
  const save = (event: Event) => {
    const { visibility, defaultLevel } = formFields(event);
    return action.run(() => api(`/spaces/${space.id}`, { method: 'PATCH', body: { visibility, defaultLevel: roleOf(defaultLevel) } }).then(changed));
  };
  return (
    <section aria-labelledby="access-title">
      <h2 id="access-title">Who may read it</h2>
      <form class="form" onSubmit={save}>
        <label for="space-visibility">Visibility</label>
        <ChoiceSelect id="space-visibility" name="visibility" choices={VISIBILITIES} value={space.visibility} />
        <label for="space-level">Role every member of the organization has here</label>
        <RoleSelect id="space-level" name="defaultLevel" value={space.defaultLevel} guest="None: only members given access" />
        <button type="submit" class="button" disabled={action.busy}>
          Save access
        </button>
      </form>
      <ErrorNotice message={action.error} />
    </section>
  );
}

const SYNC_STATUS: Record<GitSync['status'], string> = {
  syncing: 'Syncing now',
  synced: 'In sync',
  conflict: 'Conflict: the repository and the space both changed',
  error: 'Failed',
  paused: 'Paused',
};

/** The space's Git Sync, read-only (the repository's credentials are never in the API's answer); editors sync now. */
function GitSyncStatus({ space, changed }: { space: Space; changed: () => void }) {
  const action = useAction();
  const sync = space.gitSync;
  if (!sync) return null;
  return (
    <section aria-labelledby="git-sync-title">
      <h2 id="git-sync-title">Git Sync</h2>
      <dl class="given">
        <div>
          <dt>Repository</dt>
          <dd>
            <a href={sync.url}>{sync.repoName}</a>
            {sync.installationProvider && <span class="muted"> on {sync.installationProvider}</span>}
          </dd>
        </div>
        <div>
          <dt>Branch</dt>
          <dd>
            <code>{sync.ref.replace(/^refs\/heads\//, '')}</code>
            {sync.projectDirectory && <span class="muted"> in {sync.projectDirectory}</span>}
          </dd>
        </div>
        <div>
          <dt>Last sync</dt>
          <dd>{sync.lastSyncedAt ? <Time at={sync.lastSyncedAt} /> : 'Never'}</dd>
        </div>
        <div>
          <dt>Outcome</dt>
          <dd class={`sync-${sync.status}`}>{SYNC_STATUS[sync.status]}</dd>
        </div>
      </dl>
      {sync.error && <p class="notice notice-error">{sync.error}</p>}
      {sync.notice && <p class="notice">{sync.notice}</p>}
      {space.permissions.triggerGitSync && (
        <button type="button" class="button" disabled={action.busy} onClick={() => action.run(() => api(`/spaces/${space.id}/git/sync/run`, { method: 'POST' }).then(changed))}>
          {action.busy ? 'Syncing…' : 'Sync now'}
        </button>
      )}
      <ErrorNotice message={action.error} />
    </section>
  );
}

/** A space's settings: its title (editors), who may read it (admins), and its Git Sync. */
export function SpaceSettingsView({ spaceId }: { spaceId: string }) {
  const [loaded, reload] = useSpaceAndReload(spaceId);
  const title = loaded.state === 'done' ? loaded.value.space.title : 'Space';
  return (
    <Layout title={`Settings · ${title}`} crumbs={[...spaceCrumbs(loaded, spaceId), { label: 'Settings' }]}>
      <SpaceTabs spaceId={spaceId} current="settings" space={loaded.state === 'done' ? loaded.value.space : undefined} />
      <h1>Settings of {title}</h1>
      {loaded.state === 'loading' && <Loading what="the space" />}
      {loaded.state === 'failed' && <Failure error={loaded.error} />}
      {loaded.state === 'done' && (
        <>
          {loaded.value.space.permissions.edit ? <TitleForm space={loaded.value.space} changed={reload} /> : <p>Only its editors change this space's settings.</p>}
          {loaded.value.space.permissions.admin && <AccessForm space={loaded.value.space} changed={reload} />}
          <GitSyncStatus space={loaded.value.space} changed={reload} />
        </>
      )}
    </Layout>
  );
}

/**
 * The settings table (config/settings.ts) is the one list of what Quire reads from the environment: the loader reads
 * those variables and no other (besides npm's markers), takes its defaults from it, and each setting names the
 * commands whose help lists it (test/cli/help.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { SETTINGS, type Setting } from '../../config/settings.js';

/** The variables loadConfig reads from `env`. */
function variablesRead(env: Record<string, string> = {}): Set<string> {
  const read = new Set<string>();
  loadConfig(
    new Proxy(env, {
      get(target, name) {
        if (typeof name === 'string') read.add(name);
        return target[name as string];
      },
    }),
  );
  return read;
}

/** Set by npm when it starts the process (`npm start`), not settings: whether npm sits between. */
const NPM_MARKERS = ['npm_lifecycle_event', 'npm_command'];

describe('the settings table', () => {
  it('lists every variable the loader reads', () => {
    expect([...variablesRead()].sort()).toEqual([...Object.keys(SETTINGS), ...NPM_MARKERS].sort());
  });

  it('gives the defaults the loader applies', () => {
    // What the settings make (not which variables were set, nor the environment children get).
    const settingsOf = (env: Record<string, string>) => ({ ...loadConfig(env), explicit: undefined, childEnv: undefined });
    const defaults = settingsOf({});
    for (const [name, setting] of Object.entries(SETTINGS) as Array<[string, Setting]>) {
      if (setting.default === undefined) continue;
      // Setting a variable to its listed default changes nothing.
      expect(settingsOf({ [name]: String(setting.default) }), name).toEqual(defaults);
    }
  });

  it('says what each setting does and which commands read it', () => {
    for (const [name, setting] of Object.entries(SETTINGS) as Array<[string, Setting]>) {
      expect(setting.description, name).not.toBe('');
      expect(setting.commands.length, name).toBeGreaterThan(0);
    }
  });
});

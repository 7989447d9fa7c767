/**
 * The command line says what it is and what it takes: `quire --version` prints package.json's version, `quire --help`
 * lists the commands, and every command's `--help` (each one src/main.ts dispatches, found through the help itself)
 * ends with the settings it reads: exactly the variables of config/settings.ts whose commands include it, each with
 * its default. A setting added to the table shows in the help of its commands; a command added to the CLI must say
 * which settings it reads.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, settingsOf, shownDefault, type CommandName } from '../../config/settings.js';
import { SETTINGS_HEADING } from '../../src/cli/settings-help.js';
import { root, runQuire } from '../helpers/cli.js';

/** The command names a help lists under `Commands:` (commander's own `help` left out). */
function listedCommands(help: string): string[] {
  const section = help.split('\nCommands:\n')[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((match) => match[1]).filter((name) => name !== 'help');
}

/** The settings a help lists: each variable with the text beside it (its wrapped lines joined). */
function listedSettings(help: string): Array<{ name: string; text: string }> {
  const section = help.split(`\n${SETTINGS_HEADING}\n`)[1];
  if (section === undefined) return [];
  const entries: Array<{ name: string; text: string }> = [];
  for (const line of section.split('\n')) {
    const entry = /^ {2}([A-Z][A-Z0-9_]*) +(.*)$/.exec(line);
    if (entry) entries.push({ name: entry[1], text: entry[2] });
    else if (/^ {4,}\S/.test(line) && entries.length > 0) entries[entries.length - 1].text += ` ${line.trim()}`;
    else break;
  }
  return entries;
}

/** The help of `quire ARGS --help`, which must succeed. */
async function helpOf(args: string[]): Promise<string> {
  const result = await runQuire([...args, '--help'], {});
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

/** What a help must list: the settings of `commands`, by name, each with its description and default. */
function expectSettings(help: string, commands: readonly CommandName[]): void {
  const listed = listedSettings(help);
  const expected = settingsOf(commands);
  expect(expected.length).toBeGreaterThan(0);
  expect(listed.map((entry) => entry.name)).toEqual(expected.map(([name]) => name));
  for (const [index, [, setting]] of expected.entries()) {
    expect(listed[index].text).toBe(`${setting.description} (default: ${shownDefault(setting)})`);
  }
}

describe('quire --version', () => {
  it.each([['--version'], ['-v']])('%s prints the version of package.json and exits 0', async (flag) => {
    const { version } = JSON.parse(await fs.readFile(path.join(root, 'package.json'), 'utf8')) as { version: string };
    const result = await runQuire([flag], {});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${version}\n`);
  });
});

describe('quire --help', () => {
  it('lists every command, and each command of the CLI says which settings it reads', async () => {
    const help = await helpOf([]);
    const top = listedCommands(help);
    expect(top).toEqual(['serve', 'worker', 'admin', 'git-sync', 'sync', 'site', 'migrate']);
    expect(help).toContain('--version');
    // The commands under a group are found in the group's help: a command added anywhere shows here.
    const leaves: string[] = [];
    for (const command of top) {
      const subcommands = listedCommands(await helpOf([command]));
      leaves.push(...(subcommands.length === 0 ? [command] : subcommands.map((subcommand) => `${command} ${subcommand}`)));
    }
    expect(leaves.sort()).toEqual([...COMMANDS].sort());
  }, 120_000);

  it.each(COMMANDS.map((command) => [command]))('quire %s --help: its usage, options, and the settings it reads with their defaults', async (command) => {
    const help = await helpOf(command.split(' '));
    expect(help).toMatch(new RegExp(`^Usage: quire ${command} `));
    expect(help).toContain('Options:');
    expectSettings(help, [command]);
  });

  it.each([
    ['admin', COMMANDS.filter((command) => command.startsWith('admin '))],
    ['site', COMMANDS.filter((command) => command.startsWith('site '))],
  ] as const)('quire %s --help: the settings its commands read', async (group, commands) => {
    expectSettings(await helpOf([group]), commands);
  });
});

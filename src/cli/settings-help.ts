/**
 * The part of a command's `--help` that lists the settings it reads: each environment variable of the settings table
 * (config/settings.ts) whose commands include it, what it does and its default.
 */
import { settingsOf, shownDefault, type CommandName } from '../../config/settings.js';

export const SETTINGS_HEADING = 'Settings (environment variables):';

/** Words of `text` in lines of at most `width` characters (a longer word stays whole). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** The settings `commands` read, one entry per variable: its name, then what it does and its default, wrapped. */
export function settingsHelp(commands: readonly CommandName[], width = process.stdout.isTTY ? process.stdout.columns : 100): string {
  const settings = settingsOf(commands);
  const column = Math.max(...settings.map(([name]) => name.length)) + 4;
  const lines = [SETTINGS_HEADING];
  for (const [name, setting] of settings) {
    const [first, ...rest] = wrap(`${setting.description} (default: ${shownDefault(setting)})`, Math.max(40, width - column));
    lines.push(`  ${name.padEnd(column - 2)}${first}`, ...rest.map((line) => `${' '.repeat(column)}${line}`));
  }
  return `\n${lines.join('\n')}\n`;
}

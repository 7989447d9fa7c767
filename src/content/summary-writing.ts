/**
 * SUMMARY.md written in the seen format (the reverse of ./summary.ts): pages, links and computed items nested by two
 * spaces, groups as `## Title`. Apart from the grammar: writing knows one way to write each item; reading tolerates
 * many.
 */
import yaml from 'js-yaml';
import { DEFAULT_SUMMARY_TITLE, type SummaryEntry, type SummaryItem, type SummaryStructure } from './summary.js';

function escapeLinkText(text: string): string {
  return text.replace(/[\\[\]]/g, '\\$&');
}

function encodeDestination(path: string): string {
  return path.replace(/[%\s()<>#]/g, (c) => encodeURIComponent(c).replace(/[()]/g, (p) => (p === '(' ? '%28' : '%29')));
}

function serializeItems(items: SummaryItem[], depth: number, out: string[]): void {
  for (const item of items) {
    const indent = '  '.repeat(depth);
    if (item.type === 'computed') {
      const source = (item.yaml ?? yaml.dump(item.source, { lineWidth: -1 })).replace(/\n+$/, '');
      out.push(`${indent}* \`\`\`yaml`, ...source.split('\n').map((line) => (line === '' ? '' : `${indent}  ${line}`)), `${indent}  \`\`\``);
      serializeItems(item.children, depth + 1, out);
      continue;
    }
    const destination =
      item.type === 'link' ? item.href : `${encodeDestination(item.path)}${item.anchor !== undefined ? `#${item.anchor}` : ''}`;
    const title = item.tocTitle !== undefined ? ` "${item.tocTitle.replace(/[\\"]/g, '\\$&')}"` : '';
    out.push(`${indent}* [${escapeLinkText(item.title)}](${destination}${title})`);
    serializeItems(item.children, depth + 1, out);
  }
}

/**
 * The lines of SUMMARY.md entries in the seen format: `* ` items nested by two spaces, each group as a blank line,
 * `## Title`, a blank line and its items. Items that follow a group in `entries` are written after it (and so read
 * back as its items).
 */
export function serializeSummaryEntries(entries: SummaryEntry[]): string[] {
  const out: string[] = [];
  let pendingItems: SummaryItem[] = [];
  const flush = (): void => {
    if (pendingItems.length > 0) serializeItems(pendingItems, 0, out);
    pendingItems = [];
  };
  for (const entry of entries) {
    if (entry.type === 'group') {
      flush();
      if (out.length > 0 && out[out.length - 1] !== '') out.push('');
      out.push(`## ${entry.title}`, '');
      serializeItems(entry.items, 0, out);
    } else {
      pendingItems.push(entry);
    }
  }
  flush();
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}

/**
 * SUMMARY.md text in the seen format: `# Title`, a blank line, then the entries (serializeSummaryEntries). Page
 * paths are written relative to the SUMMARY.md's folder (`path`), with spaces and parentheses percent-encoded.
 */
export function serializeSummary(structure: SummaryStructure): string {
  const out: string[] = [`# ${structure.title || DEFAULT_SUMMARY_TITLE}`, '', ...serializeSummaryEntries(structure.entries)];
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return `${out.join('\n')}\n`;
}

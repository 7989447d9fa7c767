import { parseSummary } from '../src/content/summary.js';
const lines = ['# Table of contents', '', '* [Home](README.md)'];
const paths = new Set<string>(['README.md']);
for (let i = 0; i < 10000; i++) { const p = `section-${Math.floor(i / 50)}/page-${i}.md`; lines.push(`* [Page ${i}](${p})`); paths.add(p); }
const text = lines.join('\n') + '\n';
for (let r = 0; r < 8; r++) { const t = performance.now(); parseSummary(text, { path: 'SUMMARY.md', root: '', exists: (p) => paths.has(p) }); console.log((performance.now() - t).toFixed(1)); }

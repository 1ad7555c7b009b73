// The floor of synth: a process that writes the same documents with yaml.stringify and nothing else;
// with --check, the floor of check: it reads every file and compares it with the documents stringified.
// Usage: node bench/floor.mjs DOCS.json OUTDIR [--check]   (DOCS.json: { "<relative path>": [doc, ...] })
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';

const [docsPath, outdir, mode] = process.argv.slice(2);
const files = JSON.parse(readFileSync(docsPath, 'utf8'));
let differ = 0;
for (const [path, docs] of Object.entries(files)) {
  const target = join(outdir, path);
  const text = docs.map((d) => stringify(d, { lineWidth: 0, version: '1.1' })).join('---\n');
  if (mode === '--check') {
    if (readFileSync(target, 'utf8') !== text) differ += 1;
    continue;
  }
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
}
// (yaml.stringify may quote otherwise than synth's renderer: what differs is counted, not judged.)
if (mode === '--check') process.stdout.write(`${differ} of ${Object.keys(files).length} files differ from yaml.stringify's text\n`);

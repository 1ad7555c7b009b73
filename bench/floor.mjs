// The floor of synth: a process that writes the same documents with yaml.stringify and nothing else.
// Usage: node bench/floor.mjs DOCS.json OUTDIR   (DOCS.json: { "<relative path>": [doc, ...] })
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';

const [docsPath, outdir] = process.argv.slice(2);
const files = JSON.parse(readFileSync(docsPath, 'utf8'));
for (const [path, docs] of Object.entries(files)) {
  const target = join(outdir, path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, docs.map((d) => stringify(d, { lineWidth: 0, version: '1.1' })).join('---\n'));
}

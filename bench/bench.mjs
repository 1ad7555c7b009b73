// npm run bench: whole-process synth against the floor (writing the same documents with
// yaml.stringify), for configs of N single-pool teams on one cluster. Prints figures; never fails on time.
// Usage: npm run bench -- [--runs 5] [--sizes 100,1000,2000]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { parseAllDocuments } from 'yaml';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, sizes: { type: 'string', default: '100,1000,2000' } } });
const runs = Number(values.runs);
const sizes = values.sizes.split(',').map(Number);
const root = process.cwd();
const main = join(root, 'scripts/run.cjs');
const floor = join(root, 'bench/floor.mjs');
const rss = join(root, 'bench/rss.cjs');
const work = mkdtempSync(join(tmpdir(), 'karpenter-gitops-bench-'));

/** A config of n teams, each with one pool, on one cluster. */
function writeConfig(dir, n) {
  mkdirSync(join(dir, 'terraform'), { recursive: true });
  writeFileSync(join(dir, 'terraform/bench.json'), JSON.stringify({
    cluster_name: 'bench', karpenter_node_role_name: 'KarpenterNodeRole-bench', karpenter_interruption_queue_name: 'Karpenter-bench',
  }));
  let text = 'gitops:\n  repoURL: https://github.com/acme/platform-gitops.git\nkarpenter:\n  version: 1.14.1\n'
    + 'clusters:\n  bench:\n    terraformOutputs: terraform/bench.json\ndefaults:\n  ami: { alias: al2023@v20250505 }\nteams:\n';
  for (let i = 0; i < n; i++) {
    text += `  team-${i}:\n    owner: team-${i}@acme.example\n    arch: [arm64]\n    capacityTypes: [spot, on-demand]\n    instanceCategories: [c, m]\n    limits: { cpu: "100" }\n`;
  }
  writeFileSync(join(dir, 'platform.yaml'), text);
}

/** Runs a whole process; returns wall milliseconds and peak RSS in MB. */
function timed(args) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--require', rss, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
  const kb = Number(/bench-maxrss-kb (\d+)/.exec(r.stderr)?.[1] ?? 0);
  return { ms, mb: kb / 1024 };
}

/** Every generated file as its parsed documents: the floor writes exactly these. */
function documents(outdir) {
  const files = {};
  const walk = (dir) => {
    for (const e of readdirSync(dir)) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p);
      else files[relative(outdir, p)] = parseAllDocuments(readFileSync(p, 'utf8')).map((d) => d.toJS());
    }
  };
  walk(outdir);
  return files;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const n of sizes) {
  const dir = join(work, `n${n}`);
  writeConfig(dir, n);
  const out = join(dir, 'out');
  timed([main, 'synth', '--config', join(dir, 'platform.yaml'), '--outdir', out]);
  const docsPath = join(dir, 'docs.json');
  writeFileSync(docsPath, JSON.stringify(documents(out)));
  const synth = { cold: [], warm: [] };
  const flo = { cold: [], warm: [] };
  const synthArgs = (to) => [main, 'synth', '--config', join(dir, 'platform.yaml'), '--outdir', to];
  // Alternate synth and floor so that machine noise hits both alike.
  // cold: into an empty folder (every file created); warm: over the previous output (a re-synth).
  // Folders are removed only after the last run: on this kind of disk a large delete slows the
  // file creations that follow it, which would bias whichever process runs next.
  for (let i = 0; i < runs; i++) {
    const fresh = join(dir, `cold-${i}`);
    synth.cold.push(timed(synthArgs(join(fresh, 'synth'))));
    flo.cold.push(timed([floor, docsPath, join(fresh, 'floor')]));
    synth.warm.push(timed(synthArgs(out)));
    flo.warm.push(timed([floor, docsPath, join(dir, 'floor-warm')]));
  }
  for (const kind of ['cold', 'warm']) {
    rows.push({
      n, kind, synth: median(synth[kind].map((r) => r.ms)), floor: median(flo[kind].map((r) => r.ms)),
      rss: Math.max(...synth[kind].map((r) => r.mb)), floorRss: Math.max(...flo[kind].map((r) => r.mb)),
    });
  }
  rmSync(dir, { recursive: true, force: true });
}
rmSync(work, { recursive: true, force: true });

const ratio = (kind, a, b, key) => {
  const x = rows.find((r) => r.n === a && r.kind === kind);
  const y = rows.find((r) => r.n === b && r.kind === kind);
  return x && y ? (y[key] / x[key]).toFixed(2) : '-';
};
console.log(`karpenter-gitops synth benchmark: node ${process.version}, ${runs} runs per size, medians of whole processes`);
console.log('synth = node scripts/run.cjs synth (what npm run synth runs); floor = node bench/floor.mjs, writing the same documents with yaml.stringify');
console.log('cold = into an empty folder; warm = over the previous output (synth skips files whose content is unchanged)');
console.log('');
console.log('| teams | output | synth median (ms) | floor median (ms) | synth / floor | synth peak RSS (MB) | floor peak RSS (MB) |');
console.log('|---:|---|---:|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(`| ${r.n} | ${r.kind} | ${r.synth.toFixed(0)} | ${r.floor.toFixed(0)} | ${(r.synth / r.floor).toFixed(2)} | ${r.rss.toFixed(0)} | ${r.floorRss.toFixed(0)} |`);
}
console.log('');
for (const kind of ['cold', 'warm']) {
  console.log(`growth 1000 -> 2000 teams, ${kind}: synth x${ratio(kind, 1000, 2000, 'synth')}, floor x${ratio(kind, 1000, 2000, 'floor')}`);
}

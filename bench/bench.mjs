// npm run bench: whole-process synth against the floor (writing the same documents with
// yaml.stringify), for configs of N single-pool teams on one cluster; and `diff` of a one-team
// change in a git repository against a warm synth of the same config. Prints figures; never fails on time.
// Progress (which size and run, time so far and an estimate of what is left) goes to stderr, the tables to stdout.
// Usage: npm run bench -- [--runs 5] [--sizes 100,1000,2000] [--diff-sizes 1000,2000] [--fleet 100x20] (the fleet review: clusters x teams; --fleet '' skips it)
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { parseAllDocuments } from 'yaml';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, sizes: { type: 'string', default: '100,1000,2000' }, 'diff-sizes': { type: 'string', default: '1000,2000' }, fleet: { type: 'string', default: '100x20' } },
});
const runs = Number(values.runs);
const sizes = values.sizes.split(',').map(Number);
const diffSizes = values['diff-sizes'].split(',').filter(Boolean).map(Number);
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

/**
 * Progress on stderr: one line per process, overwritten on a terminal. What is left is
 * estimated from the time per process so far, a process of n teams weighing n + 170
 * (the start-up of a process costs about what 170 teams do); before the first one ends,
 * from 2.3 ms per team (this project's CI machine).
 */
const weight = (n) => n + 170;
const sizesRun = [...new Set([...sizes, ...diffSizes])];
const progress = {
  started: Date.now(),
  done: 0,
  // Per size: the warm-up synth and 4 processes per run; per diff size: 2 warm-ups and 2 per run.
  total: sizesRun.reduce((sum, n) => sum + weight(n) * ((sizes.includes(n) ? 1 + 4 * runs : 0) + (diffSizes.includes(n) ? 2 + 2 * runs : 0)), 0),
  steps: sizesRun.reduce((sum, n) => sum + (sizes.includes(n) ? 1 + 4 * runs : 0) + (diffSizes.includes(n) ? 2 + 2 * runs : 0), 0),
  step: 0,
};
const clock = (ms) => {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
};
function report(line, final = false) {
  if (process.stderr.isTTY) process.stderr.write(`\r\u001b[2K${line}${final ? '\n' : ''}`);
  else process.stderr.write(`${line}\n`);
}
function announce(label, n) {
  const elapsed = Date.now() - progress.started;
  const perWeight = progress.done > 0 ? elapsed / progress.done : 2.3;
  const left = (progress.total - progress.done) * perWeight;
  progress.step += 1;
  report(`bench [${progress.step}/${progress.steps}] ${n} teams: ${label} — ${clock(elapsed)} so far, about ${clock(left)} left`);
}

/** Runs a whole process, announcing it on stderr; returns wall milliseconds and peak RSS in MB. */
function timed(args, label, n) {
  announce(label, n);
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--require', rss, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
  const kb = Number(/bench-maxrss-kb (\d+)/.exec(r.stderr)?.[1] ?? 0);
  progress.done += weight(n);
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

/**
 * diff against a warm synth at n teams: a git repository holding the config and its synthesized
 * output, committed; then one team's limits change in the config, as in a pull request. Both are
 * whole processes, alternated; the warm synth writes over a copy of the committed output.
 */
function benchDiff(dir, n) {
  const repo = join(dir, 'repo');
  writeConfig(repo, n);
  const config = join(repo, 'platform.yaml');
  timed([main, 'synth', '--config', config, '--outdir', repo], 'diff: synth of the base', n);
  const git = (...args) => execFileSync('git', ['-C', repo, '-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args], { stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  const team = `team-${Math.floor(n / 2)}`;
  const text = readFileSync(config, 'utf8');
  const at = text.indexOf(`  ${team}:\n`);
  const end = text.indexOf('limits: { cpu: "100" }', at);
  writeFileSync(config, `${text.slice(0, end)}limits: { cpu: "200" }${text.slice(end + 'limits: { cpu: "100" }'.length)}`);
  const warm = join(dir, 'warm');
  for (const d of ['dist', 'argocd']) cpSync(join(repo, d), join(warm, d), { recursive: true });
  timed([main, 'synth', '--config', config, '--outdir', warm], 'diff: warm-up synth', n);
  const diff = [];
  const synth = [];
  for (let i = 0; i < runs; i++) {
    diff.push(timed([main, 'diff', '--base', 'HEAD', '--config', config, '--outdir', repo], `diff run ${i + 1}/${runs}`, n));
    synth.push(timed([main, 'synth', '--config', config, '--outdir', warm], `diff: warm synth run ${i + 1}/${runs}`, n));
  }
  return { n, diff: median(diff.map((r) => r.ms)), synth: median(synth.map((r) => r.ms)), rss: Math.max(...diff.map((r) => r.mb)) };
}

/**
 * The review of a fleet-wide change at fleet scale (issue 30): `clusters` clusters of `teams`
 * teams each (three stages, a window on every third cluster), committed; then the fleet's AMI
 * alias is bumped. Synth of the change and diff of it, whole processes, alternated in this run.
 */
function writeFleet(dir, clusters, teams, alias) {
  mkdirSync(join(dir, 'terraform'), { recursive: true });
  let text = `gitops:\n  repoURL: https://github.com/acme/platform-gitops.git\nkarpenter:\n  version: 1.14.1\ndefaults:\n  ami: { alias: ${alias} }\n  limits: { cpu: "100" }\n`
    + 'windows:\n  weeknights: { timeZone: Europe/Berlin, days: [mon, tue, wed, thu], start: "22:00", duration: 6h }\nclusters:\n';
  for (let i = 0; i < clusters; i++) {
    const id = `c${String(i).padStart(3, '0')}`;
    writeFileSync(join(dir, `terraform/${id}.json`), JSON.stringify({ cluster_name: id, karpenter_node_role_name: `KarpenterNodeRole-${id}`, karpenter_interruption_queue_name: `Karpenter-${id}` }));
    text += `  ${id}: { terraformOutputs: terraform/${id}.json, stage: ${i < clusters / 10 ? 1 : i < clusters * 0.4 ? 2 : 3}${i % 3 === 0 ? ', window: weeknights' : ''} }\n`;
  }
  text += 'teams:\n';
  for (let t = 0; t < teams; t++) text += `  team-${t}:\n    owner: team-${t}@acme.example\n    arch: [arm64]\n    capacityTypes: [spot, on-demand]\n    instanceCategories: [c, m]\n`;
  writeFileSync(join(dir, 'platform.yaml'), text);
}

function benchFleet(dir, clusters, teams) {
  const repo = join(dir, 'fleet');
  const n = clusters * teams;
  writeFleet(repo, clusters, teams, 'al2023@v20250505');
  const config = join(repo, 'platform.yaml');
  timed([main, 'synth', '--config', config, '--outdir', repo], 'fleet: synth of the base', n);
  const git = (...args) => execFileSync('git', ['-C', repo, '-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args], { stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  writeFleet(repo, clusters, teams, 'al2023@v20260409');
  const warm = join(dir, 'fleet-warm');
  for (const d of ['dist', 'argocd']) cpSync(join(repo, d), join(warm, d), { recursive: true });
  const diff = [];
  const markdown = [];
  const synth = [];
  for (let i = 0; i < runs; i++) {
    synth.push(timed([main, 'synth', '--config', config, '--outdir', warm], `fleet: synth of the change ${i + 1}/${runs}`, n));
    rmSync(warm, { recursive: true, force: true });
    for (const d of ['dist', 'argocd']) cpSync(join(repo, d), join(warm, d), { recursive: true });
    diff.push(timed([main, 'diff', '--base', 'HEAD', '--config', config, '--outdir', repo], `fleet: diff ${i + 1}/${runs}`, n));
    markdown.push(timed([main, 'diff', '--base', 'HEAD', '--format', 'markdown', '--config', config, '--outdir', repo], `fleet: diff --format markdown ${i + 1}/${runs}`, n));
  }
  const comment = spawnSync(process.execPath, [main, 'diff', '--base', 'HEAD', '--format', 'markdown', '--config', config, '--outdir', repo], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout;
  return { clusters, teams, synth: median(synth.map((r) => r.ms)), diff: median(diff.map((r) => r.ms)), markdown: median(markdown.map((r) => r.ms)), commentChars: comment.length };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
const diffRows = [];
for (const n of [...new Set([...sizes, ...diffSizes])].sort((a, b) => a - b)) {
  const dir = join(work, `n${n}`);
  if (diffSizes.includes(n)) diffRows.push(benchDiff(dir, n));
  if (!sizes.includes(n)) {
    rmSync(dir, { recursive: true, force: true });
    continue;
  }
  writeConfig(dir, n);
  const out = join(dir, 'out');
  timed([main, 'synth', '--config', join(dir, 'platform.yaml'), '--outdir', out], 'warm-up synth', n);
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
    const run = `run ${i + 1}/${runs}`;
    synth.cold.push(timed(synthArgs(join(fresh, 'synth')), `synth cold ${run}`, n));
    flo.cold.push(timed([floor, docsPath, join(fresh, 'floor')], `floor cold ${run}`, n));
    synth.warm.push(timed(synthArgs(out), `synth warm ${run}`, n));
    flo.warm.push(timed([floor, docsPath, join(dir, 'floor-warm')], `floor warm ${run}`, n));
  }
  for (const kind of ['cold', 'warm']) {
    rows.push({
      n, kind, synth: median(synth[kind].map((r) => r.ms)), floor: median(flo[kind].map((r) => r.ms)),
      rss: Math.max(...synth[kind].map((r) => r.mb)), floorRss: Math.max(...flo[kind].map((r) => r.mb)),
    });
  }
  rmSync(dir, { recursive: true, force: true });
}
const [fleetClusters, fleetTeams] = (values.fleet ?? '').split('x').map(Number);
const fleet = fleetClusters > 0 && fleetTeams > 0 ? benchFleet(join(work, 'fleet'), fleetClusters, fleetTeams) : undefined;
rmSync(work, { recursive: true, force: true });
report(`bench: ${progress.steps} processes in ${clock(Date.now() - progress.started)}`, true);

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
if (sizes.includes(1000) && sizes.includes(2000)) {
  console.log('');
  for (const kind of ['cold', 'warm']) {
    console.log(`growth 1000 -> 2000 teams, ${kind}: synth x${ratio(kind, 1000, 2000, 'synth')}, floor x${ratio(kind, 1000, 2000, 'floor')}`);
  }
}
if (diffRows.length) {
  console.log('');
  console.log('diff = node scripts/run.cjs diff --base HEAD of a one-team change (limits of one NodePool), in a git repository holding the committed output;');
  console.log('warm synth = node scripts/run.cjs synth of the same config over its previous output; alternated in the same run');
  console.log('');
  console.log('| teams | diff median (ms) | warm synth median (ms) | diff / warm synth | diff peak RSS (MB) |');
  console.log('|---:|---:|---:|---:|---:|');
  for (const r of diffRows) console.log(`| ${r.n} | ${r.diff.toFixed(0)} | ${r.synth.toFixed(0)} | ${(r.diff / r.synth).toFixed(2)} | ${r.rss.toFixed(0)} |`);
  const [a, b] = [diffRows.find((r) => r.n === 1000), diffRows.find((r) => r.n === 2000)];
  if (a && b) console.log(`\ngrowth 1000 -> 2000 teams: diff x${(b.diff / a.diff).toFixed(2)}, warm synth x${(b.synth / a.synth).toFixed(2)}`);
}
if (fleet) {
  console.log('');
  console.log(`fleet review (issue 30): ${fleet.clusters} clusters x ${fleet.teams} teams, a fleet-wide AMI alias bump; synth of the change (over the base output) and diff of it, whole processes, medians of ${runs}, in this run`);
  console.log('');
  console.log('| clusters x teams | synth (ms) | diff (ms) | diff --format markdown (ms) | diff / synth | PR comment (chars, limit 65536) |');
  console.log('|---|---:|---:|---:|---:|---:|');
  console.log(`| ${fleet.clusters} x ${fleet.teams} | ${fleet.synth.toFixed(0)} | ${fleet.diff.toFixed(0)} | ${fleet.markdown.toFixed(0)} | ${(fleet.diff / fleet.synth).toFixed(2)} | ${fleet.commentChars} |`);
}

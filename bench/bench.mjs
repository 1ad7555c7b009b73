// npm run bench: whole-process synth against the floor (writing the same documents with
// yaml.stringify), for configs of N single-pool teams on one cluster; and `diff` of a one-team
// change in a git repository against a warm synth of the same config. Prints figures; never fails on time.
// Progress (which size and run, time so far and an estimate of what is left) goes to stderr, the tables to stdout.
// Usage: npm run bench -- [--runs 5] [--sizes 100,1000,2000] [--diff-sizes 1000,2000] [--fleet 120x8] [--compare REF]
// (the fleet: clusters x teams; --fleet '' skips it, --sizes '' and --diff-sizes '' skip theirs; --compare times the synth
// of git commit REF too, alternated in the same run: before and after a change, under the same load)
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { extract } from 'tar';
import { parseAllDocuments } from 'yaml';
import { writeFleet } from './fleet.mjs';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' }, sizes: { type: 'string', default: '100,1000,2000' }, 'diff-sizes': { type: 'string', default: '1000,2000' },
    fleet: { type: 'string', default: '120x8' }, compare: { type: 'string' },
  },
});
const runs = Number(values.runs);
const sizes = values.sizes.split(',').filter(Boolean).map(Number);
const diffSizes = values['diff-sizes'].split(',').filter(Boolean).map(Number);
const root = process.cwd();
const floor = join(root, 'bench/floor.mjs');
const rss = join(root, 'bench/rss.cjs');
const work = mkdtempSync(join(tmpdir(), 'karpenter-gitops-bench-'));
/** The synth the sizes are timed with: a copy of the working tree's tool, so that an edit of src/ during the run rebuilds nothing under it. */
const main = toolCopy(join(work, 'tool-main')).run;
/** With --compare REF, the tool of git commit REF, timed beside it. */
const before = values.compare === undefined ? undefined : toolCopy(join(work, 'tool-compare'), values.compare).run;

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
const [fleetClusters, fleetTeams] = (values.fleet ?? '').split('x').map(Number);
const fleetSize = fleetClusters > 0 && fleetTeams > 0 ? fleetClusters * fleetTeams : 0;
// The fleet: the synth of the base, FLEET_PER_RUN processes per run, then the pull requests:
// three synths (once), their reviews (one each per run), four shards and their assembly.
const FLEET_PER_RUN = 11 + 3;
const fleetSteps = fleetSize ? 1 + FLEET_PER_RUN * runs + 3 + 4 + 1 : 0;
const perSize = 1 + 4 * runs + (values.compare === undefined ? 0 : 1 + 2 * runs);
const progress = {
  started: Date.now(),
  done: 0,
  // Per size: the warm-up synth and 4 processes per run (with --compare, one more warm-up and 2 more
  // per run); per diff size: 2 warm-ups and 2 per run.
  total: sizesRun.reduce((sum, n) => sum + weight(n) * ((sizes.includes(n) ? perSize : 0) + (diffSizes.includes(n) ? 2 + 2 * runs : 0)), 0) + weight(fleetSize) * fleetSteps,
  steps: sizesRun.reduce((sum, n) => sum + (sizes.includes(n) ? perSize : 0) + (diffSizes.includes(n) ? 2 + 2 * runs : 0), 0) + fleetSteps,
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
  report(`bench [${progress.step}/${progress.steps}] ${label.startsWith('fleet') ? `${fleetClusters}x${fleetTeams} fleet` : `${n} teams`}: ${label} — ${clock(elapsed)} so far, about ${clock(left)} left`);
}

/** Runs a whole process, announcing it on stderr; returns wall milliseconds and peak RSS in MB. */
function timed(args, label, n) {
  announce(label, n);
  // Each process pays for its own writes only: synth flushes its files to disk (sync -f), which
  // would also write back what the process before it left unflushed (the floor flushes nothing).
  spawnSync('sync');
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--require', rss, ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}:\n${r.stderr}`);
  const kb = Number(/bench-maxrss-kb (\d+)/.exec(r.stderr)?.[1] ?? 0);
  progress.done += weight(n);
  return { ms, mb: kb / 1024 };
}

/** Every generated file as its parsed documents (under `folders` of `outdir`: all of it by default): the floor writes exactly these. */
function documents(outdir, folders = ['']) {
  const files = {};
  const walk = (dir) => {
    for (const e of readdirSync(dir)) {
      const p = join(dir, e);
      if (statSync(p).isDirectory()) walk(p);
      else files[relative(outdir, p)] = parseAllDocuments(readFileSync(p, 'utf8')).map((d) => d.toJS());
    }
  };
  for (const f of folders) walk(join(outdir, f));
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
  const git = gitIn(repo);
  git('init', '-q', '-b', 'main');
  commit(git, 'base');
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
 * A copy of the tool (scripts/run.cjs, src/, imports/, the package files; node_modules linked)
 * whose bundle (lib/, which run.cjs builds when it is missing or older than a source) the bench's
 * runs own: a cold run of the fleet removes it first and pays for the build, as the first run of
 * a fresh checkout (a CI job) does; and no edit of the repository's src/ rebuilds it under the
 * bench. From the working tree, or from git commit `ref` (--compare).
 */
function toolCopy(dir, ref) {
  const paths = ['scripts/run.cjs', 'src', 'imports', 'package.json', 'package-lock.json'];
  mkdirSync(join(dir, 'scripts'), { recursive: true });
  if (ref === undefined) for (const p of paths) cpSync(join(root, p), join(dir, p), { recursive: true });
  else {
    const archive = `${dir}.tar`;
    execFileSync('git', ['-C', root, 'archive', '-o', archive, ref, ...paths]);
    extract({ file: archive, cwd: dir, sync: true });
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { run: join(dir, 'scripts/run.cjs'), lib: join(dir, 'lib') };
}

/**
 * The fleet at its size (issue 38; bench/fleet.mjs writes it with groups): synth, check and diff,
 * each cold (the tool's bundle removed: the first run of a fresh checkout; synth into an empty
 * folder) and warm (the bundle built; synth over its previous output, which it leaves as it is),
 * beside the floor (writing the same documents; for check, reading every file and comparing it
 * with them). diff reviews a fleet-wide AMI alias bump, committed base against the working tree.
 * Whole processes, alternated within each run.
 */
function benchFleet(dir, clusters, teams) {
  const n = clusters * teams;
  const tool = toolCopy(join(dir, 'tool'));
  const repo = join(dir, 'fleet');
  writeFleet(repo, clusters, teams, 'al2023@v20260409');
  const config = join(repo, 'platform.yaml');
  timed([tool.run, 'synth', '--config', config, '--outdir', repo], 'fleet: synth of the base', n);
  // The base, config and output, apart from the repository: what synth re-synthesizes and check checks.
  const base = join(dir, 'base');
  cpSync(repo, base, { recursive: true });
  const baseConfig = join(base, 'platform.yaml');
  // A copy's files have the copy's times, so its first synth reads each of them to know it (docs/performance.md#incremental-synth):
  // warm is a synth over what a synth in the same folder left, so the copy is synthesized once first, untimed.
  settle(tool, baseConfig, base);
  const git = gitIn(repo);
  git('init', '-q', '-b', 'main');
  commit(git, 'base');
  writeFleet(repo, clusters, teams, 'al2023@v20260507');
  const docsPath = join(dir, 'docs.json');
  const docs = documents(base, ['dist', 'argocd']);
  writeFileSync(docsPath, JSON.stringify(docs));
  // A one-group change: the staging group (a quarter of the fleet: 240 of 960 clusters) gives one
  // team other instance families, and takes them back on the next run; each run re-synthesizes
  // the output of the run before it (an incremental synth: docs/performance.md).
  const group = join(dir, 'group');
  cpSync(base, group, { recursive: true });
  const groupConfig = join(group, 'platform.yaml');
  settle(tool, groupConfig, group);
  const groupBase = readFileSync(groupConfig, 'utf8');
  const groupChanged = groupBase.replace(/^( {2}staging: \{ match: \{ labels: \{ env: staging \} \},)/m, '$1 teams: { team-2: { instanceFamilies: [m7i, r7i] } },');
  if (groupChanged === groupBase) throw new Error('bench/fleet.mjs no longer writes the staging group as the bench expects');
  const stagingClusters = (groupBase.match(/labels: \{ env: staging,/g) ?? []).length;
  const cold = () => rmSync(tool.lib, { recursive: true, force: true });
  const r = { group: [], synth: { cold: [], warm: [] }, check: { cold: [], warm: [] }, diff: { cold: [], warm: [] }, floor: { cold: [], warm: [] }, floorCheck: [], markdown: [] };
  for (let i = 0; i < runs; i++) {
    const run = `${i + 1}/${runs}`;
    cold();
    r.synth.cold.push(timed([tool.run, 'synth', '--config', baseConfig, '--outdir', join(dir, `cold-${i}`, 'synth')], `fleet: synth cold ${run}`, n));
    r.floor.cold.push(timed([floor, docsPath, join(dir, `cold-${i}`, 'floor')], `fleet: floor cold ${run}`, n));
    r.synth.warm.push(timed([tool.run, 'synth', '--config', baseConfig, '--outdir', base], `fleet: synth warm ${run}`, n));
    r.floor.warm.push(timed([floor, docsPath, join(dir, 'floor-warm')], `fleet: floor warm ${run}`, n));
    writeFileSync(groupConfig, i % 2 ? groupBase : groupChanged);
    r.group.push(timed([tool.run, 'synth', '--config', groupConfig, '--outdir', group], `fleet: synth of a one-group change ${run}`, n));
    cold();
    r.check.cold.push(timed([tool.run, 'check', '--config', baseConfig, '--outdir', base], `fleet: check cold ${run}`, n));
    r.check.warm.push(timed([tool.run, 'check', '--config', baseConfig, '--outdir', base], `fleet: check warm ${run}`, n));
    r.floorCheck.push(timed([floor, docsPath, base, '--check'], `fleet: floor of check ${run}`, n));
    cold();
    r.diff.cold.push(timed([tool.run, 'diff', '--base', 'HEAD', '--config', config, '--outdir', repo], `fleet: diff cold ${run}`, n));
    r.diff.warm.push(timed([tool.run, 'diff', '--base', 'HEAD', '--config', config, '--outdir', repo], `fleet: diff warm ${run}`, n));
    r.markdown.push(timed([tool.run, 'diff', '--base', 'HEAD', '--format', 'markdown', '--config', config, '--outdir', repo], `fleet: diff --format markdown ${run}`, n));
  }
  const comment = spawnSync(process.execPath, [tool.run, 'diff', '--base', 'HEAD', '--format', 'markdown', '--config', config, '--outdir', repo], { encoding: 'utf8', maxBuffer: 1 << 28 }).stdout;
  const reviews = benchReviews(dir, tool, base, { n, clusters, teams, groupChanged });
  const ms = (xs) => median(xs.map((x) => x.ms));
  const mb = (xs) => Math.max(...xs.map((x) => x.mb));
  return {
    clusters, teams, files: Object.keys(docs).length, pools: Object.keys(docs).filter((p) => p.includes('/nodepools/')).length,
    rows: [
      { what: 'synth', cold: ms(r.synth.cold), warm: ms(r.synth.warm), floorCold: ms(r.floor.cold), floorWarm: ms(r.floor.warm), rss: mb([...r.synth.cold, ...r.synth.warm]) },
      { what: `synth, one group changed (${stagingClusters} clusters)`, warm: ms(r.group), rss: mb(r.group) },
      { what: 'check', cold: ms(r.check.cold), warm: ms(r.check.warm), floorCold: ms(r.floorCheck), floorWarm: ms(r.floorCheck), rss: mb([...r.check.cold, ...r.check.warm]) },
      { what: 'diff', cold: ms(r.diff.cold), warm: ms(r.diff.warm), rss: mb([...r.diff.cold, ...r.diff.warm]) },
    ],
    markdown: ms(r.markdown), commentChars: comment.length, reviews,
  };
}

/**
 * Pull requests as the workflow reviews them (issue 47): in a repository of the base, three
 * branches — one cluster's Terraform outputs changed, the one-group change, a fleet-wide AMI bump —
 * each synthesized incrementally over the base's output (the synth of the change, timed) and
 * committed; then `diff --base main --head <branch>` (the review, timed; its peak memory is what
 * must not grow with the unchanged clusters), and the AMI bump in 4 shards (`--shard I/4
 * --part-out`, the slowest shard) assembled by `--parts`.
 */
function benchReviews(dir, tool, base, { n, clusters, teams, groupChanged }) {
  const repo = join(dir, 'prs');
  cpSync(base, repo, { recursive: true });
  writeFileSync(join(repo, '.gitignore'), '.karpenter-gitops/\n');
  const config = join(repo, 'platform.yaml');
  settle(tool, config, repo);
  const git = gitIn(repo);
  git('init', '-q', '-b', 'main');
  commit(git, 'base');
  const one = readdirSync(join(repo, 'terraform')).sort()[0];
  const edits = {
    'one cluster (its Terraform outputs)': () => {
      const file = join(repo, 'terraform', one);
      writeFileSync(file, readFileSync(file, 'utf8').replace(/"karpenter_interruption_queue_name":"([^"]+)"/, '"karpenter_interruption_queue_name":"$1-v2"'));
    },
    [`one group (${(groupChanged.match(/labels: \{ env: staging,/g) ?? []).length} clusters)`]: () => writeFileSync(config, groupChanged),
    'the whole fleet (an AMI bump)': () => writeFleet(repo, clusters, teams, 'al2023@v20260507'),
  };
  const rows = [];
  for (const [i, [what, edit]] of Object.entries(edits).entries()) {
    const branch = `pr-${i}`;
    git('checkout', '-q', '-b', branch, 'main');
    edit();
    const synth = timed([tool.run, 'synth', '--config', config, '--outdir', repo], `fleet: synth of a PR changing ${what}`, n);
    commit(git, what);
    const diffs = [];
    for (let r = 0; r < runs; r++) diffs.push(timed([tool.run, 'diff', '--base', 'main', '--head', branch, '--outdir', repo], `fleet: diff --head of a PR changing ${what} ${r + 1}/${runs}`, n));
    rows.push({ what, synth, diff: { ms: median(diffs.map((d) => d.ms)), mb: Math.max(...diffs.map((d) => d.mb)) } });
    git('checkout', '-q', 'main');
  }
  const shards = [];
  for (let i = 1; i <= 4; i++) {
    shards.push(timed([tool.run, 'diff', '--base', 'main', '--head', 'pr-2', '--outdir', repo, '--shard', `${i}/4`, '--part-out', join(dir, `part-${i}.json`)], `fleet: diff --head, AMI bump, shard ${i}/4`, n));
  }
  const parts = Array.from({ length: 4 }, (_, i) => join(dir, `part-${i + 1}.json`)).join(',');
  const assembly = timed([tool.run, 'diff', '--parts', parts, '--format', 'markdown'], 'fleet: diff --parts of 4 shards', n);
  return { rows, shards: { slowest: Math.max(...shards.map((x) => x.ms)), mb: Math.max(...shards.map((x) => x.mb)), assembly } };
}

/**
 * git in a bench repository, with no housekeeping of its own: a commit of thousands of files
 * makes git start `git gc --auto` in the background (more than gc.auto, 6,700, loose objects;
 * gc.autoDetach; git-gc(1), "CONFIGURATION"), which would take a core from the next timed run.
 */
function gitIn(repo) {
  return (...args) => execFileSync('git', ['-C', repo, '-c', 'user.name=bench', '-c', 'user.email=bench@example.com', '-c', 'gc.auto=0', ...args], { stdio: 'pipe' });
}

/** Commits everything, then packs the objects in the foreground, untimed: a CI checkout's repository is packed. */
function commit(git, message) {
  git('add', '-A');
  git('commit', '-q', '-m', message);
  git('gc', '-q');
}

/** One untimed synth of a copied fleet, so what a timed synth finds is what a synth in that folder left (its manifest and the files' times). */
function settle(tool, config, outdir) {
  execFileSync(process.execPath, [tool.run, 'synth', '--config', config, '--outdir', outdir], { stdio: 'pipe' });
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
  const outBefore = join(dir, 'out-before');
  if (before) timed([before, 'synth', '--config', join(dir, 'platform.yaml'), '--outdir', outBefore], `warm-up synth of ${values.compare}`, n);
  const synth = { cold: [], warm: [] };
  const flo = { cold: [], warm: [] };
  const old = { cold: [], warm: [] };
  const synthArgs = (tool, to) => [tool, 'synth', '--config', join(dir, 'platform.yaml'), '--outdir', to];
  // Alternate synth and floor (and the synth of --compare) so that machine noise hits them alike.
  // cold: into an empty folder (every file created); warm: over the previous output (a re-synth).
  // Folders are removed only after the last run: on this kind of disk a large delete slows the
  // file creations that follow it, which would bias whichever process runs next.
  for (let i = 0; i < runs; i++) {
    const fresh = join(dir, `cold-${i}`);
    const run = `run ${i + 1}/${runs}`;
    // The synth of --compare goes first in every other run, so that neither synth always follows the floor.
    const synths = (kind, to, toBefore) => {
      const ours = () => synth[kind].push(timed(synthArgs(main, to), `synth ${kind} ${run}`, n));
      const theirs = () => before && old[kind].push(timed(synthArgs(before, toBefore), `synth of ${values.compare} ${kind} ${run}`, n));
      for (const step of i % 2 ? [theirs, ours] : [ours, theirs]) step();
    };
    synths('cold', join(fresh, 'synth'), join(fresh, 'before'));
    flo.cold.push(timed([floor, docsPath, join(fresh, 'floor')], `floor cold ${run}`, n));
    synths('warm', out, outBefore);
    flo.warm.push(timed([floor, docsPath, join(dir, 'floor-warm')], `floor warm ${run}`, n));
  }
  for (const kind of ['cold', 'warm']) {
    rows.push({
      n, kind, synth: median(synth[kind].map((r) => r.ms)), floor: median(flo[kind].map((r) => r.ms)),
      rss: Math.max(...synth[kind].map((r) => r.mb)), floorRss: Math.max(...flo[kind].map((r) => r.mb)),
      ...(before ? { before: median(old[kind].map((r) => r.ms)) } : {}),
    });
  }
  rmSync(dir, { recursive: true, force: true });
}
const fleet = fleetSize ? benchFleet(join(work, 'fleet'), fleetClusters, fleetTeams) : undefined;
rmSync(work, { recursive: true, force: true });
report(`bench: ${progress.steps} processes in ${clock(Date.now() - progress.started)}`, true);

const ratio = (kind, a, b, key) => {
  const x = rows.find((r) => r.n === a && r.kind === kind);
  const y = rows.find((r) => r.n === b && r.kind === kind);
  return x && y ? (y[key] / x[key]).toFixed(2) : '-';
};
console.log(`karpenter-gitops synth benchmark: node ${process.version}, ${runs} runs per size, medians of whole processes`);
if (rows.length) {
  console.log('synth = node scripts/run.cjs synth (what npm run synth runs); floor = node bench/floor.mjs, writing the same documents with yaml.stringify');
  console.log('cold = into an empty folder; warm = over the previous output (synth skips files whose content is unchanged)');
  if (before) console.log(`before = the synth of git commit ${execFileSync('git', ['-C', root, 'rev-parse', '--short', values.compare], { encoding: 'utf8' }).trim()} (--compare ${values.compare}), alternated with the others in this run`);
  console.log('');
  const extra = before ? { head: ' before median (ms) | before / floor |', rule: '---:|---:|', cells: (r) => ` ${r.before.toFixed(0)} | ${(r.before / r.floor).toFixed(2)} |` } : { head: '', rule: '', cells: () => '' };
  console.log(`| teams | output | synth median (ms) | floor median (ms) | synth / floor |${extra.head} synth peak RSS (MB) | floor peak RSS (MB) |`);
  console.log(`|---:|---|---:|---:|---:|${extra.rule}---:|---:|`);
  for (const r of rows) {
    console.log(`| ${r.n} | ${r.kind} | ${r.synth.toFixed(0)} | ${r.floor.toFixed(0)} | ${(r.synth / r.floor).toFixed(2)} |${extra.cells(r)} ${r.rss.toFixed(0)} | ${r.floorRss.toFixed(0)} |`);
  }
  // The issue's goal at 1,000 teams: within 1.5x of the floor cold, 1.3x warm.
  const goal = { cold: 1.5, warm: 1.3 };
  const at1000 = rows.filter((r) => r.n === 1000);
  if (at1000.length) {
    console.log('');
    for (const r of at1000) {
      const ratio = r.synth / r.floor;
      console.log(`1000 teams ${r.kind}: synth ${r.synth.toFixed(0)} ms / floor ${r.floor.toFixed(0)} ms = ${ratio.toFixed(2)} (goal <= ${goal[r.kind]}: ${ratio <= goal[r.kind] ? 'met' : 'not met'})`
        + (r.before === undefined ? '' : `; before ${(r.before / r.floor).toFixed(2)}`));
    }
  }
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
  console.log(`fleet (issue 38): ${fleet.clusters} clusters x ${fleet.teams} teams written with groups (bench/fleet.mjs), ${fleet.files} files, ${fleet.pools} NodePool files; medians of ${runs}, whole processes, alternated in this run`);
  console.log('cold = the first run of a fresh checkout: the tool\'s bundle (lib/) removed before it, and synth into an empty folder; warm = the bundle built, and synth over its previous output');
  console.log('floor = node bench/floor.mjs writing the same documents with yaml.stringify (cold: into an empty folder); for check, reading every file and comparing it with them');
  console.log('diff = diff --base HEAD of a fleet-wide AMI alias bump; one group changed = synth over the previous output after the staging group gave one team other instance families (or took them back)');
  console.log('');
  console.log('| command | cold (ms) | warm (ms) | floor cold (ms) | floor warm (ms) | cold / floor | warm / floor | peak RSS (MB) |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  const cell = (x) => (x === undefined ? '-' : x.toFixed(0));
  const over = (a, b) => (b === undefined ? '-' : (a / b).toFixed(2));
  for (const r of fleet.rows) {
    console.log(`| ${r.what} | ${cell(r.cold)} | ${cell(r.warm)} | ${cell(r.floorCold)} | ${cell(r.floorWarm)} | ${over(r.cold, r.floorCold)} | ${over(r.warm, r.floorWarm)} | ${r.rss.toFixed(0)} |`);
  }
  console.log('');
  console.log(`diff --format markdown (warm): ${fleet.markdown.toFixed(0)} ms; the PR comment: ${fleet.commentChars} characters (GitHub's limit: 65536)`);
  console.log('');
  console.log(`pull requests reviewed as the workflow does (issue 47): the change synthesized over the base's output, committed, then diff --base main --head BRANCH (median of ${runs})`);
  console.log('');
  console.log('| the pull request changes | synth (ms) | synth peak RSS (MB) | diff --head (ms) | diff peak RSS (MB) | synth + diff / cold synth |');
  console.log('|---|---:|---:|---:|---:|---:|');
  const coldSynth = fleet.rows[0].cold;
  for (const r of fleet.reviews.rows) {
    console.log(`| ${r.what} | ${r.synth.ms.toFixed(0)} | ${r.synth.mb.toFixed(0)} | ${r.diff.ms.toFixed(0)} | ${r.diff.mb.toFixed(0)} | ${((r.synth.ms + r.diff.ms) / coldSynth).toFixed(2)} |`);
  }
  const sh = fleet.reviews.shards;
  console.log(`the AMI bump in 4 shards: slowest shard ${sh.slowest.toFixed(0)} ms (peak RSS ${sh.mb.toFixed(0)} MB), assembly (diff --parts) ${sh.assembly.ms.toFixed(0)} ms (${sh.assembly.mb.toFixed(0)} MB)`);
  console.log(`warm synth / cold synth: ${(fleet.rows[0].warm / coldSynth).toFixed(3)} (goal < 0.1)`);
  const group = fleet.reviews.rows.find((r) => r.what.startsWith('one group'));
  if (group) console.log(`${group.what}: synth + diff / cold synth: ${((group.synth.ms + group.diff.ms) / coldSynth).toFixed(3)} (goal < 1/3)`);
}

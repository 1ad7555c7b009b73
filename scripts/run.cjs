#!/usr/bin/env node
// Entry of `npm run synth` (and of cdk8s.yaml's app) and of the other commands: bundles src/ into
// lib/karpenter-gitops.cjs (and its YAML-rendering worker, lib/render-worker.cjs) with esbuild
// when a source is newer than the bundle (no type checking at run time; `npm run typecheck`, part of `npm run test:all`, type-checks),
// then runs it in this same process. `upgrade` has a bundle of its own, lib/upgrade.cjs, which
// does not need imports/: it is how imports/ are regenerated.
const { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const lib = join(root, 'lib');

/** The classes `cdk8s import` generated, which the generator is built from. */
const IMPORTS = ['karpenter.sh.ts', 'karpenter.k8s.aws.ts', 'autoscaling.x-k8s.io.ts', 'argoproj.io.ts'];

const upgrade = process.argv[2] === 'upgrade';
const entries = upgrade
  ? { upgrade: join(root, 'src/upgrade/main.ts') }
  : { 'karpenter-gitops': join(root, 'src/main.ts'), 'render-worker': join(root, 'src/render-worker.ts') };
const bundle = join(lib, upgrade ? 'upgrade.cjs' : 'karpenter-gitops.cjs');
const sources = [join(root, 'src'), join(root, 'package.json'), join(root, 'package-lock.json'), __filename, ...(upgrade ? [] : [join(root, 'imports')])];

/** Newest modification time under a path; 0 when it is not there. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((e) => newest(join(path, e))));
}

/** Exits 1 with these lines on stderr: no stack trace for a tree the user can fix. */
function fail(lines) {
  for (const line of lines) process.stderr.write(`${line}\n`);
  process.exit(1);
}

/** The Karpenter version the generator is built for (CHART_VERSION), for the restore hint. */
function chartVersion() {
  try {
    return /CHART_VERSION = '([^']+)'/.exec(readFileSync(join(root, 'src/release/chart-values-keys.generated.ts'), 'utf8'))?.[1] ?? 'VERSION';
  } catch {
    return 'VERSION';
  }
}

/** How to get imports/ back: git has them; the upgrade regenerates Karpenter's (not Argo CD's). */
function restoreHint(files) {
  const karpenter = files.filter((f) => f !== 'argoproj.io.ts');
  return [
    '  restore the committed files: git checkout imports/',
    ...(karpenter.length ? [`  or regenerate ${karpenter.map((f) => `imports/${f}`).join(' and ')} for the Karpenter version in use: npm run upgrade -- ${chartVersion()}`] : []),
    ...(files.includes('argoproj.io.ts') ? ['  (npm run upgrade does not make imports/argoproj.io.ts, the Argo CD classes: restore it from git)'] : []),
  ];
}

if (!upgrade) {
  const missing = IMPORTS.filter((f) => !existsSync(join(root, 'imports', f)));
  if (missing.length) {
    fail([
      `error: ${missing.map((f) => `imports/${f}`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing: karpenter-gitops is built from the classes \`cdk8s import\` generated from the Karpenter and Argo CD CRDs`,
      ...restoreHint(missing),
    ]);
  }
}

/** `file:line:col: text` of an esbuild message. */
function where(m) {
  return m.location ? `${m.location.file}:${m.location.line}:${m.location.column + 1}: ` : '';
}

if (!existsSync(bundle) || Math.max(...sources.map(newest)) > statSync(bundle).mtimeMs) {
  // Dependencies are bundled too: one file loads in half the time of node_modules' many.
  // Built into a folder of its own, then renamed into place: two runs started at once never
  // load a half-written bundle. The worker goes first, so a complete bundle always has its worker.
  mkdirSync(lib, { recursive: true });
  const tmp = mkdtempSync(join(lib, '.build-'));
  let failure;
  try {
    const result = require('esbuild').buildSync({
      entryPoints: entries,
      bundle: true, platform: 'node', target: 'node20', outdir: tmp, outExtension: { '.js': '.cjs' }, logLevel: 'silent',
      // jsonc-parser's default (UMD) build requires its parts at run time, which a bundle cannot follow.
      alias: { 'jsonc-parser': require.resolve('jsonc-parser/lib/esm/main.js', { paths: [root] }) },
    });
    for (const m of result.warnings) process.stderr.write(`warning: ${where(m)}${m.text}\n`);
    for (const name of upgrade ? ['upgrade'] : ['render-worker', 'karpenter-gitops']) renameSync(join(tmp, `${name}.cjs`), join(lib, `${name}.cjs`));
  } catch (err) {
    failure = buildFailure(err);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  if (failure) fail(failure);
}
require(bundle);

/** What to print when esbuild fails: its own messages, located, never its JavaScript stack; how to restore imports/ when they are the cause. */
function buildFailure(err) {
  const errors = err.errors ?? [];
  if (!errors.length) throw err; // not esbuild's: a bug or the file system, with its stack
  const text = (m) => `${m.location?.file ?? ''} ${m.text} ${(m.notes ?? []).map((n) => n.text).join(' ')}`;
  const broken = IMPORTS.filter((f) => errors.some((m) => text(m).includes(`imports/${f}`)));
  return [
    ...errors.map((m) => `error: ${where(m)}${m.text}`),
    ...(broken.length || errors.some((m) => /(^|[\s/])imports\//.test(text(m)))
      ? ['imports/ looks broken (edited, truncated or from another release); its files are generated, never edited:', ...restoreHint(broken.length ? broken : IMPORTS)]
      : []),
    'karpenter-gitops could not be built from src/ (esbuild\'s errors above); nothing was run',
  ];
}

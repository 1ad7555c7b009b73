#!/usr/bin/env node
// Entry of `npm run synth` (and of cdk8s.yaml's app): bundles src/ into lib/karpenter-gitops.cjs (and
// its YAML-rendering worker, lib/render-worker.cjs) with
// esbuild when a source is newer than the bundle (no type checking at run time; `npm test` type-checks),
// then runs it in this same process.
const { existsSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const lib = join(root, 'lib');
const bundle = join(lib, 'karpenter-gitops.cjs');
const sources = [join(root, 'src'), join(root, 'imports'), join(root, 'package-lock.json'), __filename];

function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((e) => newest(join(path, e))));
}

if (!existsSync(bundle) || Math.max(...sources.map(newest)) > statSync(bundle).mtimeMs) {
  // Dependencies are bundled too: one file loads in half the time of node_modules' many.
  // Built into a folder of its own, then renamed into place: two runs started at once never
  // load a half-written bundle. The worker goes first, so a complete bundle always has its worker.
  require('node:fs').mkdirSync(lib, { recursive: true });
  const tmp = mkdtempSync(join(lib, '.build-'));
  try {
    require('esbuild').buildSync({
      entryPoints: { 'karpenter-gitops': join(root, 'src/main.ts'), 'render-worker': join(root, 'src/render-worker.ts') },
      bundle: true, platform: 'node', target: 'node20', outdir: tmp, outExtension: { '.js': '.cjs' }, logLevel: 'warning',
      // jsonc-parser's default (UMD) build requires its parts at run time, which a bundle cannot follow.
      alias: { 'jsonc-parser': require.resolve('jsonc-parser/lib/esm/main.js', { paths: [root] }) },
    });
    renameSync(join(tmp, 'render-worker.cjs'), join(lib, 'render-worker.cjs'));
    renameSync(join(tmp, 'karpenter-gitops.cjs'), bundle);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
require(bundle);

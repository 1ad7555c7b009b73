#!/usr/bin/env node
// Entry of `npm run synth` (and of cdk8s.yaml's app): bundles src/ into lib/karpenter-gitops.cjs (and
// its YAML-rendering worker, lib/render-worker.cjs) with
// esbuild when a source is newer than the bundle (no type checking at run time; `npm test` type-checks),
// then runs it in this same process.
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const bundle = join(root, 'lib', 'karpenter-gitops.cjs');
const sources = [join(root, 'src'), join(root, 'imports'), join(root, 'package-lock.json'), __filename];

function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((e) => newest(join(path, e))));
}

if (!existsSync(bundle) || Math.max(...sources.map(newest)) > statSync(bundle).mtimeMs) {
  // Dependencies are bundled too: one file loads in half the time of node_modules' many.
  require('esbuild').buildSync({
    entryPoints: { 'karpenter-gitops': join(root, 'src/main.ts'), 'render-worker': join(root, 'src/render-worker.ts') },
    bundle: true, platform: 'node', target: 'node20', outdir: join(root, 'lib'), outExtension: { '.js': '.cjs' }, logLevel: 'warning',
  });
}
require(bundle);

#!/usr/bin/env node
// The cdk8s CLI of the upgrade tests (test/upgrade/builders.ts CDK8S_BIN): runs the real one,
// node_modules/cdk8s-cli/bin/cdk8s, once for each distinct input (its arguments, the files of
// the folder it runs in, the cdk8s-cli version) and gives every later run with the same input the
// files that run wrote. The upgrade spawns it and reads what it wrote as it does the real one;
// `cdk8s import`, deterministic and about a second of CPU, just is not run again for the CRDs
// it has already imported (the upgrade tests import two pairs of CRDs a dozen times over).
// The memo is the folder KG_CDK8S_IMPORT_MEMO; without it this is the real CLI.
const { spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } = require('node:fs');
const { join } = require('node:path');

const cli = join(__dirname, '../../node_modules/cdk8s-cli');
const real = join(cli, 'bin/cdk8s');
const args = process.argv.slice(2);
const memo = process.env.KG_CDK8S_IMPORT_MEMO;

/** Runs the real CLI with these arguments here, as this process; returns its exit code. */
function runReal() {
  const run = spawnSync(process.execPath, [real, ...args], { stdio: 'inherit' });
  return run.status ?? 1;
}

const output = args.includes('--output') ? args[args.indexOf('--output') + 1] : 'imports';
if (!memo || args[0] !== 'import') process.exit(runReal());

const hash = createHash('sha256');
hash.update(JSON.stringify({ args, version: JSON.parse(readFileSync(join(cli, 'package.json'), 'utf8')).version }));
for (const name of readdirSync('.').sort()) {
  if (statSync(name).isFile()) hash.update(`\0${name}\0`).update(readFileSync(name));
}
const saved = join(memo, hash.digest('hex'));
if (!existsSync(saved)) {
  const status = runReal();
  if (status !== 0) process.exit(status);
  rmSync(`${saved}.tmp`, { recursive: true, force: true });
  cpSync(output, `${saved}.tmp`, { recursive: true });
  renameSync(`${saved}.tmp`, saved);
} else {
  cpSync(saved, output, { recursive: true });
}

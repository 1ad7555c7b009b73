#!/usr/bin/env node
// `npm run test:all`'s checks before jest: runs the npm scripts named on the command line side by side,
// then prints each one's output whole, in the order named, and exits 1 when any failed. The type
// check and the typed lint each keep one core busy for 15-25 s; one after the other, they left
// the second core of a 2-core machine idle.
const { spawn } = require('node:child_process');

const names = process.argv.slice(2);
// The npm running `npm test` (npm_execpath), else the one on PATH.
const npm = process.env.npm_execpath;
// Colours as the scripts would print them on this terminal, though their output is captured.
const env = process.stdout.isTTY ? { ...process.env, FORCE_COLOR: '1' } : process.env;

/** Runs `npm run --silent NAME`; resolves with its exit code and what it printed, unprinted. */
function run(name) {
  return new Promise((resolve) => {
    const args = ['run', '--silent', name];
    const child = npm
      ? spawn(process.execPath, [npm, ...args], { env })
      : spawn('npm', args, { env, shell: process.platform === 'win32' });
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', (error) => err.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code) => resolve({ name, code, out: Buffer.concat(out), err: Buffer.concat(err) }));
  });
}

void Promise.all(names.map(run)).then((results) => {
  for (const r of results) {
    process.stdout.write(r.out);
    process.stderr.write(r.err);
  }
  const failed = results.filter((r) => r.code !== 0);
  for (const r of failed) process.stderr.write(`npm run ${r.name} failed (exit ${r.code})\n`);
  process.exitCode = failed.length > 0 ? 1 : 0;
});

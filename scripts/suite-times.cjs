#!/usr/bin/env node
// `npm run test:times`: runs both tiers of the tests once (jest --json) and prints the per-suite
// table of docs/performance.md ("Test suites"): each suite's tier, wall seconds in its worker and
// tests, slowest first, with each tier's sum and the run's wall time. Paste it with the machine
// and its load (`uptime`) beside it.
const { spawnSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir, cpus } = require('node:os');
const { join, relative } = require('node:path');
const { SLOW } = require('../test/tiers');

const root = join(__dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'kg-times-'));

/** One tier's run: its suites and wall seconds. */
function tier(name) {
  const out = join(dir, `${name}.json`);
  const started = process.hrtime.bigint();
  spawnSync(process.execPath, [require.resolve('jest/bin/jest'), '--selectProjects', name, '--json', '--outputFile', out, '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  const results = JSON.parse(readFileSync(out, 'utf8'));
  const suites = results.testResults.map((r) => ({
    path: relative(root, r.name).split('\\').join('/'),
    tier: name,
    seconds: (r.endTime - r.startTime) / 1000,
    tests: r.assertionResults.length,
    failed: r.assertionResults.filter((a) => a.status === 'failed').length,
  }));
  return { name, wall, suites, passed: results.success };
}

try {
  const tiers = ['fast', 'slow'].map(tier);
  const rows = tiers.flatMap((t) => t.suites).sort((a, b) => b.seconds - a.seconds);
  const line = (cells) => `| ${cells.join(' | ')} |`;
  console.log(`${cpus().length} cores; ${tiers.map((t) => `${t.name}: ${t.suites.length} suites, ${t.wall.toFixed(1)} s wall, ${t.suites.reduce((s, r) => s + r.seconds, 0).toFixed(1)} s in workers${t.passed ? '' : ' (FAILED)'}`).join('; ')}`);
  console.log();
  console.log(line(['Suite', 'Tier', 'Seconds', 'Tests', 'Why slow']));
  console.log(line(['---', '---', '---:', '---:', '---']));
  for (const r of rows) console.log(line([`\`${r.path}\``, r.tier, r.seconds.toFixed(1), String(r.tests), SLOW[r.path] ?? '']));
  process.exitCode = tiers.every((t) => t.passed) ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}

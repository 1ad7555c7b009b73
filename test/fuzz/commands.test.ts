/**
 * Property (seeded, bounded; issue 47): no input gives a stack trace. Generated configs whose
 * names are keys of every JavaScript object (`constructor`, `toString`, `__proto__`), whose
 * schedules and windows name days that may never occur, whose Git revisions and repositories are
 * paths, whose time zones are typos, go through the real command line — `synth`, then `check` and
 * `diff --base HEAD` of what it wrote — and each run ends with exit 0, or exit 1 with located
 * problems: never a crash, a JavaScript error's name, or a line of a stack.
 */
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { aTerraform, removeProjects, writeProject } from '../builders';
import { cli, CliResult } from '../review/fleet';

afterAll(removeProjects);

/** What a crash prints that a located problem never does. */
const CRASH = /\n\s+at |\b(?:TypeError|RangeError|ReferenceError|SyntaxError|Error): |Cannot read properties|is not a function|Maximum call stack|There is already a Construct/;

/** Mostly what a platform team writes, sometimes what it must not: so that some configs pass and reach check and diff. */
const mostly = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>) => fc.oneof({ arbitrary: good, weight: 12 }, { arbitrary: bad, weight: 1 });
// Keys of every object that are DNS labels (and so valid names), and some that are not.
const name = mostly(fc.oneof(fc.constantFrom('constructor', 'prototype'), fc.stringMatching(/^[a-z]([-a-z0-9]{0,6}[a-z0-9])?$/)), fc.constantFrom('toString', 'valueOf', 'hasOwnProperty', '__proto__'));
const day = mostly(fc.oneof(fc.integer({ min: 1, max: 28 }).map(String), fc.constant('*')), fc.constantFrom('31', '30', 'L', '29-31'));
const month = mostly(fc.constant('*'), fc.constantFrom('2', '4', '2,4', 'feb'));
const schedule = fc.tuple(fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 23 }), day, month, fc.constantFrom('*', 'mon', '1-5', '7'))
  .map((fields) => fields.join(' '));
const revision = mostly(fc.constantFrom('main', 'stage-2', 'refs/heads/x', 'v1.2.3'), fc.constantFrom('../../main', 'file:///etc/passwd', 'main\nHEAD', '-main', 'a..b', 'HEAD@{1}'));
const repoURL = mostly(fc.constantFrom('https://github.com/acme/platform-gitops.git', 'git@github.com:acme/platform-gitops.git', 'ssh://git@host/x.git'), fc.constantFrom('file:///etc/passwd', '/srv/git/x.git', 'https://x .git'));
const timeZone = mostly(fc.constantFrom('Europe/Berlin', 'UTC', 'America/New_York'), fc.constantFrom('Europe/Berln', 'Mars/Olympus', '+02:00'));
const window = fc.record({
  timeZone, days: mostly(fc.subarray(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], { minLength: 1 }), fc.constant<string[]>(['funday'])),
  start: mostly(fc.constantFrom('02:00', '23:30'), fc.constantFrom('24:00', '7:5')), duration: mostly(fc.constantFrom('4h', '6h'), fc.constantFrom('25h', '0h', '30m')),
});
const team = fc.record({
  instanceCategories: mostly(fc.subarray(['c', 'm', 'r'], { minLength: 1 }), fc.constant<string[]>(['x'])),
  disruption: fc.record({ budgets: fc.array(fc.record({ nodes: fc.constantFrom('10%', '0', '1'), schedule, duration: fc.constantFrom('8h', '1h') }), { minLength: 1, maxLength: 2 }) }),
  pools: fc.dictionary(name, fc.record({ weight: fc.integer({ min: 1, max: 100 }) }), { maxKeys: 2 }),
}, { requiredKeys: [] });

const fleet = fc.record({
  clusters: fc.uniqueArray(name, { minLength: 1, maxLength: 3 }),
  teams: fc.dictionary(name, team, { minKeys: 1, maxKeys: 3 }),
  windows: fc.dictionary(name, window, { maxKeys: 2 }),
  revision, repoURL,
  useWindow: fc.boolean(),
});

/** A run's output, checked for a crash: exit 0, or 1 with every line a located problem or a note. */
function noCrash(what: string, r: CliResult): void {
  expect({ what, code: [0, 1].includes(r.code) ? 'ok' : r.code, crash: CRASH.exec(`${r.out}\n${r.err}`)?.[0] ?? null }).toEqual({ what, code: 'ok', crash: null });
}

describe('fuzzing the command line with hostile names, schedules, windows, revisions and repositories', () => {
  it('never crashes: every run exits 0, or 1 with located problems', async () => {
    let synthesized = 0;
    await fc.assert(fc.asyncProperty(fleet, async ({ clusters, teams, windows, revision: targetRevision, repoURL: url, useWindow }) => {
      const windowNames = Object.keys(windows);
      const config = {
        gitops: { repoURL: url, targetRevision },
        karpenter: { version: '1.14.1' },
        ...(windowNames.length ? { windows } : {}),
        clusters: Object.fromEntries(clusters.map((c, i) => [c, {
          terraformOutputs: `terraform/${c}.json`, ...(i > 0 ? { destination: { name: c } } : {}),
          ...(useWindow && windowNames.length ? { window: windowNames[i % windowNames.length] } : {}),
        }])),
        defaults: { ami: { alias: 'al2023@v20250505' }, limits: { cpu: '100', memory: '400Gi' } },
        teams,
      };
      const project = writeProject({ rawConfig: stringify(config), terraform: Object.fromEntries(clusters.map((c) => [c, aTerraform({ cluster_name: c })])) });
      const at = ['--config', project.configPath, '--outdir', project.dir];
      const synth = await cli(['synth', ...at]);
      noCrash('synth', synth);
      if (synth.code !== 0) return;
      synthesized++;
      noCrash('check', await cli(['check', ...at]));
      const git = (...args: string[]) => execFileSync('git', ['-C', project.dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { stdio: 'pipe' });
      git('init', '-q', '-b', 'main');
      git('add', '-A');
      git('commit', '-q', '-m', 'base');
      noCrash('diff', await cli(['diff', '--base', 'HEAD', ...at]));
    }), { seed: 20261207, numRuns: 50, endOnFailure: true });
    // The generator must make some configs synth accepts, or the property says little of check and diff.
    expect(synthesized).toBeGreaterThan(5);
  }, 240_000);
});

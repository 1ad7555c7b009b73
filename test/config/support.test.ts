/**
 * Karpenter's support of each minor (SUPPORT.md: a regular minor until the next minor is
 * released, an LTS minor for 12 months from its release; 1.9 and 1.14 are LTS): synth warns, at
 * the line that sets the version, of a cluster on a minor no longer supported on the day of the
 * run, and SUMMARY.md names those clusters; the day is the clock's unless KARPENTER_GITOPS_TODAY
 * says another (test/setup-date.js fixes it for the suite; these tests pass their own).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runDate, TODAY_VARIABLE, unsupportedClusters } from '../../src/config/support';
import { InputError } from '../../src/input/problems';
import { loadPlan } from '../../src/model/checks';
import { minorSupport, supportEnded } from '../../src/release/support';
import { aConfig, aTerraform, positionOf, removeProjects, writeProject } from '../builders';
import { cli } from '../review/fleet';
import { load, warningsOf } from './helpers';

afterAll(removeProjects);

/** Runs `body` with the run's day set to `day`, then puts the suite's back. */
function on<T>(day: string, body: () => T): T {
  const before = process.env[TODAY_VARIABLE];
  process.env[TODAY_VARIABLE] = day;
  try {
    return body();
  } finally {
    process.env[TODAY_VARIABLE] = before;
  }
}

/** Clusters `old-1` … `old-<n>` in a group on 1.13.1, and `new` on the top-level 1.14.1. */
function fleet(n: number) {
  const old = Array.from({ length: n }, (_, i) => `old-${i + 1}`);
  const clusters = Object.fromEntries([...old.map((id) => [id, { terraformOutputs: `terraform/${id}.json`, labels: { env: 'staging' } }]), ['new', { terraformOutputs: 'terraform/new.json' }]]);
  return {
    config: aConfig({ clusters: { demo: undefined, ...clusters }, groups: { staging: { match: { labels: { env: 'staging' } }, karpenter: { version: '1.13.1' } } } }),
    terraform: Object.fromEntries([...old, 'new'].map((id) => [id, aTerraform({ cluster_name: id })])),
  };
}

describe('support ends (SUPPORT.md)', () => {
  it('ends a regular minor when the next is released, an LTS minor 12 months after its release', () => {
    expect(minorSupport('1.13.1')).toMatchObject({ minor: '1.13', lts: false, ends: '2026-07-10' });
    expect(minorSupport('1.14.1')).toMatchObject({ minor: '1.14', lts: true, ends: '2027-07-10' });
    expect(minorSupport('1.9.3')).toMatchObject({ minor: '1.9', lts: true, ends: '2027-02-06' });
    expect(minorSupport('1.12.2')).toMatchObject({ ends: '2026-06-10' });
    // The newest minor known: supported until one after it is released.
    expect(minorSupport('1.15.1')).toMatchObject({ minor: '1.15', lts: false });
    expect(minorSupport('1.15.1')?.ends).toBeUndefined();
    // A minor the table does not know says nothing.
    expect(minorSupport('1.16.0')).toBeUndefined();
  });

  it('says when and why a minor ended, and which supported minors to move to (never an older one)', () => {
    expect(supportEnded('1.13.1', '2026-07-09')).toBeUndefined();
    expect(supportEnded('1.13.1', '2026-07-10')?.why).toBe('Karpenter 1.13 has been unsupported since 2026-07-10 (a regular release, supported until the next minor, '
      + '1.14.0, was released on 2026-07-10): upgrade to 1.14 (LTS until 2027-07-10)');
    expect(supportEnded('1.13.1', '2026-11-28')?.why).toMatch(/: upgrade to 1\.15 or 1\.14 \(LTS until 2027-07-10\)$/);
    expect(supportEnded('1.14.1', '2027-07-09')).toBeUndefined();
    expect(supportEnded('1.14.1', '2027-07-10')?.why).toMatch(/^Karpenter 1\.14 has been unsupported since 2027-07-10 \(LTS, supported for 12 months from its release on 2026-07-10\)/);
  });
});

describe('the day of the run', () => {
  it('is the clock\'s date in UTC, or KARPENTER_GITOPS_TODAY', () => {
    expect(runDate({}, () => new Date('2026-11-28T23:30:00-05:00'))).toBe('2026-11-29');
    expect(runDate({ [TODAY_VARIABLE]: '2027-07-10' }, () => new Date('2026-11-28T12:00:00Z'))).toBe('2027-07-10');
  });

  it('fails when KARPENTER_GITOPS_TODAY is not a date, saying what it takes', () => {
    for (const bad of ['28.11.2026', '2026-02-30', 'today']) {
      let caught: unknown;
      try {
        runDate({ [TODAY_VARIABLE]: bad });
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(InputError);
      expect((caught as InputError).message).toBe(`KARPENTER_GITOPS_TODAY: must be a date such as 2026-11-28 (the day the run judges Karpenter's support on), got "${bad}"; unset it to use today's`);
    }
  });
});

describe('clusters on an unsupported minor', () => {
  it('warns at the line that sets the version, naming the cluster, the end and what to move to', () => {
    const input = fleet(1);
    const { configText } = writeProject(input);
    const warnings = on('2026-11-28', () => warningsOf(input));
    expect(warnings).toEqual([expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(configText, '1.13.1')}: groups\\.staging\\.karpenter\\.version: cluster old-1 runs Karpenter 1\\.13\\.1: `
      + 'Karpenter 1\\.13 has been unsupported since 2026-07-10 \\(a regular release, supported until the next minor, 1\\.14\\.0, was released on 2026-07-10\\): upgrade to 1\\.15 or 1\\.14 \\(LTS until 2027-07-10\\)$'))]);
  });

  it('warns of nothing on a day the minor is still supported', () => {
    expect(on('2026-07-09', () => warningsOf(fleet(1)))).toEqual([]);
  });

  it('warns of an LTS minor once its 12 months are over', () => {
    expect(on('2027-07-10', () => warningsOf({ config: aConfig() }))).toEqual([
      expect.stringMatching(/karpenter\.version: cluster demo runs Karpenter 1\.14\.1: Karpenter 1\.14 has been unsupported since 2027-07-10 \(LTS, supported for 12 months from its release on 2026-07-10\)/),
    ]);
  });

  it('names them in SUMMARY.md, one line: how many, the first few, the end and why', () => {
    const { plan } = on('2026-11-28', () => loadPlan(writeProject(fleet(5)).configPath));
    const lines = plan.summary.model.split('\n').filter((l) => l.includes('Unsupported Karpenter'));
    expect(lines).toEqual(['**Unsupported Karpenter:** 5 cluster(s) run 1.13.1 (`old-1`, `old-2`, `old-3` and 2 more): Karpenter 1.13 has been unsupported since 2026-07-10 '
      + '(a regular release, supported until the next minor, 1.14.0, was released on 2026-07-10): upgrade to 1.15 or 1.14 (LTS until 2027-07-10).']);
    expect(on('2026-07-09', () => loadPlan(writeProject(fleet(5)).configPath)).plan.summary.model).not.toMatch(/Unsupported Karpenter/);
  });

  it('is one derivation: the clusters, by minor, that SUMMARY and the warnings name', () => {
    const { platform } = load(fleet(2));
    expect(unsupportedClusters(platform, '2026-11-28')).toEqual([expect.objectContaining({ minor: '1.13', ends: '2026-07-10', clusters: ['old-1', 'old-2'], versions: ['1.13.1'] })]);
    expect(unsupportedClusters(platform, '2027-07-10').map((m) => [m.minor, m.clusters])).toEqual([['1.13', ['old-1', 'old-2']], ['1.14', ['new']]]);
  });

  it('is what synth prints, and what it writes into dist/SUMMARY.md', async () => {
    const project = writeProject(fleet(1));
    // The suite's day (test/setup-date.js), which the command reads from the environment.
    expect(process.env[TODAY_VARIABLE]).toBe('2026-11-28');
    const r = await cli(['synth', '--config', project.configPath, '--outdir', project.dir]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^warning: .*platform\.yaml:\d+:\d+: groups\.staging\.karpenter\.version: cluster old-1 runs Karpenter 1\.13\.1: Karpenter 1\.13 has been unsupported since 2026-07-10/m);
    expect(readFileSync(join(project.dir, 'dist', 'SUMMARY.md'), 'utf8')).toMatch(/^\*\*Unsupported Karpenter:\*\* 1 cluster\(s\) run 1\.13\.1 \(`old-1`\): /m);
  });
});

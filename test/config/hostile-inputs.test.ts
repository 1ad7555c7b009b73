/**
 * Inputs that are valid names or look like values, and must give a located error or work, never a
 * stack trace (issue 47): a team, cluster and pool named `constructor` (a DNS label, and a key of
 * every JavaScript object's prototype), schedules for days that never occur, revisions and
 * repositories that are paths.
 */
import { synthesize } from '../../src/synth';
import { aCluster, aPlatform, aPool } from '../pool-builders';
import { problemsOf } from './helpers';

describe('names that are keys of Object.prototype', () => {
  it('synthesizes a cluster, a team and a pool named constructor', () => {
    const files = synthesize(aPlatform([aCluster([aPool({}, { name: 'constructor', team: 'constructor' })], { id: 'constructor' })]));
    expect(files.get('dist/constructor/nodepools/constructor/constructor.yaml')).toMatch(/^kind: NodePool\nmetadata:\n(?:  .*\n|    .*\n)*?  name: constructor\n/m);
  });
});

describe('values that Karpenter or Argo CD would read otherwise', () => {
  const config = (gitops: string[], budget = '{ nodes: "10%" }') => ({
    rawConfig: [
      'gitops:', ...gitops.map((l) => `  ${l}`),
      'karpenter: { version: 1.14.1 }',
      'clusters:',
      '  demo: { terraformOutputs: terraform/demo.json }',
      'defaults: { ami: { alias: al2023@v20250505 }, limits: { cpu: "100", memory: 400Gi } }',
      'teams:',
      `  web: { disruption: { budgets: [${budget}] } }`,
    ].join('\n'),
  });
  const REPO = 'repoURL: https://github.com/acme/platform-gitops.git';

  it.each(['0 0 30 2 *', '0 0 31 4 *', '0 0 31 6,9 *'])('refuses the schedule %s, a day that never occurs: a budget with it would be active at all times', (schedule) => {
    expect(problemsOf(config([REPO], `{ nodes: "0", schedule: "${schedule}", duration: 8h }`))).toEqual([
      expect.stringMatching(/platform\.yaml:8:\d+: teams\.web\.disruption\.budgets\[0\]\.schedule: day of month "\d+" never occurs in month "[\d,]+": Karpenter finds no time for this schedule, and a budget whose schedule never fires is active at all times/),
    ]);
  });

  it('accepts a leap day (it occurs every four years)', () => {
    expect(() => problemsOf(config([REPO], '{ nodes: "0", schedule: "0 0 29 2 *", duration: 8h }'))).toThrow(/expected an InputError, but the project loaded/);
  });

  it.each([['../../main', /has "\.\.", "@\{" or "\/\/"/], ['file:///etc/passwd', /has a character git refuses/], ['main\\nHEAD', /no spaces, line breaks or control characters/], ['-main', /starts or ends/]])('refuses targetRevision %s at its line', (revision, why) => {
    expect(problemsOf(config([REPO, `targetRevision: "${revision}"`]))).toEqual([expect.stringMatching(new RegExp(`platform\\.yaml:3:\\d+: gitops\\.targetRevision: .*${why.source}`))]);
  });

  it.each(['file:///etc/passwd', '/srv/git/platform.git', 'https://github.com/acme/x.git\\nfoo', 'https://github.com/acme/x .git'])('refuses repoURL %s at its line', (url) => {
    expect(problemsOf(config([`repoURL: "${url}"`]))).toEqual([expect.stringMatching(/platform\.yaml:2:\d+: gitops\.repoURL: .*must be a git repository URL Argo CD can clone/)]);
  });
});

describe('every mistake of an edit in one run', () => {
  it('reports a time-zone typo and the mistakes that do not depend on it, without echoing "unknown window"', () => {
    const problems = problemsOf({
      rawConfig: [
        'gitops: { repoURL: https://github.com/acme/platform-gitops.git }',
        'karpenter: { version: 1.14.1 }',
        'windows: { nightly: { timeZone: Europe/Berln, days: [tue], start: "02:00", duration: 4h } }',
        'clusters:',
        '  demo: { terraformOutputs: terraform/demo.json, window: nightly }',
        'defaults: { ami: { alias: al2023@v20250505 }, limits: { cpu: "100", memory: 400Gi } }',
        'teams: { web: { instanceFamilies: [m7l] } }',
      ].join('\n'),
    });
    expect(problems).toEqual([
      expect.stringMatching(/platform\.yaml:3:\d+: windows\.nightly\.timeZone: unknown time zone "Europe\/Berln"/),
      expect.stringMatching(/platform\.yaml:7:\d+: teams\.web\.instanceFamilies\[0\]: no instance type has karpenter\.k8s\.aws\/instance-family=m7l/),
    ]);
  });
});

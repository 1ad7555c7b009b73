/**
 * `windows` and `clusters.<id>.window` / `stage` (issue 24, contract section 6.7): what the
 * loader accepts and where it points when it does not.
 */
import { aConfig, removeProjects } from '../builders';
import { load, problemsOf, warningsOf } from './helpers';

afterAll(removeProjects);

const BERLIN = { timeZone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu'], start: '22:00', duration: '6h' };
const withWindow = (window: Record<string, unknown>, cluster: Record<string, unknown> = { window: 'weeknights' }, rest: Record<string, unknown> = {}) =>
  ({ config: aConfig({ windows: { weeknights: window }, clusters: { demo: cluster }, ...rest }) });

describe('windows', () => {
  it('gives the cluster its window and stage', () => {
    const { platform } = load(withWindow(BERLIN, { window: 'weeknights', stage: 1 }));
    expect(platform.clusters[0].window).toEqual({ name: 'weeknights', ...BERLIN });
    expect(platform.clusters[0].stage).toBe(1);
  });

  it('fails when the time zone is unknown, at timeZone', () => {
    expect(problemsOf(withWindow({ ...BERLIN, timeZone: 'Europe/Berlinn' }))).toEqual([
      expect.stringMatching(/platform\.yaml:\d+:\d+: windows\.weeknights\.timeZone: unknown time zone "Europe\/Berlinn": use an IANA name/),
    ]);
  });

  it('fails when no minute survives the daylight-saving shift, at duration, naming the offsets', () => {
    expect(problemsOf(withWindow({ ...BERLIN, duration: '1h' }))).toEqual([
      expect.stringMatching(/windows\.weeknights\.duration: 1h leaves no minute for Drifted nodes: Europe\/Berlin is UTC\+01:00 or UTC\+02:00.*shifts by 60m/),
    ]);
  });

  it('fails when the window is shorter than Argo CD can act in', () => {
    expect(problemsOf(withWindow({ ...BERLIN, timeZone: 'UTC', duration: '10m' }))).toEqual([expect.stringMatching(/windows\.weeknights\.duration: is shorter than 15m/)]);
  });

  it('fails when a key is unknown, a day is misspelt or the start is not HH:MM', () => {
    const problems = problemsOf(withWindow({ ...BERLIN, days: ['mon', 'tues'], start: '10pm', tz: 'x' }));
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(/windows\.weeknights\.days\[1\]:/),
      expect.stringMatching(/windows\.weeknights\.start: .*"HH:MM"/),
      expect.stringMatching(/windows\.weeknights.*tz/),
    ]));
  });

  it('fails when a cluster names an unknown window, with a did-you-mean', () => {
    expect(problemsOf(withWindow(BERLIN, { window: 'weeknight' }))).toEqual([
      expect.stringMatching(/clusters\.demo\.window: unknown window "weeknight" \(did you mean "weeknights"\?\)/),
    ]);
  });

  it('warns at a team budget that keeps Drifted at zero through the whole window', () => {
    const input = withWindow(BERLIN, { window: 'weeknights' }, { teams: { web: { disruption: { budgets: [{ nodes: '10%' }, { nodes: '0', reasons: ['Drifted'] }] } } } });
    expect(warningsOf(input)).toEqual(expect.arrayContaining([
      expect.stringMatching(/teams\.web\.disruption\.budgets\[1\]: keeps Drifted disruptions at 0 through every minute of cluster demo's window weeknights/),
    ]));
    const scheduled = withWindow(BERLIN, { window: 'weeknights' }, { teams: { web: { disruption: { budgets: [{ nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h' }] } } } });
    expect(warningsOf(scheduled).filter((w) => /keeps Drifted/.test(w))).toEqual([]);
  });
});

describe('clusters.<id>.stage', () => {
  it('fails when a stage skips one (1 and 3 without 2), at the later stage', () => {
    const config = aConfig({ clusters: { demo: { stage: 1 }, prod: { terraformOutputs: 'terraform/demo.json', stage: 3 } } });
    expect(problemsOf({ config })).toEqual(expect.arrayContaining([
      expect.stringMatching(/clusters\.prod\.stage: stage 3 waits for stage 2, and no cluster is at stage 2/),
    ]));
  });
});

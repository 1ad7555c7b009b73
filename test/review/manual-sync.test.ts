/**
 * A cluster whose Applications sync by hand (`manualSync: true`, as adopt writes it) in review
 * (issue 44): Argo CD never syncs such an Application by itself (argo-cd v3.5.1
 * controller/appcontroller.go l. 2332-2334: `autoSync` returns when automated sync is off), so
 * the review says its changes happen "manual: when someone syncs it", never at merge or at its
 * stage's promotion, beside clusters of the same stage that sync on their own. Through the real
 * `diff` command on a fleet in a git repository: `dev` (stage 1), `prod` (stage 2) and `adopted`
 * (stage 2, manualSync).
 */
import { aFleetConfig, Fleet, removeFleets } from './fleet';
import { CHART_VERSION } from '../../src/release/chart-values-keys.generated';
import { MANUAL_SYNC } from '../../src/review/timeline';

afterAll(removeFleets);

const STAGE_2 = 'when stage 2 is promoted: after every stage-1 cluster has it and Karpenter has finished with it there (its drift gate)';
const WHY = 'its Applications have no automated sync (manualSync: true), so Argo CD never syncs them by itself';

/** The fleet, on AMI alias `alias` with `replicas` controller replicas; `adopted` syncs by hand unless `manual` is false. */
function config(alias: string, manual = true, replicas?: number) {
  return aFleetConfig(['dev', 'prod', 'adopted'], {
    clusters: { dev: { stage: 1 }, prod: { stage: 2 }, adopted: { stage: 2, ...(manual ? { manualSync: true } : {}) } },
    defaults: { ami: { alias } },
    ...(replicas !== undefined ? { karpenter: { version: CHART_VERSION, controller: { replicas } } } : {}),
  });
}

describe('an AMI bump reaching a cluster synced by hand', () => {
  let text: string;
  let markdown: string;
  beforeAll(async () => {
    const fleet = await Fleet.create(config('al2023@v20250505'));
    fleet.configure(config('al2023@v20250601'));
    const r = await fleet.diff();
    expect(r.code).toBe(0);
    text = r.out;
    markdown = (await fleet.diff('--format', 'markdown')).out;
  }, 120_000);

  it('says in the rollout that the manual cluster gets it when someone syncs it, and the automated one of the same stage at the promotion', () => {
    const lines = text.split('\n');
    const prod = lines.find((l) => l.includes('stage 2, no window: 1 cluster (prod)'));
    const adopted = lines.find((l) => l.includes('stage 2, no window: 1 cluster (adopted)'));
    expect(prod).toContain(`synced ${STAGE_2}`);
    expect(adopted).toContain(`: ${MANUAL_SYNC} — ${WHY}; in git ${STAGE_2}`);
    expect(adopted).toContain('npm run promote does not wait for it; drifted nodes replaced once someone syncs it, then at once (no window)');
    // Never the promotion's "synced when stage 2 is promoted" for the manual cluster.
    expect(adopted).not.toMatch(/synced when stage 2 is promoted/);
  });

  it('draws the manual cluster in the Gantt chart as a milestone waiting for a person, not a bar of replacements, with no colon in its name', () => {
    const gantt = markdown.split('```mermaid\n')[1]?.split('```')[0] ?? '';
    const task = gantt.split('\n').find((l) => l.includes('(1 cluster), manual'));
    expect(task).toMatch(/^ {2}no window \(1 cluster\), manual, when someone syncs it, not before this :milestone, s[0-9]+, [-0-9 :]+, 0m$/);
    expect(task!.split(' :')[0]).not.toMatch(/:/);
    // The automated cluster of the stage keeps its bar.
    expect(gantt).toMatch(/^ {2}no window \(1 cluster\), at once, estimate 2h :s[0-9]+, /m);
  });

  it('makes one step of both clusters of stage 2, synced at the promotion, once manualSync is gone (the switch to automated sync)', async () => {
    const fleet = await Fleet.create(config('al2023@v20250505', false));
    fleet.configure(config('al2023@v20250601', false));
    const r = await fleet.diff();
    expect(r.out).toContain(`stage 2, no window: 2 clusters (prod, adopted), 4 of its resources: synced ${STAGE_2}`);
    expect(r.out).not.toContain(MANUAL_SYNC);
  }, 120_000);
});

describe('a controller change on a cluster synced by hand', () => {
  it('says "manual: when someone syncs it" for its controller and CRD changes, at merge or the promotion for the others', async () => {
    const fleet = await Fleet.create(config('al2023@v20250505', true, 2));
    fleet.configure(config('al2023@v20250505', true, 3));
    const r = await fleet.diff();
    const when = r.out.split('\n').filter((l) => l.includes('the controller and CRD changes'));
    expect(when).toEqual([
      '  cluster dev: the controller and CRD changes: at merge, at once (no window)',
      expect.stringMatching(new RegExp(`^ {2}cluster prod: the controller and CRD changes: ${STAGE_2.replace(/[()]/g, '\\$&')} — estimate: not before .*, at once \\(no window\\)$`)),
      expect.stringMatching(new RegExp(`^ {2}cluster adopted: the controller and CRD changes: ${MANUAL_SYNC} — ${WHY.replace(/[()]/g, '\\$&')}; in git ${STAGE_2.replace(/[()]/g, '\\$&')} — estimate: not before .*; npm run promote does not wait for it$`)),
    ]);
  }, 120_000);
});

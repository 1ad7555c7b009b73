/**
 * When each change happens, in review (issue 37, contract 8.4): the controller and CRDs, a
 * cluster removed or added, a window changed (in its own time zone, with the UTC minutes kept),
 * and the rollout of later stages after the earlier ones, soak and approval included. The staged
 * fleet of the rollout simulations (test/support/rollout-fleet.ts): `dev` (stage 1), `staging`
 * (stage 2), `prod-eu` (stage 3, Europe/Berlin Mon–Thu 22:00 for 6h) and `prod-us` (stage 3,
 * America/New_York Mon–Fri 20:00 for 6h). The reports are counted from a fixed head commit time,
 * Tuesday 2027-01-12 09:00 UTC (winter: Berlin is UTC+1, New York UTC-5).
 */
import { review } from '../../src/review/changes';
import { markdownReport, terminalReport } from '../../src/review/report';
import { summaryDataOf } from '../../src/review/summary-data';
import { GeneratedTree } from '../../src/review/tree';
import { synthesize } from '../../src/synth';
import { aTerraform, removeProjects } from '../builders';
import { load } from '../config/helpers';
import { hasChromium, mermaidBlocks, parseMermaid, renderMermaid } from '../support/mermaid';
import { Config, fleetConfig as rolloutConfig } from '../support/rollout-fleet';

afterAll(removeProjects);

const AT = new Date('2027-01-12T09:00:00Z');

/** The rollout fleet's config, a copy of its own (the fleet's windows are shared objects), edited. */
function fleetConfig(edit: (c: Config) => void = () => undefined): Config {
  const config = structuredClone(rolloutConfig());
  edit(config);
  return config;
}

/** The files a config makes, each cluster with Terraform outputs of its own. */
function synth(config: Config): Map<string, string> {
  const terraform = Object.fromEntries(Object.keys(config.clusters as object).map((c) => [c, aTerraform({ cluster_name: c })]));
  return synthesize(load({ config, terraform }).platform);
}

/** The terminal and markdown reports of a pull request from `before` to `after`, counted from {@link AT}. */
function reports(before: Config, after: Config): { text: string; markdown: string } {
  const base = new GeneratedTree(synth(before), 'origin/main');
  const head = new GeneratedTree(synth(after), 'the working tree');
  const data = summaryDataOf(head);
  if (!('data' in data)) throw new Error(data.missing);
  const result = review(base, head);
  const fleet = { data: data.data, at: AT };
  return { text: terminalReport(result, 'origin/main', { fleet }), markdown: markdownReport(result, 'origin/main', { fleet }) };
}

/** The lines of the terminal report's "when" section. */
function whenSection(text: string): string[] {
  const lines = text.split('\n');
  const from = lines.findIndex((l) => l.startsWith('When each change happens, by cluster'));
  if (from < 0) return [];
  return lines.slice(from + 1, lines.indexOf('', from));
}

const STAGE_2 = 'when stage 2 is promoted: after every stage-1 cluster has it and Karpenter has finished with it there (its drift gate)';
const STAGE_3 = 'when stage 3 is promoted: after every stage-2 cluster has it and Karpenter has finished with it there (its drift gate)';

describe('when the controller and CRDs change', () => {
  const on = (version: string) => fleetConfig((c) => {
    c.karpenter.version = version;
    delete c.teams.batch.buffer;
    c.clusters['prod-eu'].karpenter = { syncInWindow: true };
  });
  const { text } = reports(on('1.13.1'), on('1.14.1'));

  it('says at merge on stage 1, at the promotion on later stages, and only in the window with karpenter.syncInWindow (else at once, whatever the window)', () => {
    // A controller upgrade replaces no node: stage 1 is done once its gate has settled (10 minutes), stage 2 as much later.
    expect(whenSection(text)).toEqual([
      '  cluster dev: the controller and CRD changes: at merge, at once (no window)',
      `  cluster staging: the controller and CRD changes: ${STAGE_2} — estimate: not before 2027-01-12 09:10 UTC, at once (no window)`,
      `  cluster prod-eu: the controller and CRD changes: ${STAGE_3} — estimate: not before 2027-01-12 09:20 UTC, then only in window eu (karpenter.syncInWindow): from 2027-01-12 21:00 UTC (Tue 22:00 Europe/Berlin) (estimate)`,
      `  cluster prod-us: the controller and CRD changes: ${STAGE_3} — estimate: not before 2027-01-12 09:20 UTC, at once — window us does not hold them (karpenter.syncInWindow is off)`,
    ]);
  });

  it('says the times are counted from the head commit', () => {
    expect(text.split('\n')[0]).toBe('karpenter-gitops diff: origin/main -> working tree (times from the head commit, 2027-01-12 09:00 UTC)');
  });
});

describe('when the tenancy policy changes (issue 43)', () => {
  const access = (c: Config) => { c.teams.batch.namespaces = ['batch', 'batch-etl']; };

  it('says at merge on stage 1, at the promotion on later stages, and at once whatever the window: access is not node churn', () => {
    const { text } = reports(fleetConfig(), fleetConfig(access));
    expect(whenSection(text)).toEqual([
      '  cluster dev: the tenancy policy changes: at merge, at once (no window)',
      `  cluster staging: the tenancy policy changes: ${STAGE_2} — estimate: not before 2027-01-12 09:10 UTC, at once (no window)`,
      ...['eu', 'us'].map((w) => `  cluster prod-${w}: the tenancy policy changes: ${STAGE_3} — estimate: not before 2027-01-12 09:20 UTC, `
        + `at once — window ${w} does not hold them (access is not node churn; a guarded team's pools wait for their policy)`),
    ]);
  });

  it('says a new pool of a guarded team in the window, its policy at once; its guard gate\'s change is no change of its own to time', () => {
    const { text } = reports(fleetConfig(), fleetConfig((c) => { access(c); c.teams.batch.pools = { big: { instanceFamilies: ['m7i'] } }; }));
    const prodEu = whenSection(text).filter((l) => l.startsWith('  cluster prod-eu:'));
    expect(prodEu).toEqual([
      `  cluster prod-eu: the pool changes: ${STAGE_3} — estimate: not before 2027-01-12 09:20 UTC, then only in window eu: from 2027-01-12 21:00 UTC (Tue 22:00 Europe/Berlin) (estimate)`,
      `  cluster prod-eu: the tenancy policy changes: ${STAGE_3} — estimate: not before 2027-01-12 09:20 UTC, at once — window eu does not hold them (access is not node churn; a guarded team's pools wait for their policy)`,
    ]);
    expect(text).toMatch(/^ {2}📝 Job changed ×4 on 4 clusters: the pools it waits to see guarded \(their guard digest\): [0-9a-f]{16} -> [0-9a-f]{16} — a hook: it runs at the next sync of the team's pools, no node is touched$/m);
  });
});

describe('when a cluster is removed or added', () => {
  it('says loudly that a removal happens at merge, skipping the cluster\'s stage and window, before every change by cluster', () => {
    const { text, markdown } = reports(fleetConfig(), fleetConfig((c) => { delete c.clusters['prod-us']; }));
    const removal = '🛑 cluster prod-us: REMOVED AT MERGE, skipping its stage 3 and its window us: no promotion, soak or sync window holds it — '
      + 'the bootstrap tracks gitops.targetRevision, never a stage ref, and prunes the cluster\'s root at its next sync; the root\'s resources finalizer '
      + 'then deletes every Application of the cluster and what each deployed (the 🛑 lines below)';
    expect(whenSection(text)).toEqual([`  ${removal}`]);
    expect(text.indexOf(removal)).toBeLessThan(text.indexOf('Every change, by cluster:'));
    expect(markdown).toContain(`- ${removal}`);
  });

  it('says a removal even in a report with no plan to time the rest with (no head summary given)', () => {
    const base = new GeneratedTree(synth(fleetConfig()), 'origin/main');
    const head = new GeneratedTree(synth(fleetConfig((c) => { delete c.clusters['prod-us']; })), 'the working tree');
    expect(terminalReport(review(base, head), 'origin/main')).toMatch(/^ {2}🛑 cluster prod-us: REMOVED AT MERGE, skipping its stage 3 and its window us: /m);
  });

  it('says an added cluster of a later stage is installed at that stage\'s promotion, its pools only in its window', () => {
    const { text } = reports(fleetConfig(), fleetConfig((c) => {
      c.clusters['prod-ap'] = { terraformOutputs: 'terraform/prod-ap.json', stage: 3, window: 'eu', destination: { name: 'prod-ap' } };
    }));
    expect(whenSection(text)).toEqual([
      `  cluster prod-ap: added: installed ${STAGE_3} — estimate: not before 2027-01-12 09:00 UTC; the CRDs, then the controller, then the pools (sync waves); `
        + 'its pools only in window eu, from 2027-01-12 21:00 UTC (Tue 22:00 Europe/Berlin) (estimate); the CRDs and the controller at once (karpenter.syncInWindow is off)',
    ]);
  });
});

describe('when a window changes', () => {
  it('says the window before and after as the config says it, in its own time zone, with the UTC minutes kept, and when each part takes effect', () => {
    const { text, markdown } = reports(fleetConfig(), fleetConfig((c) => {
      c.windows.eu = { timeZone: 'Europe/Berlin', days: ['sun', 'mon', 'tue', 'wed', 'thu'], start: '23:00', duration: '4h' };
    }));
    // Berlin is UTC+1 in winter and UTC+2 in summer: 22:00-04:00 local keeps 21:00-02:00 UTC at both; 23:00-03:00 keeps 22:00-01:00.
    const change = 'cluster prod-eu: window eu (Europe/Berlin): Mon–Thu 22:00 for 6h -> Sun–Thu 23:00 for 4h; '
      + 'kept UTC mon 21:00-tue 02:00, tue 21:00-wed 02:00, wed 21:00-thu 02:00, thu 21:00-fri 02:00 '
      + '-> sun 22:00-mon 01:00, mon 22:00-tue 01:00, tue 22:00-wed 01:00, wed 22:00-thu 01:00, thu 22:00-fri 01:00';
    expect(whenSection(text)).toEqual([
      `  ${change}; the sync windows change when its root syncs (${STAGE_3} — estimate: not before 2027-01-12 09:00 UTC), `
        + 'the NodePools\' budgets and every other pool change from the new window\'s first opening, 2027-01-12 22:00 UTC (Tue 23:00 Europe/Berlin) (estimate)',
    ]);
    expect(markdown).toContain(`- ${change.replace(' -> ', ' → ').replace(' -> ', ' → ')}`);
  });

  it('says a window added and a window removed', () => {
    const added = reports(fleetConfig(), fleetConfig((c) => { c.clusters.staging.window = 'us'; })).text;
    expect(whenSection(added)[0]).toMatch(/^ {2}cluster staging: window none -> us \(America\/New_York\): Mon–Fri 20:00 for 6h; kept UTC tue 01:00-tue 06:00, .*: its pools sync, and its drifted nodes are replaced, only then; /);
    const removed = reports(fleetConfig(), fleetConfig((c) => { delete c.clusters['prod-us'].window; })).text;
    expect(whenSection(removed)[0]).toMatch(/^ {2}cluster prod-us: window us \(America\/New_York\): Mon–Fri 20:00 for 6h -> none: its pools sync, and its drifted nodes are replaced, at any time; .* the NodePools' budgets and every other pool change at once$/);
  });
});

describe('the rollout of later stages, with a soak and an approval', () => {
  const stages = (c: Config) => { c.gitops.stages = { 2: { soak: '24h' }, 3: { soak: '2h', environment: 'production' } }; };
  const { text, markdown } = reports(fleetConfig(stages), fleetConfig((c) => { stages(c); c.defaults.ami.alias = 'al2023@v20250610'; }));

  it('starts each stage no earlier than the stage before\'s estimated finish plus its soak, says it is an estimate, and says the approval it waits for', () => {
    // Stage 1 (dev, no window): drift from 09:00 for the assumed 2h, then the gate's 10 minutes: 11:10; stage 2 a day later.
    expect(text).toContain(`stage 2, no window: 1 cluster (staging), 3 of its resources: synced ${STAGE_2}, then a soak of 24h — estimate: not before 2027-01-13 11:10 UTC; drifted nodes replaced at once (no window)`);
    // Stage 2 (staging) done at 13:20, then 2h of soak; prod-eu's window opens at 21:00 UTC (22:00 Berlin) that Wednesday, not on the merge's Tuesday.
    expect(text).toContain(`stage 3, window eu: 1 cluster (prod-eu), 3 of its resources: synced ${STAGE_3}, then a soak of 2h, then an approval in GitHub environment production `
      + '— estimate: not before 2027-01-13 15:20 UTC plus the wait for approval, then only in window eu; drifted nodes replaced at the earliest 2027-01-13 21:00 UTC (Wed 22:00 Europe/Berlin), '
      + 'the first opening of window eu after stage 3\'s estimated start (estimate)');
    expect(text).toContain('stage 3, window us: 1 cluster (prod-us), 3 of its resources: ');
    expect(text).toMatch(/window us; drifted nodes replaced at the earliest 2027-01-14 01:00 UTC \(Wed 20:00 America\/New_York\), the first opening of window us after stage 3's estimated start \(estimate\)/);
  });

  it('draws each stage after the one before in the Gantt chart: the soak, the approval, every later time labelled an estimate; mermaid parses and renders it', async () => {
    const [gantt] = mermaidBlocks(markdown);
    const tasks = gantt.split('\n').filter((l) => / :/.test(l) && !/^ {2}(title|dateFormat|axisFormat|section)\b/.test(l));
    const at = (id: string) => tasks.find((l) => new RegExp(`:(milestone, )?${id}, `).test(l))?.split(', ').slice(-2)[0];
    expect({ m1: at('m1'), f1: at('f1'), k2: at('k2'), m2: at('m2'), f2: at('f2'), k3: at('k3'), a3: at('a3'), m3: at('m3') }).toEqual({
      m1: '2027-01-12 09:00', f1: '2027-01-12 11:10',
      k2: '2027-01-12 11:10', m2: '2027-01-13 11:10', f2: '2027-01-13 13:20',
      k3: '2027-01-13 13:20', a3: '2027-01-13 15:20', m3: '2027-01-13 15:20',
    });
    expect(gantt).toContain('  soak 24h after stage 1 finishes, estimate :k2, 2027-01-12 11:10, 1440m');
    expect(gantt).toContain('  waits for approval in GitHub environment production :milestone, a3, 2027-01-13 15:20, 0m');
    // Every bar of a later stage (its windows' openings too) is an estimate, and never before the stage's promotion.
    const section = (n: number) => gantt.split(`section Stage ${n}\n`)[1].split('  section')[0].split('\n').filter((l) => l.includes(' :'));
    for (const n of [2, 3]) {
      for (const task of section(n)) expect(task.split(' :')[0]).toMatch(/estimate|approval/);
    }
    expect(section(3).find((l) => l.startsWith('  window eu (1 cluster), estimate :'))).toMatch(/, 2027-01-13 21:00, 300m$/);
    for (const task of tasks) expect(task.split(' :')[0]).not.toMatch(/:/);
    expect(await parseMermaid([gantt])).toEqual([undefined]);
    if (!hasChromium()) return;
    const [rendered] = await renderMermaid([gantt]);
    expect(rendered.error).toBeUndefined();
    expect(rendered.svg).toMatch(/waits for approval in GitHub environment production/);
  }, 60_000);
});

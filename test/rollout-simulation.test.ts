/**
 * Changes rolling through a staged fleet, simulated minute by minute (test/support/fleet-sim.ts):
 * `dev` (stage 1), `staging` (stage 2), `prod-eu` and `prod-us` (stage 3, each with a window),
 * teams `web`, `ml` and `batch` (with a CapacityBuffer and a tenancy policy), a fleet-wide
 * NodeOverlay. Each commit of the simulated repository is `synthesize()` of a config; Argo CD,
 * Karpenter, the API server, the drift gate's pod and the promotion CI job of docs/windows.md
 * are models written from their sources (each model's file cites them), fed only with the
 * generated files. An oracle, independent of the gate and of `npm run promote`, says when a
 * cluster has finished a commit.
 *
 * Checked at every simulated minute of every scenario (FleetSim `violations`, expected empty): no
 * drifted node replaced outside its cluster's window (in local time, as configured); no
 * Application of a stage-N cluster starts syncing a commit that a stage-(N-1) cluster has not
 * finished; no root or bootstrap operation Running for more than two reconciles; a windowed
 * Application that waits is Healthy to its health check, and its root does not wait on it; no
 * object refused by the API server, no sync Failed, no Job Failed.
 *
 * `ROLLOUT_REPORT=1` prints each scenario's timeline.
 */
import { helmTemplate } from './support/helm';
import { renderChart } from './support/karpenter-chart';
import { removeProjects } from './builders';
import {
  after, AMI_AND_OVERLAY, AMI_BUMP, CLUSTERS, convergedFleet, DAY, describeTimeline, firstTime, fleetConfig, gateWaits, HOUR, iso, NODECLAIMS, ONE_RECONCILE,
  replacementsByDay, START, synth, syncsOf, timeline, TUESDAY, aFleet,
} from './support/rollout-fleet';

afterAll(removeProjects);

/** Lines for the report (printed with ROLLOUT_REPORT=1). */
const REPORT: string[] = [];
afterAll(() => {
  if (process.env.ROLLOUT_REPORT) console.log(REPORT.join('\n'));
});

describe('a staged fleet in simulated time (dev stage 1, staging stage 2, prod-eu and prod-us stage 3 with windows)', () => {
  it('0. comes up with no stage ref: later stages wait (ComparisonError), and each ref is created once the stage before has finished', () => {
    const fleet = aFleet(fleetConfig(), { refsAtStart: [] });
    fleet.check();
    const stagingUnresolved = firstTime(fleet, () => {
      const root = fleet.inCluster.get('Application', 'staging-karpenter-root', 'argocd');
      return JSON.stringify(root?.status ?? {}).includes("unable to resolve 'karpenter-gitops/stage-2' to a commit SHA");
    });
    const ok = fleet.runUntilTrue(() => fleet.converged(), START + 2 * DAY);
    const sha = fleet.git.resolve('main')!;
    const line = timeline(fleet, sha, START);
    REPORT.push(describeTimeline('0. a new fleet', line));
    REPORT.push(`   staging root ComparisonError (unresolved ref) from ${after(START, stagingUnresolved())}; longest root or bootstrap operation: ${Math.max(...fleet.longestRootOperation.values()) / 60_000}m`);
    expect(ok).toBe(true);
    expect(stagingUnresolved()).toBeDefined();
    expect(line['stage-2']).toBeGreaterThanOrEqual(line.dev!);
    expect(line['stage-3']).toBeGreaterThanOrEqual(line.staging!);
    expect(fleet.violations).toEqual([]);
  });

  it('1. rolls a pool change (an AMI release) dev, then staging, then prod, each stage once every cluster before it has replaced its nodes', () => {
    const fleet = convergedFleet();
    fleet.runUntil(TUESDAY);
    const sha = fleet.commit(synth(fleetConfig(AMI_BUMP)), 'C1: AMI al2023@v20250610');
    const ok = fleet.runUntilTrue(() => ['prod-eu', 'prod-us'].every((c) => fleet.finishedAt(c, sha) !== undefined), TUESDAY + 2 * DAY);
    const line = timeline(fleet, sha, TUESDAY);
    REPORT.push(describeTimeline('1. AMI change', line));
    REPORT.push(`   replacements by UTC day: ${[...fleet.clusters.keys()].map((c) => `${c} ${replacementsByDay(fleet, c, TUESDAY)}`).join('; ')}`);
    expect(ok).toBe(true);
    // Each push happened once the oracle (not the gate) saw every cluster of the stage before finish.
    expect(line['stage-2']).toBeGreaterThanOrEqual(line.dev!);
    expect(line['stage-3']).toBeGreaterThanOrEqual(line.staging!);
    // prod's pool Applications waited OutOfSync on their windows (stage 3 had C1 from +60m), their health check Healthy meanwhile.
    const waits = fleet.windowWaits.filter((w) => w.at >= TUESDAY);
    REPORT.push(`   minutes checked while a prod pool Application waited on its window: ${waits.length} (child health ${[...new Set(waits.map((w) => w.childHealth))].join()}, root health ${[...new Set(waits.map((w) => w.rootHealth))].join()})`);
    expect(waits.length).toBeGreaterThan(0);
    expect(new Set(waits.map((w) => `${w.childHealth}/${w.rootHealth}`))).toEqual(new Set(['Healthy/Healthy']));
    const replaced = (c: string) => fleet.clusters.get(c)!.karpenter.disruptions.filter((d) => d.at >= TUESDAY).length;
    expect(CLUSTERS.map(replaced)).toEqual(CLUSTERS.map(() => NODECLAIMS.web + NODECLAIMS['ml-gpu'] + NODECLAIMS.batch));
    expect(fleet.violations).toEqual([]);
  });

  // Fails on this branch: the CI job promotes stage 3 from stage 2's ref, which still names the
  // reverted commit; staging finishes it before the revert reaches staging, and stage 3 gets it.
  it('2. a revert while staging drifts: dev syncs it at its first comparison, and no stage ref receives the reverted commit afterwards', () => {
    const fleet = convergedFleet();
    fleet.runUntil(TUESDAY);
    // C1 changes the pools (staging drifts) and an overlay (its Application has no window: a stage-3 cluster applies it as soon as stage 3 has it).
    const c1 = fleet.commit(synth(fleetConfig(AMI_AND_OVERLAY)), 'C1: AMI al2023@v20250610, savings-plan -30%');
    const prodOverlay = (cluster: string) => fleet.clusters.get(cluster)!.api.get('NodeOverlay', 'savings-plan')?.appliedJson.includes('"-30%"') === true;
    const ranFrom = firstTime(fleet, () => prodOverlay('prod-eu'));
    const prodRanC1 = { from: ranFrom, to: firstTime(fleet, () => ranFrom() !== undefined && !prodOverlay('prod-eu')) };
    expect(fleet.runUntilTrue(() => fleet.clusters.get('staging')!.karpenter.disruptions.some((d) => d.at > TUESDAY), TUESDAY + 6 * HOUR)).toBe(true);
    const revertAt = fleet.now;
    expect(gateWaits(fleet, 'staging')).toBe(true);
    const c2 = fleet.commit(synth(fleetConfig()), 'C2: Revert "C1"');
    const ok = fleet.runUntilTrue(() => CLUSTERS.every((c) => fleet.finishedAt(c, c2) !== undefined), revertAt + 2 * DAY);
    const devSync = syncsOf(fleet, 'dev-pools-', c2)[0]?.at;
    const late = fleet.git.pushes.filter((p) => p.to === c1 && p.at > revertAt);
    REPORT.push(describeTimeline('2. C1 (reverted)', timeline(fleet, c1, TUESDAY)));
    REPORT.push(describeTimeline('2. C2 (the revert)', timeline(fleet, c2, revertAt)));
    REPORT.push(`   revert at ${iso(revertAt)} while staging's gate waits; dev started syncing it ${after(revertAt, devSync)}; pushes of C1 after the revert: ${late.map((p) => `${p.ref} ${after(revertAt, p.at)}`).join(', ') || 'none'}`);
    REPORT.push(`   prod-eu ran C1's NodeOverlay from ${after(revertAt, prodRanC1.from())} to ${after(revertAt, prodRanC1.to())} after the revert`);
    expect(ok).toBe(true);
    expect(devSync! - revertAt).toBeLessThanOrEqual(ONE_RECONCILE);
    expect(late).toEqual([]);
    expect(fleet.violations).toEqual([]);
  });

  it('2b. a revert while dev\'s own gate waits: dev syncs it at its first comparison and replaces the gate Job; stage 2 never gets the reverted commit', () => {
    const fleet = convergedFleet();
    fleet.runUntil(TUESDAY);
    const c1 = fleet.commit(synth(fleetConfig(AMI_BUMP)), 'C1: AMI al2023@v20250610');
    expect(fleet.runUntilTrue(() => fleet.clusters.get('dev')!.karpenter.disruptions.some((d) => d.at > TUESDAY), TUESDAY + HOUR)).toBe(true);
    const revertAt = fleet.now;
    expect(gateWaits(fleet, 'dev')).toBe(true);
    const gateJob = (fleet.clusters.get('dev')!.api.list('Job')[0]).name;
    const c2 = fleet.commit(synth(fleetConfig()), 'C2: Revert "C1: AMI al2023@v20250610"');
    const ok = fleet.runUntilTrue(() => CLUSTERS.every((c) => fleet.finishedAt(c, c2) !== undefined), revertAt + 2 * DAY);
    const devSync = syncsOf(fleet, 'dev-pools-', c2)[0]?.at;
    REPORT.push(describeTimeline('2b. C2 (revert during dev\'s drift)', timeline(fleet, c2, revertAt)));
    REPORT.push(`   dev started syncing the revert ${after(revertAt, devSync)}; C1 pushed to: ${fleet.git.pushes.filter((p) => p.to === c1).map((p) => p.ref).join(', ') || 'no stage'}`);
    expect(ok).toBe(true);
    expect(devSync! - revertAt).toBeLessThanOrEqual(ONE_RECONCILE);
    expect(fleet.clusters.get('dev')!.api.list('Job').map((j) => j.name)).not.toContain(gateJob);
    expect(fleet.git.pushes.filter((p) => p.to === c1)).toEqual([expect.objectContaining({ ref: 'main' })]);
    expect(fleet.violations).toEqual([]);
  });

  it('3. upgrades Karpenter 1.13.1 to 1.14.1 on a stage-N cluster only through its stage ref, after the stage before finished', () => {
    const on = (version: string) => fleetConfig((c) => { c.karpenter.version = version; delete c.teams.batch.buffer; });
    const fleet = convergedFleet(on('1.13.1'));
    fleet.runUntil(TUESDAY);
    const runs = Object.fromEntries(CLUSTERS.map((c) => [c, firstTime(fleet, () => fleet.clusters.get(c)!.karpenter.runningVersion() === '1.14.1')]));
    const sha = fleet.commit(synth(on('1.14.1')), 'C1: Karpenter 1.14.1');
    const ok = fleet.runUntilTrue(() => CLUSTERS.every((c) => fleet.finishedAt(c, sha) !== undefined), TUESDAY + 2 * DAY);
    const line = timeline(fleet, sha, TUESDAY);
    REPORT.push(describeTimeline('3. Karpenter 1.14.1', line));
    REPORT.push(`   controller runs 1.14.1: ${CLUSTERS.map((c) => `${c} ${after(TUESDAY, runs[c]())}`).join(', ')}; longest root operation: ${Math.max(...fleet.longestRootOperation.values()) / 60_000}m`);
    expect(ok).toBe(true);
    expect(runs.staging()).toBeGreaterThanOrEqual(line['stage-2']!);
    expect(line['stage-2']).toBeGreaterThanOrEqual(line.dev!);
    for (const prod of ['prod-eu', 'prod-us']) expect(runs[prod]()).toBeGreaterThanOrEqual(line['stage-3']!);
    expect(line['stage-3']).toBeGreaterThanOrEqual(line.staging!);
    expect(fleet.violations).toEqual([]);
  });

  it('4. changes an overlay on a stage-N cluster only through its stage ref, after the stage before finished; no node drifts', () => {
    const fleet = convergedFleet();
    fleet.runUntil(TUESDAY);
    const applied = Object.fromEntries(CLUSTERS.map((c) => [c, firstTime(fleet, () => fleet.clusters.get(c)!.api.get('NodeOverlay', 'savings-plan')?.appliedJson.includes('"-30%"') === true)]));
    const sha = fleet.commit(synth(fleetConfig((c) => { c.overlays['savings-plan'].priceAdjustment = '-30%'; })), 'C1: savings-plan -30%');
    const ok = fleet.runUntilTrue(() => CLUSTERS.every((c) => fleet.finishedAt(c, sha) !== undefined), TUESDAY + 2 * DAY);
    const line = timeline(fleet, sha, TUESDAY);
    REPORT.push(describeTimeline('4. overlay change', line));
    REPORT.push(`   NodeOverlay applied: ${CLUSTERS.map((c) => `${c} ${after(TUESDAY, applied[c]())}`).join(', ')}`);
    expect(ok).toBe(true);
    expect(applied.staging()).toBeGreaterThanOrEqual(line['stage-2']!);
    expect(line['stage-2']).toBeGreaterThanOrEqual(line.dev!);
    for (const prod of ['prod-eu', 'prod-us']) expect(applied[prod]()).toBeGreaterThanOrEqual(line['stage-3']!);
    expect(line['stage-3']).toBeGreaterThanOrEqual(line.staging!);
    expect(CLUSTERS.flatMap((c) => fleet.clusters.get(c)!.karpenter.disruptions.filter((d) => d.at >= TUESDAY))).toEqual([]);
    expect(fleet.violations).toEqual([]);
  });

  it('5. replaces the gate Job when its image changes: a new name, the old one pruned, no sync refused or failed', () => {
    const fleet = convergedFleet();
    fleet.runUntil(TUESDAY);
    const jobs = (c: string) => fleet.clusters.get(c)!.api.list('Job').map((j) => j.name);
    const before = { dev: jobs('dev'), staging: jobs('staging') };
    const sha = fleet.commit(synth(fleetConfig((c) => { c.gitops.driftGateImage = 'registry.example.com/mirror/node:22.21.0-alpine'; })), 'C1: gate image from our mirror');
    const ok = fleet.runUntilTrue(() => CLUSTERS.every((c) => fleet.finishedAt(c, sha) !== undefined) && !gateWaits(fleet, 'staging'), TUESDAY + DAY);
    const line = timeline(fleet, sha, TUESDAY);
    REPORT.push(describeTimeline('5. gate image', line));
    REPORT.push(`   dev gate Job ${before.dev.join()} -> ${jobs('dev').join()}; staging ${before.staging.join()} -> ${jobs('staging').join()}`);
    expect(ok).toBe(true);
    for (const c of ['dev', 'staging'] as const) {
      expect(jobs(c)).toHaveLength(1);
      expect(jobs(c)[0]).not.toBe(before[c][0]);
    }
    expect(fleet.argo.events.filter((e) => e.type === 'apply-refused' || (e.type === 'sync-finished' && e.phase !== 'Succeeded'))).toEqual([]);
    expect(fleet.violations).toEqual([]);
  });

  it('6. a Karpenter outage on staging: its gate does not pass and nothing reaches stage 3 until the controller is back and has finished', () => {
    const fleet = convergedFleet();
    fleet.runUntil(TUESDAY);
    const sha = fleet.commit(synth(fleetConfig(AMI_BUMP)), 'C1: AMI al2023@v20250610');
    expect(fleet.runUntilTrue(() => fleet.git.resolve('karpenter-gitops/stage-2') === sha, TUESDAY + 3 * HOUR)).toBe(true);
    const staging = fleet.clusters.get('staging')!;
    const down = fleet.now + 5 * 60_000;
    const up = down + 3 * HOUR;
    fleet.at(down, () => staging.kube.outages.add('kube-system/karpenter'));
    fleet.at(up, () => staging.kube.outages.delete('kube-system/karpenter'));
    const ok = fleet.runUntilTrue(() => CLUSTERS.every((c) => fleet.finishedAt(c, sha) !== undefined), TUESDAY + 2 * DAY);
    const line = timeline(fleet, sha, TUESDAY);
    const duringOutage = staging.karpenter.disruptions.filter((d) => d.at > down && d.at < up);
    REPORT.push(describeTimeline('6. outage on staging', line));
    REPORT.push(`   outage ${iso(down)}-${iso(up)}; staging replaced before it ${staging.karpenter.disruptions.filter((d) => d.at >= TUESDAY && d.at <= down).length}, during it ${duringOutage.length}; stage-3 ${after(up, line['stage-3'])} after the controller came back`);
    expect(ok).toBe(true);
    expect(line['stage-3']).toBeGreaterThan(up);
    expect(line['stage-3']).toBeGreaterThanOrEqual(line.staging!);
    expect(duringOutage).toEqual([]);
    expect(fleet.violations).toEqual([]);
  });

  it('7. a window that closes mid-drift on prod-eu: no node replaced outside it, drift resumes in the next window, the other stages promote meanwhile', () => {
    const fleet = convergedFleet(fleetConfig(), { initialNodeClaims: (cluster, pool) => (cluster === 'prod-eu' && pool === 'web' ? 8 : NODECLAIMS[pool] ?? 2) });
    // The stage-3 job is off (docs/windows.md "Stop"), switched on again late in prod-eu's window.
    const merge = Date.parse('2027-01-12T22:00:00Z');
    const resume = Date.parse('2027-01-13T01:40:00Z');
    const closes = Date.parse('2027-01-13T02:00:00Z');
    const reopens = Date.parse('2027-01-13T21:00:00Z');
    fleet.runUntil(merge);
    fleet.ciDisabled.add(3);
    const c1 = fleet.commit(synth(fleetConfig(AMI_BUMP)), 'C1: AMI al2023@v20250610');
    fleet.at(resume, () => fleet.ciDisabled.delete(3));
    fleet.runUntil(closes);
    const eu = fleet.clusters.get('prod-eu')!;
    const driftedAtClose = eu.api.list('NodeClaim').filter((n) => JSON.stringify(n.status).includes('"Drifted"')).length;
    const c2At = Date.parse('2027-01-13T09:00:00Z');
    fleet.runUntil(c2At);
    const c2 = fleet.commit(synth(fleetConfig(AMI_AND_OVERLAY)), 'C2: savings-plan -30%');
    const ok = fleet.runUntilTrue(() => CLUSTERS.every((c) => fleet.finishedAt(c, c2) !== undefined), c2At + 2 * DAY);
    const replaced = eu.karpenter.disruptions.filter((d) => d.at >= merge);
    REPORT.push(describeTimeline('7. C1', timeline(fleet, c1, merge)));
    REPORT.push(describeTimeline('7. C2', timeline(fleet, c2, c2At)));
    REPORT.push(`   prod-eu: ${driftedAtClose} NodeClaims still Drifted when its window closed at ${iso(closes)}; replaced ${replaced.filter((d) => d.at < closes).length} before, ${replaced.filter((d) => d.at >= closes && d.at < reopens).length} while closed, ${replaced.filter((d) => d.at >= reopens).length} from ${iso(reopens)}`);
    expect(ok).toBe(true);
    expect(driftedAtClose).toBeGreaterThan(0);
    expect(replaced.filter((d) => d.at >= closes && d.at < reopens)).toEqual([]);
    expect(replaced.filter((d) => d.at >= reopens).length).toBeGreaterThan(0);
    // Stage 3 got C2 while prod-eu still waited for its next window.
    expect(timeline(fleet, c2, c2At)['stage-3']).toBeLessThan(reopens);
    expect(fleet.violations).toEqual([]);
  });

  // The cluster's AppProject (dist/<cluster>/apps/project.yaml, with the sync windows) is created by
  // its root from its stage ref, as its NodePools' budgets are.
  it('8. a window change reaches prod-eu\'s sync window only through stage 3, as its budgets do (one clock)', () => {
    const fleet = convergedFleet();
    fleet.runUntil(TUESDAY);
    const project = () => fleet.inCluster.get('AppProject', 'prod-eu-pools', 'argocd')!;
    const schedules = (live: ReturnType<typeof project>) => ((live.applied.spec as { syncWindows: { schedule: string; duration: string }[] }).syncWindows).map((w) => `${w.schedule} ${w.duration}`).join('; ');
    const before = schedules(project());
    const budgets = () => JSON.stringify((fleet.clusters.get('prod-eu')!.api.get('NodePool', 'web')!.applied.spec as { disruption: unknown }).disruption);
    const budgetsBefore = budgets();
    const windowMoved = firstTime(fleet, () => schedules(project()) !== before);
    const budgetsMoved = firstTime(fleet, () => budgets() !== budgetsBefore);
    const sha = fleet.commit(synth(fleetConfig((c) => { c.windows.eu.start = '23:00'; })), 'C1: prod-eu\'s window from 23:00');
    const ok = fleet.runUntilTrue(() => CLUSTERS.every((c) => fleet.finishedAt(c, sha) !== undefined), TUESDAY + 2 * DAY);
    const line = timeline(fleet, sha, TUESDAY);
    REPORT.push(describeTimeline('8. window change', line));
    REPORT.push(`   prod-eu-pools sync window ${before} -> ${schedules(project())} at ${after(TUESDAY, windowMoved())}; prod-eu's NodePool budgets changed at ${after(TUESDAY, budgetsMoved())}`);
    expect(ok).toBe(true);
    expect(windowMoved()).toBeGreaterThanOrEqual(line['stage-3']!);
    expect(fleet.violations).toEqual([]);
  });
});

describe('the simulation\'s models catch what they are there to catch', () => {
  it('an update of a Job\'s template under the same name: the API server refuses it and the gate\'s sync fails (what a renamed Job avoids)', () => {
    const fleet = convergedFleet();
    const base = synth(fleetConfig());
    const path = 'dist/dev/drift-gate/gate.yaml';
    const edited = base.files.get(path)!.replace(/image: \S+/, 'image: registry.example.com/mirror/node:22.21.0-alpine');
    expect(edited).not.toBe(base.files.get(path));
    fleet.commit({ files: new Map(base.files).set(path, edited), platform: base.platform }, 'C1: the gate image edited by hand, the Job keeping its name');
    fleet.runUntil(fleet.now + HOUR);
    expect(fleet.violations).toEqual(expect.arrayContaining([
      expect.stringMatching(/dev-drift-gate: the API server refused an object: Job\.batch "drift-gate-[0-9a-f]+" is invalid: spec\.template: .*field is immutable/),
      expect.stringMatching(/dev-drift-gate: sync Failed: one or more objects failed to apply.*\(retried 5 times\)/),
    ]));
  });

  it('a gate that passes at once: the oracle sees stage 2 sync a commit dev has not finished', () => {
    const fleet = convergedFleet(fleetConfig(), { assess: () => ({ done: true, waiting: [] }) });
    fleet.runUntil(TUESDAY);
    fleet.commit(synth(fleetConfig(AMI_BUMP)), 'C1: AMI al2023@v20250610');
    fleet.runUntil(TUESDAY + HOUR);
    expect(fleet.violations).toEqual(expect.arrayContaining([expect.stringMatching(/staging-pools-web \(stage 2\) started syncing [0-9a-f]{8} \(C1: AMI al2023@v20250610\), which dev \(stage 1\) has not finished/)]));
  });

  it('the chart model renders the controller Deployment\'s label, replicas and pod annotations as helm template renders the vendored chart', () => {
    const values = synth(fleetConfig()).files.get('dist/dev/karpenter/values.yaml')!;
    const real = helmTemplate({}, { valuesYaml: values }).find((m) => m.kind === 'Deployment')!;
    const model = renderChart('karpenter', '1.14.1', 'karpenter', 'kube-system', values).find((m) => m.kind === 'Deployment')!;
    const fields = (d: { metadata: { name: string; labels?: Record<string, string> }; spec?: unknown }) => {
      const spec = d.spec as { replicas: number; template: { metadata: { annotations?: Record<string, string> } } };
      return { name: d.metadata.name, chart: d.metadata.labels?.['helm.sh/chart'], replicas: spec.replicas, podAnnotations: spec.template.metadata.annotations };
    };
    expect(fields(model as never)).toEqual(fields(real as never));
  });
});

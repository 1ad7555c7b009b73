/**
 * A cluster synced by hand (`manualSync: true`, as adopt writes it) in the simulated staged fleet
 * (test/support/rollout-fleet.ts), Argo CD as argo-cd v3.5.1 runs it (test/support/argocd-sim.ts:
 * `autoSync` starts no operation on an Application without automated sync, controller/appcontroller.go
 * l. 2332-2334) and the promote workflow deciding with `npm run promote`'s own `promotion`: with
 * `staging` (stage 2) synced by hand, no sync of its Applications ever starts, and stage 3 is
 * promoted without it, each run naming it as not waited for — what the review says of it
 * ("manual: when someone syncs it") and what promote prints.
 */
import { removeProjects } from './builders';
import { applicationsIndex, promotion } from '../src/promote/promote';
import { aFleet, Config, DAY, fleetConfig, HOUR, synth, TUESDAY } from './support/rollout-fleet';

afterAll(removeProjects);

const manual = (edit: (c: Config) => void = () => undefined) => fleetConfig((c) => { c.clusters.staging.manualSync = true; edit(c); });

describe('a stage-2 cluster synced by hand, in simulated time', () => {
  it('never syncs by itself, and stage 3 is promoted past it, the decision naming it as not waited for', () => {
    const fleet = aFleet(manual());
    fleet.runUntil(TUESDAY);
    const c1 = fleet.commit(synth(manual((c) => { c.karpenter.controller = { ...c.karpenter.controller, logLevel: 'debug' }; })), 'C1: the controller logs at debug');
    const promoted = fleet.runUntilTrue(() => fleet.git.resolve('karpenter-gitops/stage-3') === c1, TUESDAY + DAY);
    fleet.runUntil(fleet.now + 2 * HOUR);
    expect(promoted).toBe(true);
    // Argo CD's model started no sync of any Application of staging, from the bootstrap on.
    expect(fleet.argo.events.filter((e) => e.type === 'sync-started' && e.app.startsWith('staging-'))).toEqual([]);
    expect(fleet.argo.events.some((e) => e.type === 'sync-started' && e.app.startsWith('prod-eu-'))).toBe(true);
    const stage3 = fleet.ciRuns.filter((r) => r.stage === 3 && r.revision === c1 && r.ready);
    expect(stage3.length).toBeGreaterThan(0);
    // What Argo CD reports: the bootstrap created staging's root, which never synced, so none of its children exists.
    const apps = fleet.applicationsJson() as { items: { metadata: { name: string }; status?: { sync?: { status?: string } } }[] };
    expect(apps.items.filter((a) => a.metadata.name.startsWith('staging-')).map((a) => a.metadata.name)).toEqual(['staging-karpenter-root']);
    // promote's decision on that report: ready, naming staging as not waited for, checking none of its Applications.
    const decision = promotion(fleet.mainPlatform(), 3, c1, applicationsIndex(apps));
    expect(decision).toMatchObject({ ready: true, manual: ['staging'], checked: [] });
  }, 300_000);
});

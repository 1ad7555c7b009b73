/**
 * The staged fleet of the rollout simulations (test/rollout-simulation*.test.ts): `dev` (stage 1),
 * `staging` (stage 2), `prod-eu` and `prod-us` (stage 3, each with a window), teams `web`, `ml`
 * and `batch` (with a CapacityBuffer and a tenancy policy), a fleet-wide NodeOverlay; each commit
 * is `synthesize()` of a config, run through test/support/fleet-sim.ts. Scenario helpers: when a
 * commit reached each stage, the first minute something held, what a gate waits for.
 */
import { synthesize } from '../../src/synth';
import { aTerraform } from '../builders';
import { load } from '../config/helpers';
import { aFleetConfig, TEAMS } from '../review/fleet';
import { FleetSim, FleetSimOptions, Synthesized } from './fleet-sim';

export const WINDOWS = {
  eu: { timeZone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu'], start: '22:00', duration: '6h' },
  us: { timeZone: 'America/New_York', days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '20:00', duration: '6h' },
};
export const CLUSTERS = ['dev', 'staging', 'prod-eu', 'prod-us'];
export type Config = Record<string, any>;

export function fleetConfig(edit: (config: Config) => void = () => undefined): Config {
  const config = aFleetConfig(CLUSTERS, {
    gitops: { project: 'karpenter' },
    windows: WINDOWS,
    overlays: { 'savings-plan': { requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m7i', 'c7i'] }], priceAdjustment: '-28%', weight: 10 } },
    clusters: {
      dev: { stage: 1, destination: { name: 'dev' } },
      staging: { stage: 2, destination: { name: 'staging' } },
      'prod-eu': { stage: 3, window: 'eu', destination: { name: 'prod-eu' } },
      'prod-us': { stage: 3, window: 'us', destination: { name: 'prod-us' } },
    },
    teams: { ...structuredClone(TEAMS), batch: { owner: 'batch@acme.example', namespaces: ['batch'], buffer: { replicas: 2, cpu: '2', memory: '4Gi' } } },
  }) as Config;
  edit(config);
  return config;
}

export const synthCache = new Map<string, Synthesized>();
export function synth(config: Config): Synthesized {
  const key = JSON.stringify(config);
  let tree = synthCache.get(key);
  if (!tree) {
    const { platform } = load({ config, terraform: Object.fromEntries(CLUSTERS.map((c) => [c, aTerraform({ cluster_name: c })])) });
    tree = { files: synthesize(platform), platform };
    synthCache.set(key, tree);
  }
  return tree;
}

export const START = Date.parse('2027-01-11T00:00:00Z');

export const HOUR = 3_600_000;
/** Tuesday 09:00 UTC: the converged fleet's working day starts (scenarios merge from here). */
export const TUESDAY = Date.parse('2027-01-12T09:00:00Z');
/** NodeClaims a NodePool starts with. */
export const NODECLAIMS: Record<string, number> = { web: 4, 'ml-gpu': 2, batch: 3 };

export function aFleet(config: Config = fleetConfig(), options: Partial<FleetSimOptions> = {}): FleetSim {
  return new FleetSim(synth(config), {
    start: new Date(START), end: new Date(START + 7 * 86_400_000),
    initialNodeClaims: (_cluster, pool) => NODECLAIMS[pool] ?? 2,
    windows: { 'prod-eu': WINDOWS.eu, 'prod-us': WINDOWS.us },
    refsAtStart: ['karpenter-gitops/stage-2', 'karpenter-gitops/stage-3'],
    ...options,
  });
}

/** A fleet bootstrapped with every stage ref at the first commit, run until everything is synced, healthy and finished; its invariants checked from then on. */
export function convergedFleet(config: Config = fleetConfig(), options: Partial<FleetSimOptions> = {}): FleetSim {
  const fleet = aFleet(config, options);
  expect(fleet.runUntilTrue(() => fleet.converged(), START + 36 * HOUR)).toBe(true);
  fleet.check();
  return fleet;
}


export const iso = (t: number | undefined) => (t === undefined ? 'never' : new Date(t).toISOString().slice(5, 16).replace('T', ' '));
export const after = (from: number, t: number | undefined) => (t === undefined ? 'never' : `+${Math.round((t - from) / 60_000)}m`);

/** When commit `sha` reached each stage and each cluster finished it, from its merge. */
export function timeline(fleet: FleetSim, sha: string, merged: number): Record<string, number | undefined> {
  const push = (stage: number) => fleet.git.pushes.find((p) => p.ref === `karpenter-gitops/stage-${stage}` && p.to === sha)?.at;
  return {
    merged, dev: fleet.finishedAt('dev', sha), 'stage-2': push(2), staging: fleet.finishedAt('staging', sha),
    'stage-3': push(3), 'prod-eu': fleet.finishedAt('prod-eu', sha), 'prod-us': fleet.finishedAt('prod-us', sha),
  };
}

export function describeTimeline(name: string, line: Record<string, number | undefined>): string {
  return `${name}: merged ${iso(line.merged)}; ${Object.entries(line).filter(([k]) => k !== 'merged').map(([k, t]) => `${k} ${after(line.merged!, t)}`).join(', ')}`;
}

/** Drift replacements of a cluster, grouped by UTC day. */
export function replacementsByDay(fleet: FleetSim, cluster: string, from: number): string {
  const days = new Map<string, number>();
  for (const d of fleet.clusters.get(cluster)!.karpenter.disruptions) if (d.at >= from) days.set(iso(d.at).slice(0, 5), (days.get(iso(d.at).slice(0, 5)) ?? 0) + 1);
  return [...days].map(([day, n]) => `${day}: ${n}`).join(', ') || 'none';
}

export const AMI_BUMP = (c: Config) => { c.defaults.ami.alias = 'al2023@v20250610'; };
export const AMI_AND_OVERLAY = (c: Config) => { AMI_BUMP(c); c.overlays['savings-plan'].priceAdjustment = '-30%'; };
export const DAY = 24 * HOUR;

/** The first minute `test` holds, watched from now on. */
export function firstTime(fleet: FleetSim, test: (now: number) => boolean): () => number | undefined {
  let first: number | undefined;
  fleet.everyMinute((now) => {
    if (first === undefined && test(now)) first = now;
  });
  return () => first;
}

/** The sync operations an Application started for a commit. */
export const syncsOf = (fleet: FleetSim, prefix: string, sha: string) => fleet.argo.events.filter((e) => e.type === 'sync-started' && e.app.startsWith(prefix) && e.revisions.includes(sha));

/** A gate Job of a cluster that has not completed. */
export const gateWaits = (fleet: FleetSim, cluster: string) => fleet.clusters.get(cluster)!.api.list('Job')
  .some((j) => !(((j.status ?? {}) as { conditions?: { type: string }[] }).conditions ?? []).some((c) => c.type === 'Complete'));

/**
 * How long after a commit Argo CD may first compare an Application with it: the repo server's
 * ref cache (3 minutes), the informer's resync (120s), its jitter (60s), and the minute step.
 */
export const ONE_RECONCILE = 3 * 60_000 + 120_000 + 60_000 + 60_000;

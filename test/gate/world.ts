/**
 * A cluster as the drift gate sees it, built with the Karpenter model of
 * test/support/karpenter.ts: the revision `rev1` of a team's NodePools, EC2NodeClasses and
 * NodeOverlay applied by Argo CD and reconciled by Karpenter, its NodeClaims launched, the
 * controller rolled out. Tests change it as Argo CD and Karpenter would.
 */
import { nodeClaimFacts, Snapshot } from '../../src/gate/assess';
import type { GateSpec } from '../../src/gate/spec';
import type { KubeApiStandIn } from '../support/kube-api';
import {
  aDeployment, aLaunchedNodeClaim, aNodeOverlay, aNodePool, anEC2NodeClass, karpenterReconcilesNodeClass,
  karpenterReconcilesNodeOverlay, karpenterReconcilesNodePool, SimObject,
} from '../support/karpenter';

/** The objects of one cluster, by name. */
export interface World {
  readonly deployment: SimObject;
  readonly pools: Record<string, SimObject>;
  readonly classes: Record<string, SimObject>;
  readonly overlays: Record<string, SimObject>;
  readonly claims: Record<string, SimObject>;
}

/**
 * Pools `web` and `batch`, each with its EC2NodeClass of the same name and one NodeClaim
 * (`web-1`, `batch-1`), the overlay `cheap`, all at revision `rev1` and reconciled.
 */
export function aWorld(): World {
  const classes = { web: anEC2NodeClass('web'), batch: anEC2NodeClass('batch') };
  const pools = { web: aNodePool('web'), batch: aNodePool('batch') };
  const overlays = { cheap: aNodeOverlay('cheap') };
  for (const c of Object.values(classes)) karpenterReconcilesNodeClass(c);
  for (const [name, p] of Object.entries(pools)) karpenterReconcilesNodePool(p, classes[name as keyof typeof classes]);
  for (const o of Object.values(overlays)) karpenterReconcilesNodeOverlay(o);
  const claims = {
    'web-1': aLaunchedNodeClaim('web-1', pools.web, classes.web),
    'batch-1': aLaunchedNodeClaim('batch-1', pools.batch, classes.batch),
  };
  return { deployment: aDeployment(), pools, classes, overlays, claims };
}

/** Karpenter reconciles every object of the world, as its controllers do within seconds of a change. */
export function karpenterLooks(world: World): void {
  for (const c of Object.values(world.classes)) karpenterReconcilesNodeClass(c);
  for (const p of Object.values(world.pools)) {
    const ref = (p.spec.template as { spec: { nodeClassRef: { name: string } } }).spec.nodeClassRef.name;
    karpenterReconcilesNodePool(p, world.classes[ref]);
  }
  for (const o of Object.values(world.overlays)) karpenterReconcilesNodeOverlay(o);
}

/** The gate of the world's revision: `rev1` on every object, chart karpenter-1.14.1, values `values1`. */
export function aGateSpec(overrides: Partial<GateSpec> = {}): GateSpec {
  return {
    cluster: 'prod-eu',
    controller: { namespace: 'karpenter', deployment: 'karpenter', chart: 'karpenter-1.14.1', valuesDigest: 'values1' },
    nodePools: [{ name: 'web', digest: 'rev1' }, { name: 'batch', digest: 'rev1' }],
    nodeClasses: [{ name: 'web', digest: 'rev1' }, { name: 'batch', digest: 'rev1' }],
    nodeOverlays: [{ name: 'cheap', digest: 'rev1' }],
    settleSeconds: 600,
    pollSeconds: 30,
    ...overrides,
  };
}

/** What the gate would read from the world: a copy (JSON, as the API server sends it), each NodeClaim reduced as the gate keeps it. */
export function snapshotOf(world: World, spec: GateSpec = aGateSpec()): Snapshot {
  const copy = <T>(o: T): T => JSON.parse(JSON.stringify(o)) as T;
  const pick = (all: Record<string, SimObject>, wanted: readonly { name: string }[]) => Object.fromEntries(wanted.map((w) => [w.name, all[w.name] && copy(all[w.name])]));
  const pools = new Set(spec.nodePools.map((p) => p.name));
  return {
    deployment: copy(world.deployment),
    nodePools: pick(world.pools, spec.nodePools),
    nodeClasses: pick(world.classes, spec.nodeClasses),
    nodeOverlays: pick(world.overlays, spec.nodeOverlays),
    nodeClaims: Object.values(world.claims).filter((c) => pools.has(c.metadata.labels?.['karpenter.sh/nodepool'] ?? '')).map((c) => nodeClaimFacts(copy(c))),
  };
}

/** Puts every object of the world into the stand-in (by reference: later changes are served). */
export function serve(api: KubeApiStandIn, world: World): void {
  api.put(world.deployment, ...Object.values(world.pools), ...Object.values(world.classes), ...Object.values(world.overlays), ...Object.values(world.claims));
}

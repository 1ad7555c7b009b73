import type { CapacityBufferSpec, KarpenterConfig, Pool } from './platform';
import type { ClusterSettings } from './settings';
import type { ClusterFile, OverlayFile, PlatformFile } from './schema';
import type { FieldPath, Problem } from '../input/problems';
import type { SourceFile } from '../input/source';
import type { ReleaseFacts } from '../release/types';
import { catalogMatcher } from '../catalog/match';
import { NodeOverlaySpec, overlayConflicts } from '../catalog/overlays';

/** One cluster as the config gives it, and where its problems go. */
export interface ClusterInput {
  readonly source: SourceFile;
  readonly file: PlatformFile;
  readonly clusterId: string;
  readonly karpenter: KarpenterConfig;
  /** The facts of its Karpenter release. @default - unknown (an unsupported version, reported elsewhere) */
  readonly facts?: ReleaseFacts;
  /** Problems found are pushed here. */
  readonly problems: Problem[];
}

/**
 * The NodeOverlays of one cluster: `overlays` with `clusters.<id>.overlays` over them by name
 * (null there: not on this cluster), each checked where it was written: the cluster's release
 * must have the NodeOverlay gate, the cluster must not turn it off, and no two overlays of one
 * weight may set the same thing of one instance type of the catalog (Karpenter would apply neither).
 * @see https://karpenter.sh/docs/concepts/nodeoverlays/
 */
export function resolveOverlays(on: ClusterInput, cluster: ClusterFile): NodeOverlaySpec[] {
  const { source, file, clusterId, karpenter, facts, problems } = on;
  const entries = new Map<string, { overlay: OverlayFile; at: FieldPath }>();
  for (const [name, overlay] of Object.entries(file.overlays ?? {})) entries.set(name, { overlay, at: ['overlays', name] });
  for (const [name, overlay] of Object.entries(cluster.overlays ?? {})) {
    if (overlay === null) entries.delete(name);
    else entries.set(name, { overlay, at: ['clusters', clusterId, 'overlays', name] });
  }
  const specs = [...entries].map(([name, { overlay }]): NodeOverlaySpec => ({
    name,
    requirements: overlay.requirements,
    ...(overlay.price !== undefined ? { price: overlay.price } : {}),
    ...(overlay.priceAdjustment !== undefined ? { priceAdjustment: overlay.priceAdjustment } : {}),
    ...(overlay.capacity ? { capacity: overlay.capacity } : {}),
    ...(overlay.weight !== undefined ? { weight: overlay.weight } : {}),
  }));
  const at = (name: string) => entries.get(name)?.at ?? ['clusters', clusterId];
  for (const [name] of entries) {
    if (facts && !facts.featureGates.includes('nodeOverlay')) {
      problems.push(source.problem(at(name), `cluster ${clusterId} runs Karpenter ${karpenter.version}, which has no NodeOverlay feature gate, so overlay ${name} cannot be used there: `
        + `upgrade this cluster's Karpenter first (clusters.${clusterId}.karpenter.version), or set clusters.${clusterId}.overlays.${name}: null`, 'key'));
    } else if (karpenter.controller.featureGates.nodeOverlay === false) {
      problems.push(source.problem(at(name), `cluster ${clusterId} uses overlay ${name}, but its karpenter.controller.featureGates.nodeOverlay is false: `
        + `remove that setting (the generator turns the gate on where overlays are used), or set clusters.${clusterId}.overlays.${name}: null`, 'key'));
    }
  }
  for (const c of overlayConflicts(specs, catalogMatcher())) {
    problems.push(source.problem(at(c.second), `on cluster ${clusterId}, overlays ${c.first} (${at(c.first).join('.')}) and ${c.second} have the same weight (${entries.get(c.first)?.overlay.weight ?? 'none'}) `
      + `and both set the ${c.what} of ${c.types} instance type(s) such as ${c.example}: Karpenter then applies neither; give one a higher weight`, 'key'));
  }
  return specs;
}

/**
 * The teams' CapacityBuffers on one cluster, checked where `teams.<team>.buffer` is written: the
 * cluster's release must have the CapacityBuffer gate (1.14 and later), the cluster must not turn
 * it off, and the pool it names must be one of the team's on this cluster.
 * @see https://karpenter.sh/docs/reference/settings/#feature-gates
 */
export function resolveBuffers(on: ClusterInput, pools: readonly Pool[]): CapacityBufferSpec[] {
  const { source, file, clusterId, karpenter, facts, problems } = on;
  const out: CapacityBufferSpec[] = [];
  for (const team of [...new Set(pools.map((p) => p.team))]) {
    const t = file.teams[team];
    const buffer = t?.buffer;
    if (!buffer) continue;
    const at = ['teams', team, 'buffer'];
    if (facts && !facts.featureGates.includes('capacityBuffer')) {
      problems.push(source.problem(at, `cluster ${clusterId} runs Karpenter ${karpenter.version}, which has no CapacityBuffer feature gate (1.14 and later), so team ${team}'s buffer cannot be used there: `
        + `upgrade this cluster's Karpenter first (clusters.${clusterId}.karpenter.version), or leave ${clusterId} out of the team's clusters`, 'key'));
      continue;
    }
    if (karpenter.controller.featureGates.capacityBuffer === false) {
      problems.push(source.problem(at, `team ${team} has a buffer on cluster ${clusterId}, whose karpenter.controller.featureGates.capacityBuffer is false: `
        + 'remove that setting (the generator turns the gate on where a buffer is used), or remove the buffer', 'key'));
      continue;
    }
    const mine = pools.filter((p) => p.team === team);
    const wanted = buffer.pool === undefined ? undefined : `${team}-${buffer.pool}`;
    const pool = wanted !== undefined ? mine.find((p) => p.name === wanted) : mine.find((p) => p.name === team) ?? mine[0];
    if (!pool) {
      problems.push(source.problem([...at, 'pool'], `team ${team} has no pool "${buffer.pool}" on cluster ${clusterId} (its pools there: ${mine.map((p) => p.name).join(', ')}): name one of its pools keys`));
      continue;
    }
    // A namespace of its own, written with the buffer, so it always exists and its project allows
    // it: the buffer's pods are virtual (Karpenter simulates them, never creates them, so no
    // admission sees them: kubernetes-sigs/karpenter v1.14.1 pkg/controllers/provisioning/buffers.go
    // IsVirtualPod), and a team namespace may not exist yet on a cluster.
    out.push({
      team, pool: pool.name, namespace: `${team}-buffer`,
      replicas: buffer.replicas, cpu: buffer.cpu, memory: buffer.memory,
    });
  }
  return out;
}

/** The gates that follow use, and what uses each. */
const USE_GATES = { staticCapacity: 'static pool (replicas)', nodeOverlay: 'overlay', capacityBuffer: 'team buffer' } as const;

/**
 * A gate of {@link USE_GATES} set true on a cluster that does not use its feature contradicts
 * use (the generator turns each on exactly where it is used): an error at the gate. (A gate the
 * release lacks is reported by resolveKarpenter; false where used, at the field that uses it.)
 */
export function unusedGateProblems(on: ClusterInput, settings: ClusterSettings, used: Readonly<Record<keyof typeof USE_GATES, boolean>>): void {
  const { source, clusterId, karpenter, facts, problems } = on;
  for (const [gate, what] of Object.entries(USE_GATES) as [keyof typeof USE_GATES, string][]) {
    if (karpenter.controller.featureGates[gate] !== true || used[gate] || (facts && !facts.featureGates.includes(gate))) continue;
    const at = settings.sourceOf(['karpenter', 'controller', 'featureGates', gate]).path;
    problems.push(source.problem(at, `cluster ${clusterId} uses no ${what}, so featureGates.${gate} would be on for nothing: remove it (the generator turns it on on the clusters that use it)`, 'key'));
  }
}

import type { CapacityBufferSpec, Cluster } from '../config/platform';
import { BUILT_IN_POOL_DEFAULTS } from '../config/platform';
import { Taint, taints } from './node-pool';

/**
 * A team's CapacityBuffer on one cluster and the PodTemplate it points at: `replicas`
 * placeholder pods of `cpu` and `memory` that select the team's pool
 * (`karpenter.sh/nodepool`) and tolerate its taints, so Karpenter keeps that much room
 * ready there. The API server refuses a buffer with a podTemplateRef but no replicas or limits.
 * @see https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/proposals/buffers.md
 */
export interface CapacityBufferModel {
  /** The buffer's and its PodTemplate's name: `<pool>-buffer`. */
  readonly name: string;
  readonly team: string;
  readonly pool: string;
  readonly namespace: string;
  readonly replicas: number;
  readonly requests: { readonly cpu: string; readonly memory: string };
  readonly nodeSelector: Readonly<Record<string, string>>;
  readonly tolerations: readonly Taint[];
  readonly image: string;
}

/** The buffer of `spec` on `cluster`. */
export function capacityBufferModel(cluster: Cluster, spec: CapacityBufferSpec): CapacityBufferModel {
  const pool = cluster.pools.find((p) => p.name === spec.pool);
  return {
    name: `${spec.pool}-buffer`,
    team: spec.team,
    pool: spec.pool,
    namespace: spec.namespace,
    replicas: spec.replicas,
    requests: { cpu: spec.cpu, memory: spec.memory },
    nodeSelector: { 'karpenter.sh/nodepool': spec.pool },
    tolerations: pool ? taints(pool) : [],
    image: BUILT_IN_POOL_DEFAULTS.smokeTest.image,
  };
}

import type { Pool } from '../config/platform';
import { Quantity } from '../quantity/quantity';
import { inCatalogUnits } from '../quantity/resource-units';
import { taints } from './node-pool';

/** A toleration that matches exactly one taint. */
export interface Toleration {
  readonly key: string;
  readonly operator: 'Equal' | 'Exists';
  readonly value?: string;
  readonly effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/** One pool's smoke-test Deployment, derived from the pool. */
export interface SmokeTestModel {
  readonly name: string;
  readonly replicas: number;
  readonly image: string;
  /** CPU request, in millicores. */
  readonly cpuMillis: number;
  /** Memory request and limit, in MiB. */
  readonly memoryMiB: number;
  /** Extended resources requested (and limited, as Kubernetes requires), e.g. `nvidia.com/gpu: 1`. */
  readonly extended: Readonly<Record<string, number>>;
  /** Selects exactly the pool's nodes. */
  readonly nodeSelector: Readonly<Record<string, string>>;
  /** Tolerates exactly the pool's taints. */
  readonly tolerations: readonly Toleration[];
}

/**
 * A Deployment that fits only on its pool: it selects the pool by the
 * `karpenter.sh/nodepool` label Karpenter puts on every node, and tolerates
 * each of the pool's taints with a toleration that matches that taint alone.
 * Startup taints need no toleration: Karpenter ignores them when provisioning.
 */
export function smokeTestModel(pool: Pool): SmokeTestModel {
  const t = pool.settings.smokeTest;
  return {
    name: pool.name,
    replicas: t.replicas,
    image: t.image,
    cpuMillis: inCatalogUnits('cpu', Quantity.of(t.cpu), 'up'),
    memoryMiB: inCatalogUnits('memory', Quantity.of(t.memory), 'up'),
    extended: t.resources,
    nodeSelector: { 'karpenter.sh/nodepool': pool.name },
    tolerations: taints(pool).map((taint) => (taint.value !== undefined
      ? { key: taint.key, operator: 'Equal', value: taint.value, effect: taint.effect }
      : { key: taint.key, operator: 'Exists', effect: taint.effect })),
  };
}

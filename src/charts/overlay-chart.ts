import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { NodeOverlay, NodeOverlaySpecCapacity, NodeOverlaySpecRequirementsOperator } from '../../imports/karpenter.sh';
import { crdValue } from '../constructs/crd-value';
import type { ClusterPlan } from '../model/plan';
import { MANAGED_BY } from '../model/node-pool';
import { DIGEST_ANNOTATION } from '../model/stages';

/** A NodeOverlay of the plan. */
type NodeOverlaySpec = ClusterPlan['overlays'][number]['model'];

/** Properties of an {@link OverlayChart}. */
export interface OverlayChartProps {
  /** The overlay this file holds. */
  readonly overlay: NodeOverlaySpec;
}

/**
 * `dist/<cluster>/overlays/<name>.yaml`: one NodeOverlay (karpenter.sh/v1alpha1, cluster-scoped).
 * @see https://karpenter.sh/docs/concepts/nodeoverlays/
 */
export class OverlayChart extends Chart {
  public constructor(scope: Construct, id: string, props: OverlayChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    const o = props.overlay;
    new NodeOverlay(this, 'Overlay', {
      metadata: { name: o.name, labels: { 'app.kubernetes.io/managed-by': MANAGED_BY }, ...(o.digest !== undefined ? { annotations: { [DIGEST_ANNOTATION]: o.digest } } : {}) },
      spec: {
        requirements: o.requirements.map((r) => ({ key: r.key, operator: crdValue(NodeOverlaySpecRequirementsOperator, r.operator), values: r.values && [...r.values] })),
        price: o.price,
        priceAdjustment: o.priceAdjustment,
        capacity: o.capacity && Object.fromEntries(Object.entries(o.capacity).map(([name, q]) => [name, NodeOverlaySpecCapacity.fromString(q)])),
        weight: o.weight,
      },
    });
  }
}

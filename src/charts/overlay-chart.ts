import { ApiObject, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import type { ClusterPlan } from '../model/plan';

/** A NodeOverlay of the plan. */
type NodeOverlaySpec = ClusterPlan['overlays'][number]['model'];
import { MANAGED_BY } from '../model/node-pool';
import { DIGEST_ANNOTATION } from '../model/stages';

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
    new ApiObject(this, 'Overlay', {
      apiVersion: 'karpenter.sh/v1alpha1',
      kind: 'NodeOverlay',
      metadata: { name: o.name, labels: { 'app.kubernetes.io/managed-by': MANAGED_BY }, ...(o.digest !== undefined ? { annotations: { [DIGEST_ANNOTATION]: o.digest } } : {}) },
      spec: {
        requirements: o.requirements.map((r) => ({ key: r.key, operator: r.operator, ...(r.values ? { values: [...r.values] } : {}) })),
        ...(o.price !== undefined ? { price: o.price } : {}),
        ...(o.priceAdjustment !== undefined ? { priceAdjustment: o.priceAdjustment } : {}),
        ...(o.capacity ? { capacity: { ...o.capacity } } : {}),
        ...(o.weight !== undefined ? { weight: o.weight } : {}),
      },
    });
  }
}

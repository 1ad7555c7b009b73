import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { TeamNodePool } from '../constructs/team-node-pool';
import type { PoolPlan } from '../model/plan';

/** Properties of a {@link NodePoolChart}. */
export interface NodePoolChartProps {
  /** The pool's plan: its NodePool and EC2NodeClass models and its team. */
  readonly pool: PoolPlan;
}

/** `dist/<cluster>/nodepools/<team>/<pool>.yaml`: one pool's EC2NodeClass, or EKS Auto Mode NodeClass (unless an earlier pool's file holds the class it shares), and NodePool. */
export class NodePoolChart extends Chart {
  public constructor(scope: Construct, id: string, props: NodePoolChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new TeamNodePool(this, 'Pool', {
      nodeClass: props.pool.nodeClass,
      nodePool: props.pool.nodePool,
      rendersNodeClass: props.pool.rendersNodeClass ?? true,
      team: props.pool.team,
      digests: props.pool.digests,
      ...(props.pool.autoModeClass ? { autoModeClass: props.pool.autoModeClass } : {}),
    });
  }
}

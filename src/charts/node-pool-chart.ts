import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import type { Cluster, Pool } from '../config/platform';
import { TeamNodePool } from '../constructs/team-node-pool';
import { nodeClassModel } from '../model/node-class';
import { nodePoolModel } from '../model/node-pool';
import { withWindowBudgets } from '../model/windows';

/** Properties of a {@link NodePoolChart}. */
export interface NodePoolChartProps {
  /** The cluster the pool runs in. */
  readonly cluster: Cluster;
  /** The pool to render. */
  readonly pool: Pool;
}

/** `dist/<cluster>/nodepools/<pool>.yaml`: one pool's EC2NodeClass and NodePool. */
export class NodePoolChart extends Chart {
  public constructor(scope: Construct, id: string, props: NodePoolChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new TeamNodePool(this, 'Pool', {
      nodeClass: nodeClassModel(props.pool, props.cluster),
      nodePool: withWindowBudgets(nodePoolModel(props.pool), props.cluster),
      team: props.pool.team,
    });
  }
}

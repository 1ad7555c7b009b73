import { Testing } from 'cdk8s';
import { NodePoolChart } from '../../src/charts/node-pool-chart';
import { poolPlan } from '../../src/model/plan';
import { aCluster, aPool } from '../pool-builders';

describe('NodePoolChart', () => {
  it('renders one pool as an EC2NodeClass then a NodePool', () => {
    const pool = aPool({ arch: ['arm64'], capacityTypes: ['spot', 'on-demand'], limits: { cpu: '64' } }, { name: 'dataops', team: 'dataops', owner: 'dataops@acme.example' });
    const chart = new NodePoolChart(Testing.app(), 'dataops', { pool: poolPlan(aCluster([pool]), pool) });
    expect(Testing.synth(chart)).toMatchSnapshot();
  });
});

import { Chart, Testing } from 'cdk8s';
import { TeamNodePool } from '../../src/constructs/team-node-pool';
import { nodeClassModel } from '../../src/model/node-class';
import { nodePoolModel } from '../../src/model/node-pool';
import { aCluster, aPool } from '../pool-builders';

type Manifest = { kind: string; metadata: { name: string; annotations: Record<string, string> }; spec: any };

function render(pool = aPool()): Manifest[] {
  const chart = new Chart(Testing.app(), 'test', { disableResourceNameHashes: true });
  new TeamNodePool(chart, 'Pool', { nodePool: nodePoolModel(pool), nodeClass: nodeClassModel(pool, aCluster([pool])), team: pool.team });
  return Testing.synth(chart) as Manifest[];
}

function find(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name} in ${manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(', ')}`);
  return found;
}

describe('TeamNodePool', () => {
  it('renders an EC2NodeClass and a NodePool named after the pool, the NodePool pointing at the class', () => {
    const out = render(aPool({}, { name: 'dataops-batch', team: 'dataops' }));
    const nodePool = find(out, 'NodePool', 'dataops-batch');
    find(out, 'EC2NodeClass', 'dataops-batch');
    expect(nodePool.spec.template.spec.nodeClassRef).toEqual({ group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'dataops-batch' });
  });

  it('guards both objects with Argo CD confirmations and skips dry run until their CRDs exist', () => {
    const out = render();
    for (const kind of ['NodePool', 'EC2NodeClass']) {
      expect(find(out, kind, 'web').metadata.annotations['argocd.argoproj.io/sync-options'])
        .toBe('SkipDryRunOnMissingResource=true,Prune=confirm,Delete=confirm');
    }
  });

  it('writes every field the API server would default', () => {
    const out = render();
    const np = find(out, 'NodePool', 'web').spec;
    expect(np.disruption).toEqual({ budgets: [{ nodes: '10%' }], consolidateAfter: '1m', consolidationPolicy: 'WhenEmptyOrUnderutilized' });
    expect(np.template.spec.expireAfter).toBe('720h');
    expect(find(out, 'EC2NodeClass', 'web').spec.metadataOptions).toEqual({
      httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required',
    });
  });

  it('writes CRD field names, not the names cdk8s import gives them', () => {
    const pool = aPool({
      associatePublicIPAddress: false,
      volume: { size: '50Gi', type: 'gp3', encrypted: true, deleteOnTermination: true, kmsKeyID: 'alias/ebs' },
      kubelet: { clusterDNS: ['10.0.0.10'], cpuCFSQuota: true, imageGCHighThresholdPercent: 85, imageGCLowThresholdPercent: 80 },
      capacityTypes: ['reserved'],
      capacityReservationSelectorTerms: [{ tags: { team: 'web' }, ownerID: '111122223333' }],
    });
    const spec = find(render(pool), 'EC2NodeClass', 'web').spec;
    expect(spec.associatePublicIPAddress).toBe(false);
    expect(spec.blockDeviceMappings[0].ebs.kmsKeyID).toBe('alias/ebs');
    expect(spec.kubelet).toEqual({ clusterDNS: ['10.0.0.10'], cpuCFSQuota: true, imageGCHighThresholdPercent: 85, imageGCLowThresholdPercent: 80 });
    expect(spec.capacityReservationSelectorTerms).toEqual([{ ownerID: '111122223333', tags: { team: 'web' } }]);
  });

  it('leaves empty taint lists and unset optional fields out', () => {
    const spec = find(render(aPool({ dedicated: false })), 'NodePool', 'web').spec;
    expect(spec.template.spec).not.toHaveProperty('taints');
    expect(spec.template.spec).not.toHaveProperty('startupTaints');
    expect(spec).not.toHaveProperty('limits');
    expect(spec).not.toHaveProperty('weight');
  });
});

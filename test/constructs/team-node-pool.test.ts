import { Chart, Testing } from 'cdk8s';
import { TeamNodePool } from '../../src/constructs/team-node-pool';
import { nodeClassModel } from '../../src/model/node-class';
import { nodePoolModel } from '../../src/model/node-pool';
import { vendoredVersions } from '../../src/release/release';
import { defaulted } from '../support/crd-validator';
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

  // The API server fills in, on CREATE, each field of the CRD's schema that has a `default:` and is
  // missing; Argo CD would then see drift. Run through the model of the API server
  // (test/support/crd-validator.ts) with each vendored release's CRDs: a default a release adds
  // upstream (vendored by `npm run upgrade`) fails here until the pool writes the field itself.
  it.each(vendoredVersions())('writes every field Karpenter %s\'s CRDs would default, so the API server changes nothing', (version) => {
    for (const pool of [aPool(), aPool({ dedicated: false, capacityTypes: ['spot', 'on-demand'] })]) {
      for (const manifest of render(pool)) {
        expect({ kind: manifest.kind, stored: defaulted(manifest, version) }).toEqual({ kind: manifest.kind, stored: manifest });
      }
    }
  });

  it.each(vendoredVersions())('leaves to the API server nothing Karpenter %s\'s CRDs default: a field left out comes back from the CRD', (version) => {
    // The check above can fail: without the fields the CRDs default, the stored object differs.
    const [nodePool, nodeClass] = ['NodePool', 'EC2NodeClass'].map((kind) => find(render(), kind, 'web'));
    const { disruption, ...bare } = nodePool.spec;
    expect((defaulted({ ...nodePool, spec: bare }, version) as Manifest).spec.disruption).toMatchObject({ consolidateAfter: '0s' });
    expect(disruption.consolidateAfter).toBe('1m');
    const { metadataOptions, ...classBare } = nodeClass.spec;
    expect((defaulted({ ...nodeClass, spec: classBare }, version) as Manifest).spec.metadataOptions).toEqual(metadataOptions);
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

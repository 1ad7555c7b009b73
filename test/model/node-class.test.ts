import { GENERATED_TAG_KEYS } from '../../src/config/reserved';
import { amiFamily, blockDevices, nodeClassModel, tags } from '../../src/model/node-class';
import { aCluster, aPool, aTerraform } from '../pool-builders';

describe('nodeClassModel', () => {
  it('uses the node role and discovery selectors of the cluster from Terraform', () => {
    const cluster = aCluster([], { terraform: aTerraform({ clusterName: 'prod-eks', nodeRoleName: 'KarpenterNodeRole-prod' }) });
    const model = nodeClassModel(aPool(), cluster);
    expect(model.role).toBe('KarpenterNodeRole-prod');
    expect(model.subnetSelectorTerms).toEqual([{ tags: { 'karpenter.sh/discovery': 'prod-eks' } }]);
    expect(model.securityGroupSelectorTerms).toEqual([{ tags: { 'karpenter.sh/discovery': 'prod-eks' } }]);
  });

  it('keeps explicit subnet and security group selectors', () => {
    const model = nodeClassModel(aPool({ subnetSelectorTerms: [{ id: 'subnet-0abc' }], securityGroupSelectorTerms: [{ name: 'nodes' }] }), aCluster());
    expect(model.subnetSelectorTerms).toEqual([{ id: 'subnet-0abc' }]);
    expect(model.securityGroupSelectorTerms).toEqual([{ name: 'nodes' }]);
  });

  it('requires IMDSv2 with hop limit 1 by default', () => {
    expect(nodeClassModel(aPool(), aCluster()).metadataOptions).toEqual({
      httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required',
    });
  });

  it('selects a pinned alias as the only AMI term, with the family it implies', () => {
    const model = nodeClassModel(aPool({ ami: { alias: 'bottlerocket@v1.39.1' } }), aCluster());
    expect(model.amiSelectorTerms).toEqual([{ alias: 'bottlerocket@v1.39.1' }]);
    expect(model.amiFamily).toBe('Bottlerocket');
  });

  it('selects custom AMIs by their terms with the family given', () => {
    const pool = aPool({ ami: { family: 'Custom', selectorTerms: [{ name: 'golden-*', owner: 'self' }] } });
    const model = nodeClassModel(pool, aCluster());
    expect(model.amiSelectorTerms).toEqual([{ name: 'golden-*', owner: 'self' }]);
    expect(amiFamily(pool)).toBe('Custom');
  });
});

describe('blockDevices', () => {
  it('gives AL2023 one encrypted gp3 root volume on /dev/xvda', () => {
    expect(blockDevices(aPool())).toEqual([{
      deviceName: '/dev/xvda', rootVolume: true,
      ebs: { volumeSize: '20Gi', volumeType: 'gp3', encrypted: true, deleteOnTermination: true },
    }]);
  });

  it('gives Bottlerocket a 4Gi OS volume and the sized data volume on /dev/xvdb', () => {
    const devices = blockDevices(aPool({
      ami: { alias: 'bottlerocket@v1.39.1' },
      volume: { size: '100Gi', type: 'gp3', iops: 3000, throughput: 125, encrypted: true, deleteOnTermination: true, kmsKeyID: 'alias/ebs' },
    }));
    expect(devices).toEqual([
      { deviceName: '/dev/xvda', ebs: { volumeSize: '4Gi', volumeType: 'gp3', encrypted: true, deleteOnTermination: true, kmsKeyID: 'alias/ebs' } },
      { deviceName: '/dev/xvdb', ebs: { volumeSize: '100Gi', volumeType: 'gp3', encrypted: true, deleteOnTermination: true, kmsKeyID: 'alias/ebs', iops: 3000, throughput: 125 } },
    ]);
  });
});

describe('tags', () => {
  it('adds team, owner, cost-center, managed-by and Name to the pool tags', () => {
    const pool = aPool({ tags: { env: 'prod' } }, { name: 'dataops', team: 'dataops', owner: 'dataops@acme.example', costCenter: '4410' });
    expect(tags(pool, aCluster())).toEqual({
      'Name': 'demo/dataops', 'cost-center': '4410', 'env': 'prod', 'managed-by': 'karpenter-gitops', 'owner': 'dataops@acme.example', 'team': 'dataops',
    });
  });

  it('sets exactly the tag keys the config layer reserves for the generator', () => {
    const pool = aPool({}, { owner: 'o@acme.example', costCenter: '1' });
    expect(Object.keys(tags(pool, aCluster())).sort()).toEqual([...GENERATED_TAG_KEYS].sort());
  });

  it('leaves out owner and cost-center when the team has none', () => {
    expect(Object.keys(tags(aPool(), aCluster()))).toEqual(['Name', 'managed-by', 'team']);
  });
});

/**
 * The editor schema (schema/platform.schema.json) against the command line: every bad config
 * of the corpus that the command line rejects must be rejected by the schema too, unless the
 * check is one JSON Schema cannot make (listed, with why, in CLI_ONLY); good configs pass both;
 * one mistake is one schema error, not three.
 */
import Ajv from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadPlatform } from '../../src/config/load';
import { InputError } from '../../src/input/problems';
import { aConfig, EXAMPLE_CONFIG, Overrides, Plain, removeProjects, writeProject } from '../builders';

afterAll(removeProjects);

const ROOT = join(__dirname, '..', '..');
// Editors check the schema's formats; its one format is the `uri` of a destination server
// (ajv knows no format by itself, and would warn at every use and skip the check).
const validate = new Ajv({ allErrors: true, strict: false, formats: { uri: (s: string) => URL.canParse(s) } })
  .compile(JSON.parse(readFileSync(join(ROOT, 'schema/platform.schema.json'), 'utf8')));

function schemaErrors(config: unknown): string[] {
  return validate(config) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

function cliRejects(config: Plain): boolean {
  try {
    loadPlatform(writeProject({ config }).configPath);
    return false;
  } catch (err) {
    if (err instanceof InputError) return true;
    throw err;
  }
}

const team = (fields: Plain): Overrides => ({ teams: { web: fields } });
const pool = (fields: Plain): Overrides => ({ teams: { web: { pools: { batch: fields } } } });
const karpenter = (fields: Plain): Overrides => ({ karpenter: { version: '1.14.1', ...fields } });
const cluster = (fields: Plain): Overrides => ({ clusters: { demo: { terraformOutputs: 'terraform/demo.json', ...fields } } });
const ami = (fields: Plain): Overrides => team({ ami: fields });
const budget = (fields: Plain): Overrides => team({ disruption: { budgets: [fields] } });
const requirement = (fields: Plain): Overrides => team({ requirements: [fields] });

/** Bad configs: what the command line rejects. */
const BAD: readonly (readonly [string, Overrides])[] = [
  ['an unknown top-level key', { gitopz: {} }],
  ['an unknown pool field', team({ instanceCategoriez: ['c'] })],
  ['an unknown key in a pool of pools', pool({ weigth: 5 })],
  ['a missing repoURL', { gitops: { repoURL: undefined } }],
  ['a karpenter version with a v', karpenter({ version: 'v1.14.1' })],
  ['an unknown capacity type', team({ capacityTypes: ['spott'] })],
  ['an unknown arch', team({ arch: ['x86'] })],
  ['a team id with capitals', { teams: { Web: {} } }],
  ['a Windows-reserved team id', { teams: { con: {} } }],
  ['a cluster id the generator writes in argocd/', { clusters: { demo: undefined, bootstrap: { terraformOutputs: 'terraform/demo.json' } } }],
  ['no cluster', { clusters: { demo: undefined } }],
  ['a cluster without terraformOutputs', { clusters: { demo: { terraformOutputs: undefined, smokeTests: false } } }],
  ['a destination with server and name', cluster({ destination: { server: 'https://x', name: 'x' } })],
  ['an empty destination', cluster({ destination: {} })],
  ['a destination server that is not a URL', cluster({ destination: { server: 'kubernetes.default.svc' } })],
  ['a kubernetesVersion that is a number', cluster({ kubernetesVersion: 1.34 })],
  ['a kubernetesVersion with a patch', cluster({ kubernetesVersion: '1.34.2' })],
  ['a negative cpu limit', team({ limits: { cpu: '-1' } })],
  ['a quantity that is not one', team({ limits: { memory: 'lots' } })],
  ['an unknown resource in limits', team({ limits: { cpus: '4' } })],
  ['a resource name that is not one', team({ limits: { 'nvidia.com/': '1' } })],
  ['a weight above 100', team({ weight: 101 })],
  ['a float weight', team({ weight: 1.5 })],
  ['a bad expireAfter', team({ expireAfter: '30d' })],
  ['a bad consolidateAfter', team({ disruption: { consolidateAfter: 'soon' } })],
  ['a v0.x consolidation policy', team({ disruption: { consolidationPolicy: 'WhenUnderutilized' } })],
  ['budget nodes that are not a count or a percentage', budget({ nodes: 'ten' })],
  ['a budget percentage above 100', budget({ nodes: '101%' })],
  ['a budget schedule without a duration', budget({ nodes: '0', schedule: '0 9 * * *' })],
  ['a budget duration without a schedule', budget({ nodes: '0', duration: '8h' })],
  ['a budget duration in seconds', budget({ nodes: '0', schedule: '0 9 * * *', duration: '30s' })],
  ['a budget schedule with four fields', budget({ nodes: '0', schedule: '0 9 * *', duration: '8h' })],
  ['a budget schedule with an unknown macro', budget({ nodes: '0', schedule: '@sometimes', duration: '8h' })],
  ['an unknown budget reason', budget({ nodes: '1', reasons: ['Expired'] })],
  ['a budget reason twice', budget({ nodes: '1', reasons: ['Empty', 'Empty'] })],
  ['an alias with an unknown family', ami({ alias: 'ubuntu@v20250505' })],
  ['an alias without a release', ami({ alias: 'al2023' })],
  ['an al2023 alias with a Bottlerocket release', ami({ alias: 'al2023@v1.47.0' })],
  ['a Bottlerocket alias with a date', ami({ alias: 'bottlerocket@v20250505' })],
  ['@latest without allowLatest', ami({ alias: 'al2023@latest' })],
  ['@latest with allowLatest false', ami({ alias: 'al2023@latest', allowLatest: false })],
  ['alias and selectorTerms together', ami({ family: 'AL2023', alias: 'al2023@v20250505', selectorTerms: [{ id: 'ami-0123' }] })],
  ['neither alias nor selectorTerms', ami({ family: 'AL2023' })],
  ['selectorTerms without a family', ami({ selectorTerms: [{ id: 'ami-0123' }] })],
  ['a family that does not match the alias', ami({ family: 'Bottlerocket', alias: 'al2023@v20250505' })],
  ['an AMI term with nothing to select by', ami({ family: 'Custom', selectorTerms: [{ owner: 'self' }] })],
  ['an AMI term with id and name', ami({ family: 'Custom', selectorTerms: [{ id: 'ami-0123', name: 'x' }] })],
  ['an AMI id that is not one', ami({ family: 'Custom', selectorTerms: [{ id: 'image-1' }] })],
  ['an unknown AMI family', ami({ family: 'Ubuntu', alias: 'al2023@v20250505' })],
  ['a subnet term with id and tags', team({ subnetSelectorTerms: [{ id: 'subnet-1', tags: { a: 'b' } }] })],
  ['an empty subnet term', team({ subnetSelectorTerms: [{}] })],
  ['a security group term with name and tags', team({ securityGroupSelectorTerms: [{ name: 'x', tags: { a: 'b' } }] })],
  ['more than 20 tags in a selector term', team({ subnetSelectorTerms: [{ tags: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }] })],
  ['a requirement In without values', requirement({ key: 'example.com/x', operator: 'In' })],
  ['a requirement In with no value', requirement({ key: 'example.com/x', operator: 'In', values: [] })],
  ['a requirement Exists with values', requirement({ key: 'example.com/x', operator: 'Exists', values: ['a'] })],
  ['a requirement Gt with a word', requirement({ key: 'example.com/x', operator: 'Gt', values: ['five'] })],
  ['a requirement Gt with two values', requirement({ key: 'example.com/x', operator: 'Gt', values: ['1', '2'] })],
  ['a requirement Gt above int64', requirement({ key: 'example.com/x', operator: 'Gt', values: ['99999999999999999999'] })],
  ['a requirement with an unknown operator', requirement({ key: 'example.com/x', operator: 'Equals', values: ['a'] })],
  ['a requirement on karpenter.sh/nodepool', requirement({ key: 'karpenter.sh/nodepool', operator: 'In', values: ['a'] })],
  ['a requirement on an unknown karpenter.k8s.aws label', requirement({ key: 'karpenter.k8s.aws/owner', operator: 'In', values: ['a'] })],
  ['a requirement with minValues above 50', requirement({ key: 'example.com/x', operator: 'Exists', minValues: 51 })],
  ['a label in the karpenter.sh domain', team({ labels: { 'karpenter.sh/team': 'a' } })],
  ['a label kubernetes.io/hostname', team({ labels: { 'kubernetes.io/hostname': 'a' } })],
  ['the label team, which the generator sets', team({ labels: { team: 'a' } })],
  ['a label value with a space', team({ labels: { 'example.com/x': 'a b' } })],
  ['a label key that is not one', team({ labels: { 'a b': 'x' } })],
  ['a tag Karpenter sets', team({ tags: { 'karpenter.sh/nodepool': 'x' } })],
  ['a kubernetes.io/cluster tag', team({ tags: { 'kubernetes.io/cluster/demo': 'owned' } })],
  ['a tag the generator sets', team({ tags: { Name: 'x' } })],
  ['a taint with an unknown effect', team({ taints: [{ key: 'a', effect: 'NoWay' }] })],
  ['a taint without an effect', team({ taints: [{ key: 'a' }] })],
  ['a volume size the CRD refuses', team({ volume: { size: '18Ti' } })],
  ['an unknown volume type', team({ volume: { type: 'gp4' } })],
  ['an instanceGeneration without a bound', team({ instanceGeneration: {} })],
  ['a negative instanceCpu bound', team({ instanceCpu: { gt: -1 } })],
  ['an unknown httpTokens', team({ metadataOptions: { httpTokens: 'sometimes' } })],
  ['a hop limit above 64', team({ metadataOptions: { httpPutResponseHopLimit: 65 } })],
  ['kubelet maxPods as a word', team({ kubelet: { maxPods: 'many' } })],
  ['an unknown eviction signal', team({ kubelet: { evictionHard: { 'cpu.available': '5%' } } })],
  ['a smoke test cpu that is not a quantity', team({ smokeTest: { cpu: 'lots' } })],
  ['negative smoke-test replicas', team({ smokeTest: { replicas: -1 } })],
  ['an unknown container resource in a smoke test', team({ smokeTest: { resources: { pods: 1 } } })],
  ['an owner that is not a string', team({ owner: 5 })],
  ['defaultPool that is not a boolean', team({ defaultPool: 'no' })],
  ['an unknown controller field', karpenter({ controller: { replica: 2 } })],
  ['an unknown controller host', karpenter({ controller: { host: 'ec2' } })],
  ['an unknown log level', karpenter({ controller: { logLevel: 'verbose' } })],
  ['a feature gate that is not a boolean', karpenter({ controller: { featureGates: { spotToSpotConsolidation: 'yes' } } })],
  ['an unknown chart key in helmValues', karpenter({ helmValues: { replicaCount: 3 } })],
  ['an unknown chart key below a closed map of helmValues', karpenter({ helmValues: { controller: { imag: {} } } })],
  ['an unknown chart key in a cluster\'s helmValues', cluster({ karpenter: { helmValues: { replicaCount: 3 } } })],
  ['a cluster team that is not a map', cluster({ teams: { web: [] } })],
  ['legacyNodepoolsApp other than orphan', cluster({ legacyNodepoolsApp: 'keep' })],
  ['smokeTests that is not a boolean', cluster({ smokeTests: 'no' })],
  ['an unknown key in overrides', cluster({ overrides: { wieght: 1 } })],
  ['an argocdNamespace that is not a name', { gitops: { repoURL: 'https://x', argocdNamespace: 'Argo CD' } }],
  ['a userData that is not a string', team({ userData: 5 })],
  ['a namespace that is not a DNS-1123 label', team({ namespaces: ['Web_Jobs'] })],
  ['a namespace listed twice', team({ namespaces: ['web', 'web'] })],
  ['an empty namespaces list', team({ namespaces: [] })],
  ['namespaces under a cluster\'s team', cluster({ teams: { web: { namespaces: ['web'] } } })],
  ['an unknown tenancy action', { tenancy: { action: 'Block' } }],
  ['an unknown key in a cluster\'s tenancy', cluster({ tenancy: { mode: 'Audit' } })],
];

/**
 * Checks only the command line makes, and why JSON Schema cannot: they depend on other
 * fields than the one checked (possibly set at another level of the inheritance), on other
 * files, or on Karpenter's data.
 */
const CLI_ONLY: Readonly<Record<string, string>> = {
  'reserved capacity without capacityReservationSelectorTerms': 'two fields, each possibly set at another level (defaults, team, pool, cluster)',
  'a kubelet imageGCHighThresholdPercent below the low one': 'two fields compared, possibly set at different levels',
  'a requirement on a key a field already sets': 'a requirement and a field of the pool, possibly set at different levels',
  'an AL2023 volume below 20Gi': 'the AMI family and the volume size, possibly set at different levels',
  'iops above what the volume size allows': 'two fields compared by arithmetic',
  'an unknown team in a cluster\'s teams': 'refers to the keys of teams',
  'a pool of a cluster\'s team that the team does not define': 'refers to the team\'s pools',
  'a terraformOutputs file that does not exist': 'another file',
  'an instance family that does not exist': 'Karpenter\'s instance-type catalog (the dry run)',
  'a smoke test larger than any instance type of the pool': 'Karpenter\'s instance-type catalog (the dry run)',
  'an AMI release that cannot exist for the cluster\'s Kubernetes version': 'the cluster\'s version (often from the Terraform outputs) and the AMI release data',
  'a budget schedule out of range': 'Karpenter\'s cron ranges and names (the pattern checks the shape only)',
  'a Gt value above the largest 64-bit integer': 'a pattern cannot compare numbers of 19 digits (it allows 19 digits)',
  'a chart setting of the wrong type': 'the settings rules of the chart (types, minimums) are checked in code',
};

/** Bad configs the command line rejects by checks in {@link CLI_ONLY}. */
const CLI_ONLY_CASES: readonly (readonly [string, Overrides])[] = [
  ['reserved capacity without capacityReservationSelectorTerms', team({ capacityTypes: ['reserved'] })],
  ['a kubelet imageGCHighThresholdPercent below the low one', team({ kubelet: { imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 60 } })],
  ['a requirement on a key a field already sets', team({ arch: ['arm64'], requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] })],
  ['an AL2023 volume below 20Gi', team({ volume: { size: '10Gi' } })],
  ['iops above what the volume size allows', team({ volume: { size: '20Gi', type: 'gp3', iops: 16000 } })],
  ['an unknown team in a cluster\'s teams', cluster({ teams: ['nope'] })],
  ['a pool of a cluster\'s team that the team does not define', cluster({ teams: { web: { pools: { nope: {} } } } })],
  ['a terraformOutputs file that does not exist', cluster({ terraformOutputs: 'terraform/nope.json' })],
  ['an instance family that does not exist', team({ instanceFamilies: ['g6x'] })],
  ['a smoke test larger than any instance type of the pool', team({ instanceTypes: ['m7g.large'], arch: ['arm64'], smokeTest: { cpu: '64' } })],
  ['an AMI release that cannot exist for the cluster\'s Kubernetes version', cluster({ kubernetesVersion: '1.34' })],
  ['a budget schedule out of range', budget({ nodes: '0', schedule: '0 25 * * mon-fry', duration: '8h' })],
  ['a Gt value above the largest 64-bit integer', requirement({ key: 'example.com/x', operator: 'Gt', values: ['9999999999999999999'] })],
  ['a chart setting of the wrong type', karpenter({ controller: { settings: { batchMaxDuration: 'soon' } } })],
];

describe('the editor schema rejects what the command line rejects', () => {
  it.each(BAD.map(([name, overrides]) => [name, overrides]))('%s', (_name, overrides) => {
    const config = aConfig(overrides as Overrides);
    expect(cliRejects(config)).toBe(true);
    expect(schemaErrors(config)).not.toEqual([]);
  });

  it.each(CLI_ONLY_CASES.map(([name, overrides]) => [name, overrides]))('leaves to the command line: %s', (name, overrides) => {
    const config = aConfig(overrides as Overrides);
    expect(cliRejects(config)).toBe(true);
    // Were the schema to catch it, it would belong in the corpus above.
    expect(schemaErrors(config)).toEqual([]);
    expect(CLI_ONLY[name as string]).toBeTruthy();
  });
});

describe('the editor schema accepts what the command line accepts', () => {
  it('accepts the example config', () => {
    expect(schemaErrors(parse(readFileSync(EXAMPLE_CONFIG, 'utf8')))).toEqual([]);
  });

  it('accepts a fleet: per-cluster karpenter, teams as a list and as a map, kubernetesVersion, null maps, selector terms, budgets', () => {
    const config = aConfig({
      karpenter: { version: '1.14.1', controller: { settings: { batchMaxDuration: '20s' }, featureGates: { spotToSpotConsolidation: true } }, helmValues: { podAnnotations: { a: 'b' }, nodeSelector: { x: 'y' } } },
      clusters: {
        demo: { terraformOutputs: 'terraform/demo.json', teams: ['web'], kubernetesVersion: '1.34' },
        prod: { terraformOutputs: 'terraform/demo.json', destination: { name: 'prod' }, tenancy: { action: 'Deny' }, teams: { web: null, ml: { limits: { cpu: '10' }, pools: { gpu: { weight: 5 } } } }, karpenter: { version: '1.14.1', controller: { replicas: 3 } }, overrides: null },
      },
      defaults: { ami: { alias: 'bottlerocket@latest', allowLatest: true }, limits: { cpu: '100', memory: '400Gi' } },
      tenancy: { action: 'Audit' },
      teams: {
        web: {
          namespaces: ['web', 'web-jobs'],
          labels: { 'example.com/tier': 'web' }, tags: { project: 'x' },
          requirements: [{ key: 'karpenter.k8s.aws/instance-size', operator: 'In', values: ['xlarge', '2xlarge'] }, { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gt', values: ['3'] }],
          disruption: { budgets: [{ nodes: '10%' }, { nodes: '0', schedule: '@daily', duration: '8h' }, { nodes: '1', schedule: '0 9 * * mon-fri', duration: '1h30m', reasons: ['Drifted'] }] },
          subnetSelectorTerms: [{ tags: { a: 'b' } }], securityGroupSelectorTerms: [{ id: 'sg-1' }],
        },
        ml: { defaultPool: false, pools: { gpu: { ami: { family: 'Custom', selectorTerms: [{ name: 'my-ami-*', owner: 'self' }] }, userData: 'x', limits: { 'nvidia.com/gpu': '4' } } } },
        empty: null,
      },
    });
    expect(cliRejects(config)).toBe(false);
    expect(schemaErrors(config)).toEqual([]);
  });

  it('reports one mistake as one error, not one per branch of a null-or-map', () => {
    expect(schemaErrors(aConfig(team({ wieght: 5 })))).toHaveLength(1);
    expect(schemaErrors(aConfig(cluster({ overrides: { wieght: 5 } })))).toHaveLength(1);
  });
});

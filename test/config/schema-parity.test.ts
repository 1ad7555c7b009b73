/**
 * The editor schema (schema/platform.schema.json) against the command line: every bad config
 * of the corpus that the command line rejects must be rejected by the schema too, unless the
 * check is one JSON Schema cannot make (listed, with why, in CLI_ONLY); good configs pass both;
 * one mistake is one schema error, not three; and no edit of a good config makes the schema
 * refuse what the command line accepts.
 */
import Ajv from 'ajv';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadPlatform } from '../../src/config/load';
import { InputError } from '../../src/input/problems';
import { aConfig, EXAMPLE_CONFIG, Overrides, Plain, projectFiles, removeProjects } from '../builders';

afterAll(removeProjects);

const ROOT = join(__dirname, '..', '..');
// Editors check the schema's formats; its one format is the `uri` of a destination server
// (ajv knows no format by itself, and would warn at every use and skip the check).
const SCHEMA = JSON.parse(readFileSync(join(ROOT, 'schema/platform.schema.json'), 'utf8')) as Plain;
const validate = new Ajv({ allErrors: true, strict: false, formats: { uri: (s: string) => URL.canParse(s) } }).compile(SCHEMA);

function schemaErrors(config: unknown): string[] {
  return validate(config) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
}

/** `/teams/web/arch/0` as the command line writes it, `teams.web.arch[0]`; an unknown or missing key is named. */
function schemaPath(e: { instancePath: string; params: Record<string, unknown> }): string {
  const parts = e.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const extra = (e.params.additionalProperty ?? e.params.missingProperty ?? e.params.propertyName) as string | undefined;
  if (extra !== undefined) parts.push(extra);
  return parts.reduce((path, p) => (/^\d+$/.test(p) ? `${path}[${p}]` : /^[A-Za-z0-9_-]+$/.test(p) ? (path ? `${path}.${p}` : p) : `${path}["${p}"]`), '');
}

/** The fields the schema refuses a config at. */
function schemaFields(config: unknown): string[] {
  return validate(config) ? [] : (validate.errors ?? []).map((e) => schemaPath(e as never));
}

/** Where the sweep's projects would be: they are loaded from memory (LoadOptions.files), never written. */
const PROJECT_DIR = join(tmpdir(), 'karpenter-gitops-schema-parity');

/** The fields the command line refuses a config at; none when it accepts it. */
function cliFields(config: Plain): string[] {
  try {
    const { configPath, files } = projectFiles(PROJECT_DIR, { config });
    loadPlatform(configPath, { files });
    return [];
  } catch (err) {
    if (err instanceof InputError) return err.problems.map((p) => p.path);
    throw err;
  }
}

function cliRejects(config: Plain): boolean {
  return cliFields(config).length > 0;
}

const team = (fields: Plain): Overrides => ({ teams: { web: fields } });
const pool = (fields: Plain): Overrides => ({ teams: { web: { pools: { batch: fields } } } });
const karpenter = (fields: Plain): Overrides => ({ karpenter: { version: '1.14.1', ...fields } });
const cluster = (fields: Plain): Overrides => ({ clusters: { demo: { terraformOutputs: 'terraform/demo.json', ...fields } } });
const ami = (fields: Plain): Overrides => team({ ami: fields });
const budget = (fields: Plain): Overrides => team({ disruption: { budgets: [fields] } });
const requirement = (fields: Plain): Overrides => team({ requirements: [fields] });
const overlay = (fields: Plain): Overrides => ({ overlays: { x: { requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m7i'] }], ...fields } } });
const overlayRequirement = (fields: Plain): Overrides => overlay({ requirements: [fields] });
const window = (fields: Plain): Overrides => ({ windows: { nightly: { timeZone: 'UTC', days: ['mon'], start: '22:00', duration: '6h', ...fields } } });

/** Bad configs, and the field both the command line and the schema must refuse each at (or below it). */
const BAD: readonly (readonly [string, Overrides, string])[] = [
  ['an unknown top-level key', { gitopz: {} }, 'gitopz'],
  ['an unknown pool field', team({ instanceCategoriez: ['c'] }), 'teams.web.instanceCategoriez'],
  ['an unknown key in a pool of pools', pool({ weigth: 5 }), 'teams.web.pools.batch.weigth'],
  ['a missing repoURL', { gitops: { repoURL: undefined } }, 'gitops.repoURL'],
  ['a karpenter version with a v', karpenter({ version: 'v1.14.1' }), 'karpenter.version'],
  ['an unknown capacity type', team({ capacityTypes: ['spott'] }), 'teams.web.capacityTypes[0]'],
  ['an unknown arch', team({ arch: ['x86'] }), 'teams.web.arch[0]'],
  ['a team id with capitals', { teams: { Web: {} } }, 'teams.Web'],
  ['a Windows-reserved team id', { teams: { con: {} } }, 'teams.con'],
  ['a cluster id the generator writes in argocd/', { clusters: { demo: undefined, bootstrap: { terraformOutputs: 'terraform/demo.json' } } }, 'clusters.bootstrap'],
  ['no cluster', { clusters: { demo: undefined } }, 'clusters'],
  ['a cluster without terraformOutputs', { clusters: { demo: { terraformOutputs: undefined, smokeTests: false } } }, 'clusters.demo.terraformOutputs'],
  ['a destination with server and name', cluster({ destination: { server: 'https://x', name: 'x' } }), 'clusters.demo.destination'],
  ['an empty destination', cluster({ destination: {} }), 'clusters.demo.destination'],
  ['a destination server that is not a URL', cluster({ destination: { server: 'kubernetes.default.svc' } }), 'clusters.demo.destination.server'],
  ['a kubernetesVersion that is a number', cluster({ kubernetesVersion: 1.34 }), 'clusters.demo.kubernetesVersion'],
  ['a kubernetesVersion with a patch', cluster({ kubernetesVersion: '1.34.2' }), 'clusters.demo.kubernetesVersion'],
  ['a negative cpu limit', team({ limits: { cpu: '-1' } }), 'teams.web.limits.cpu'],
  ['a quantity that is not one', team({ limits: { memory: 'lots' } }), 'teams.web.limits.memory'],
  ['an unknown resource in limits', team({ limits: { cpus: '4' } }), 'teams.web.limits.cpus'],
  ['a resource name that is not one', team({ limits: { 'nvidia.com/': '1' } }), 'teams.web.limits["nvidia.com/"]'],
  ['a weight above 100', team({ weight: 101 }), 'teams.web.weight'],
  ['a float weight', team({ weight: 1.5 }), 'teams.web.weight'],
  ['a bad expireAfter', team({ expireAfter: '30d' }), 'teams.web.expireAfter'],
  ['a bad consolidateAfter', team({ disruption: { consolidateAfter: 'soon' } }), 'teams.web.disruption.consolidateAfter'],
  ['a v0.x consolidation policy', team({ disruption: { consolidationPolicy: 'WhenUnderutilized' } }), 'teams.web.disruption.consolidationPolicy'],
  ['budget nodes that are not a count or a percentage', budget({ nodes: 'ten' }), 'teams.web.disruption.budgets[0].nodes'],
  ['a budget percentage above 100', budget({ nodes: '101%' }), 'teams.web.disruption.budgets[0].nodes'],
  ['a budget schedule without a duration', budget({ nodes: '0', schedule: '0 9 * * *' }), 'teams.web.disruption.budgets[0]'],
  ['a budget duration without a schedule', budget({ nodes: '0', duration: '8h' }), 'teams.web.disruption.budgets[0]'],
  ['a budget duration in seconds', budget({ nodes: '0', schedule: '0 9 * * *', duration: '30s' }), 'teams.web.disruption.budgets[0].duration'],
  ['a budget schedule with four fields', budget({ nodes: '0', schedule: '0 9 * *', duration: '8h' }), 'teams.web.disruption.budgets[0].schedule'],
  ['a budget schedule with an unknown macro', budget({ nodes: '0', schedule: '@sometimes', duration: '8h' }), 'teams.web.disruption.budgets[0].schedule'],
  ['an unknown budget reason', budget({ nodes: '1', reasons: ['Expired'] }), 'teams.web.disruption.budgets[0].reasons[0]'],
  ['a budget reason twice', budget({ nodes: '1', reasons: ['Empty', 'Empty'] }), 'teams.web.disruption.budgets[0].reasons'],
  ['an alias with an unknown family', ami({ alias: 'ubuntu@v20250505' }), 'teams.web.ami.alias'],
  ['an alias without a release', ami({ alias: 'al2023' }), 'teams.web.ami.alias'],
  ['an al2023 alias with a Bottlerocket release', ami({ alias: 'al2023@v1.47.0' }), 'teams.web.ami.alias'],
  ['a Bottlerocket alias with a date', ami({ alias: 'bottlerocket@v20250505' }), 'teams.web.ami.alias'],
  ['@latest without allowLatest', ami({ alias: 'al2023@latest' }), 'teams.web.ami'],
  ['@latest with allowLatest false', ami({ alias: 'al2023@latest', allowLatest: false }), 'teams.web.ami'],
  ['alias and selectorTerms together', ami({ family: 'AL2023', alias: 'al2023@v20250505', selectorTerms: [{ id: 'ami-0123' }] }), 'teams.web.ami'],
  ['neither alias nor selectorTerms', ami({ family: 'AL2023' }), 'teams.web.ami'],
  ['selectorTerms without a family', ami({ selectorTerms: [{ id: 'ami-0123' }] }), 'teams.web.ami.family'],
  ['a family that does not match the alias', ami({ family: 'Bottlerocket', alias: 'al2023@v20250505' }), 'teams.web.ami.family'],
  ['an AMI term with nothing to select by', ami({ family: 'Custom', selectorTerms: [{ owner: 'self' }] }), 'teams.web.ami.selectorTerms[0]'],
  ['an AMI term with id and name', ami({ family: 'Custom', selectorTerms: [{ id: 'ami-0123', name: 'x' }] }), 'teams.web.ami.selectorTerms[0]'],
  ['an AMI id that is not one', ami({ family: 'Custom', selectorTerms: [{ id: 'image-1' }] }), 'teams.web.ami.selectorTerms[0].id'],
  ['an unknown AMI family', ami({ family: 'Ubuntu', alias: 'al2023@v20250505' }), 'teams.web.ami.family'],
  ['a subnet term with id and tags', team({ subnetSelectorTerms: [{ id: 'subnet-1', tags: { a: 'b' } }] }), 'teams.web.subnetSelectorTerms[0]'],
  ['an empty subnet term', team({ subnetSelectorTerms: [{}] }), 'teams.web.subnetSelectorTerms[0]'],
  ['a security group term with name and tags', team({ securityGroupSelectorTerms: [{ name: 'x', tags: { a: 'b' } }] }), 'teams.web.securityGroupSelectorTerms[0]'],
  ['more than 20 tags in a selector term', team({ subnetSelectorTerms: [{ tags: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }] }), 'teams.web.subnetSelectorTerms[0].tags'],
  ['a requirement In without values', requirement({ key: 'example.com/x', operator: 'In' }), 'teams.web.requirements[0].values'],
  ['a requirement In with no value', requirement({ key: 'example.com/x', operator: 'In', values: [] }), 'teams.web.requirements[0].values'],
  ['a requirement Exists with values', requirement({ key: 'example.com/x', operator: 'Exists', values: ['a'] }), 'teams.web.requirements[0].values'],
  ['a requirement Gt with a word', requirement({ key: 'example.com/x', operator: 'Gt', values: ['five'] }), 'teams.web.requirements[0].values'],
  ['a requirement Gt with two values', requirement({ key: 'example.com/x', operator: 'Gt', values: ['1', '2'] }), 'teams.web.requirements[0].values'],
  ['a requirement Gt above int64', requirement({ key: 'example.com/x', operator: 'Gt', values: ['99999999999999999999'] }), 'teams.web.requirements[0].values[0]'],
  ['a requirement with an unknown operator', requirement({ key: 'example.com/x', operator: 'Equals', values: ['a'] }), 'teams.web.requirements[0].operator'],
  ['a requirement on karpenter.sh/nodepool', requirement({ key: 'karpenter.sh/nodepool', operator: 'In', values: ['a'] }), 'teams.web.requirements[0].key'],
  ['a requirement on an unknown karpenter.k8s.aws label', requirement({ key: 'karpenter.k8s.aws/owner', operator: 'In', values: ['a'] }), 'teams.web.requirements[0].key'],
  ['a requirement with minValues above 50', requirement({ key: 'example.com/x', operator: 'Exists', minValues: 51 }), 'teams.web.requirements[0].minValues'],
  ['a label in the karpenter.sh domain', team({ labels: { 'karpenter.sh/team': 'a' } }), 'teams.web.labels["karpenter.sh/team"]'],
  ['a label kubernetes.io/hostname', team({ labels: { 'kubernetes.io/hostname': 'a' } }), 'teams.web.labels["kubernetes.io/hostname"]'],
  ['a label value with a space', team({ labels: { 'example.com/x': 'a b' } }), 'teams.web.labels["example.com/x"]'],
  ['a label key that is not one', team({ labels: { 'a b': 'x' } }), 'teams.web.labels["a b"]'],
  ['a tag Karpenter sets', team({ tags: { 'karpenter.sh/nodepool': 'x' } }), 'teams.web.tags["karpenter.sh/nodepool"]'],
  ['a kubernetes.io/cluster tag', team({ tags: { 'kubernetes.io/cluster/demo': 'owned' } }), 'teams.web.tags["kubernetes.io/cluster/demo"]'],
  ['a taint with an unknown effect', team({ taints: [{ key: 'a', effect: 'NoWay' }] }), 'teams.web.taints[0].effect'],
  ['a taint without an effect', team({ taints: [{ key: 'a' }] }), 'teams.web.taints[0].effect'],
  ['a volume size the CRD refuses', team({ volume: { size: '18Ti' } }), 'teams.web.volume.size'],
  ['an unknown volume type', team({ volume: { type: 'gp4' } }), 'teams.web.volume.type'],
  ['an instanceGeneration without a bound', team({ instanceGeneration: {} }), 'teams.web.instanceGeneration'],
  ['a negative instanceCpu bound', team({ instanceCpu: { gt: -1 } }), 'teams.web.instanceCpu.gt'],
  ['an unknown httpTokens', team({ metadataOptions: { httpTokens: 'sometimes' } }), 'teams.web.metadataOptions.httpTokens'],
  ['a hop limit above 64', team({ metadataOptions: { httpPutResponseHopLimit: 65 } }), 'teams.web.metadataOptions.httpPutResponseHopLimit'],
  ['an unknown eviction signal', team({ kubelet: { evictionHard: { 'cpu.available': '5%' } } }), 'teams.web.kubelet.evictionHard["cpu.available"]'],
  ['a smoke test cpu that is not a quantity', team({ smokeTest: { cpu: 'lots' } }), 'teams.web.smokeTest.cpu'],
  ['negative smoke-test replicas', team({ smokeTest: { replicas: -1 } }), 'teams.web.smokeTest.replicas'],
  ['an unknown container resource in a smoke test', team({ smokeTest: { resources: { pods: 1 } } }), 'teams.web.smokeTest.resources.pods'],
  ['an owner that is not a string', team({ owner: 5 }), 'teams.web.owner'],
  ['defaultPool that is not a boolean', team({ defaultPool: 'no' }), 'teams.web.defaultPool'],
  ['an unknown controller field', karpenter({ controller: { replica: 2 } }), 'karpenter.controller.replica'],
  ['an unknown controller host', karpenter({ controller: { host: 'ec2' } }), 'karpenter.controller.host'],
  ['an unknown log level', karpenter({ controller: { logLevel: 'verbose' } }), 'karpenter.controller.logLevel'],
  ['a feature gate that is not a boolean', karpenter({ controller: { featureGates: { spotToSpotConsolidation: 'yes' } } }), 'karpenter.controller.featureGates.spotToSpotConsolidation'],
  ['an unknown chart key in helmValues', karpenter({ helmValues: { replicaCount: 3 } }), 'karpenter.helmValues.replicaCount'],
  ['an unknown chart key below a closed map of helmValues', karpenter({ helmValues: { controller: { imag: {} } } }), 'karpenter.helmValues.controller.imag'],
  ['an unknown chart key in a cluster\'s helmValues', cluster({ karpenter: { helmValues: { replicaCount: 3 } } }), 'clusters.demo.karpenter.helmValues.replicaCount'],
  ['a cluster team that is not a map', cluster({ teams: { web: [] } }), 'clusters.demo.teams.web'],
  ['legacyNodepoolsApp other than orphan', cluster({ legacyNodepoolsApp: 'keep' }), 'clusters.demo.legacyNodepoolsApp'],
  ['smokeTests that is not a boolean', cluster({ smokeTests: 'no' }), 'clusters.demo.smokeTests'],
  ['an unknown key in overrides', cluster({ overrides: { wieght: 1 } }), 'clusters.demo.overrides.wieght'],
  ['an argocdNamespace that is not a name', { gitops: { repoURL: 'https://x', argocdNamespace: 'Argo CD' } }, 'gitops.argocdNamespace'],
  ['a userData that is not a string', team({ userData: 5 }), 'teams.web.userData'],
  ['a namespace that is not a DNS-1123 label', team({ namespaces: ['Web_Jobs'] }), 'teams.web.namespaces[0]'],
  ['a namespace listed twice', team({ namespaces: ['web', 'web'] }), 'teams.web.namespaces'],
  ['an empty namespaces list', team({ namespaces: [] }), 'teams.web.namespaces'],
  ['namespaces under a cluster\'s team', cluster({ teams: { web: { namespaces: ['web'] } } }), 'clusters.demo.teams.web.namespaces'],
  ['an unknown tenancy action', { tenancy: { action: 'Block' } }, 'tenancy.action'],
  ['an unknown key in a cluster\'s tenancy', cluster({ tenancy: { mode: 'Audit' } }), 'clusters.demo.tenancy.mode'],
  ['a Windows-reserved team id in a cluster\'s list of teams', cluster({ teams: ['con'] }), 'clusters.demo.teams[0]'],
  ['a label that is the bare domain karpenter.sh', team({ labels: { 'karpenter.sh': 'a' } }), 'teams.web.labels["karpenter.sh"]'],
  ['a label in a domain that ends in karpenter.sh', team({ labels: { 'xkarpenter.sh/a': 'a' } }), 'teams.web.labels["xkarpenter.sh/a"]'],
  ['a requirement on a karpenter.k8s.aws instance label that does not exist', requirement({ key: 'karpenter.k8s.aws/instance-colour', operator: 'Exists' }), 'teams.web.requirements[0].key'],
  ['a capacity reservation term with id and tags', team({ capacityTypes: ['reserved'], capacityReservationSelectorTerms: [{ id: 'cr-1', tags: { a: 'b' } }] }), 'teams.web.capacityReservationSelectorTerms[0]'],
  ['a capacity reservation term with nothing to select by', team({ capacityTypes: ['reserved'], capacityReservationSelectorTerms: [{ ownerID: '123456789012' }] }), 'teams.web.capacityReservationSelectorTerms[0]'],
  ['a team budget of 0 per hour', team({ budget: { perHour: '0.0' } }), 'teams.web.budget.perHour'],
  ['a smoke-test resource with a domain and no name', team({ smokeTest: { resources: { 'nvidia.com/': 1 } } }), 'teams.web.smokeTest.resources["nvidia.com/"]'],
  ['a smoke-test resource that is not an extended one', team({ smokeTest: { resources: { cpu: 1 } } }), 'teams.web.smokeTest.resources.cpu'],
  ['a resource a container cannot request in the controller\'s requests', karpenter({ controller: { resources: { requests: { pods: '1' } } } }), 'karpenter.controller.resources.requests.pods'],
  ['a day twice in a window', window({ days: ['mon', 'mon'] }), 'windows.nightly.days'],
  ['an unknown day in a window', window({ days: ['funday'] }), 'windows.nightly.days[0]'],
  ['a window start that is not HH:MM', window({ start: '25:00' }), 'windows.nightly.start'],
  ['an overlay with price and priceAdjustment', overlay({ price: '0.1', priceAdjustment: '-10%' }), 'overlays.x'],
  ['an overlay price that is not one', overlay({ price: '$1' }), 'overlays.x.price'],
  ['a negative overlay price', overlay({ price: -1 }), 'overlays.x.price'],
  ['an overlay priceAdjustment below -100%', overlay({ priceAdjustment: '-128%' }), 'overlays.x.priceAdjustment'],
  ['an overlay that sets cpu capacity', overlay({ capacity: { cpu: '1' } }), 'overlays.x.capacity.cpu'],
  ['an overlay without requirements', overlay({ requirements: [] }), 'overlays.x.requirements'],
  ['an overlay requirement on a karpenter.sh key it may not use', overlayRequirement({ key: 'karpenter.sh/team', operator: 'Exists' }), 'overlays.x.requirements[0].key'],
  ['an overlay requirement on an AWS label a NodeOverlay refuses', overlayRequirement({ key: 'karpenter.k8s.aws/instance-tenancy', operator: 'Exists' }), 'overlays.x.requirements[0].key'],
  ['an overlay requirement In without values', overlayRequirement({ key: 'example.com/x', operator: 'In' }), 'overlays.x.requirements[0].values'],
  ['an overlay requirement Gt with a word', overlayRequirement({ key: 'example.com/x', operator: 'Gt', values: ['five'] }), 'overlays.x.requirements[0].values'],
  ['an unknown key in a cluster\'s overlay', cluster({ overlays: { x: { requirements: [{ key: 'example.com/x', operator: 'Exists' }], wieght: 1 } } }), 'clusters.demo.overlays.x.wieght'],
];

/**
 * Checks only the command line makes, and why JSON Schema cannot: they depend on other
 * fields than the one checked (possibly set at another level of the inheritance), on other
 * files, or on Karpenter's data.
 */
const CLI_ONLY: Readonly<Record<string, string>> = {
  'the label team, which the generator sets': 'an adopted pool may set it, and adopted may be set at another level (team, cluster)',
  'the label cost-center, which the generator sets': 'an adopted pool may set it, and adopted may be set at another level (team, cluster)',
  'a tag the generator sets': 'an adopted pool may set it, and adopted may be set at another level (team, cluster)',
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
  'kubelet maxPods as a word on a 1.14 cluster': 'the cluster\'s Karpenter release: from 1.15 a string maxPods is a CEL expression',
  'a negative quantity in kubeReserved on a 1.14 cluster': 'the cluster\'s Karpenter release: from 1.15 a value that is not a quantity is a CEL expression, its controller refuses a negative one',
};

/** Bad configs the command line rejects by checks in {@link CLI_ONLY}, at the field given. */
const CLI_ONLY_CASES: readonly (readonly [string, Overrides, string])[] = [
  ['the label team, which the generator sets', team({ labels: { team: 'a' } }), 'teams.web.labels.team'],
  ['a tag the generator sets', team({ tags: { Name: 'x' } }), 'teams.web.tags.Name'],
  ['the label cost-center, which the generator sets', team({ labels: { 'cost-center': 'a' } }), 'teams.web.labels.cost-center'],
  // A string maxPods or a reserved value that is not a quantity is a CEL expression: whether it is
  // allowed depends on the cluster's release (1.15 takes it), which the editor schema cannot know.
  ['kubelet maxPods as a word on a 1.14 cluster', team({ kubelet: { maxPods: 'many' } }), 'teams.web.kubelet.maxPods'],
  ['a negative quantity in kubeReserved on a 1.14 cluster', team({ kubelet: { kubeReserved: { cpu: '-100m' } } }), 'teams.web.kubelet.kubeReserved.cpu'],
  ['reserved capacity without capacityReservationSelectorTerms', team({ capacityTypes: ['reserved'] }), 'teams.web.capacityTypes'],
  ['a kubelet imageGCHighThresholdPercent below the low one', team({ kubelet: { imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 60 } }), 'teams.web.kubelet.imageGCHighThresholdPercent'],
  ['a requirement on a key a field already sets', team({ arch: ['arm64'], requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] }), 'teams.web.requirements[0].key'],
  ['an AL2023 volume below 20Gi', team({ volume: { size: '10Gi' } }), 'teams.web.volume.size'],
  ['iops above what the volume size allows', team({ volume: { size: '20Gi', type: 'gp3', iops: 16000 } }), 'teams.web.volume.iops'],
  ['an unknown team in a cluster\'s teams', cluster({ teams: ['nope'] }), 'clusters.demo.teams[0]'],
  ['a pool of a cluster\'s team that the team does not define', cluster({ teams: { web: { pools: { nope: {} } } } }), 'clusters.demo.teams.web.pools.nope'],
  ['a terraformOutputs file that does not exist', cluster({ terraformOutputs: 'terraform/nope.json' }), 'clusters.demo.terraformOutputs'],
  ['an instance family that does not exist', team({ instanceFamilies: ['g6x'] }), 'teams.web.instanceFamilies[0]'],
  ['a smoke test larger than any instance type of the pool', team({ instanceTypes: ['m7g.large'], arch: ['arm64'], smokeTest: { cpu: '64' } }), 'teams.web.smokeTest.cpu'],
  ['an AMI release that cannot exist for the cluster\'s Kubernetes version', cluster({ kubernetesVersion: '1.34' }), 'defaults.ami.alias'],
  ['a budget schedule out of range', budget({ nodes: '0', schedule: '0 25 * * mon-fry', duration: '8h' }), 'teams.web.disruption.budgets[0].schedule'],
  ['a Gt value above the largest 64-bit integer', requirement({ key: 'example.com/x', operator: 'Gt', values: ['9999999999999999999'] }), 'teams.web.requirements[0].values[0]'],
  ['a chart setting of the wrong type', karpenter({ controller: { settings: { batchMaxDuration: 'soon' } } }), 'karpenter.controller.settings.batchMaxDuration'],
];

/** Whether a problem at `path` is at `field` or inside it. */
function at(field: string): (path: string) => boolean {
  return (path) => path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`);
}

describe('the editor schema rejects what the command line rejects, at the same field', () => {
  it.each(BAD.map(([name, overrides, field]) => [name, overrides, field]))('%s', (_name, overrides, field) => {
    const config = aConfig(overrides as Overrides);
    expect({ field, cli: cliFields(config).some(at(field as string)), schema: schemaFields(config).some(at(field as string)) })
      .toEqual({ field, cli: true, schema: true });
  });

  it.each(CLI_ONLY_CASES.map(([name, overrides, field]) => [name, overrides, field]))('leaves to the command line: %s', (name, overrides, field) => {
    const config = aConfig(overrides as Overrides);
    expect({ field, cli: cliFields(config).some(at(field as string)) }).toEqual({ field, cli: true });
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
          budget: { perHour: '0.5' }, buffer: { replicas: 1, cpu: 1, memory: '1Gi' }, smokeTest: { resources: { 'nvidia.com/gpu': 1 } },
          kubelet: { kubeReserved: { cpu: '100m' }, evictionHard: { 'memory.available': '5%' } },
        },
        ml: { defaultPool: false, pools: { gpu: { ami: { family: 'Custom', selectorTerms: [{ name: 'my-ami-*', owner: 'self' }] }, userData: 'x', limits: { 'nvidia.com/gpu': '4' } } } },
        empty: null,
      },
    });
    expect(cliRejects(config)).toBe(false);
    expect(schemaErrors(config)).toEqual([]);
  });

  it('accepts windows, overlays (null on a cluster), capacity reservations and a budget schedule with ?', () => {
    const config = aConfig({
      karpenter: { version: '1.14.1', controller: { resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { memory: '1Gi' } } } },
      windows: { nightly: { timeZone: 'Europe/Berlin', days: ['mon', 'tue'], start: '22:00', duration: '1h30m' } },
      clusters: { demo: { terraformOutputs: 'terraform/demo.json', window: 'nightly', overlays: { deal: null, slices: { requirements: [{ key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'Exists' }], capacity: { 'example.com/gpu-slice': '4' } } } } },
      overlays: { deal: { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }, { key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gt', values: ['3'] }], price: 0.12, weight: 3 } },
      teams: {
        web: {
          disruption: { budgets: [{ nodes: 1, schedule: '30 22 ? * SUN', duration: '8h' }] },
          capacityTypes: ['reserved', 'on-demand'], capacityReservationSelectorTerms: [{ id: 'cr-0123' }, { tags: { a: 'b' }, ownerID: '123456789012' }],
        },
      },
    });
    expect(cliFields(config)).toEqual([]);
    expect(schemaErrors(config)).toEqual([]);
  });

  it('reports one mistake as one error, not one per branch of a null-or-map', () => {
    expect(schemaErrors(aConfig(team({ wieght: 5 })))).toHaveLength(1);
    expect(schemaErrors(aConfig(cluster({ overrides: { wieght: 5 } })))).toHaveLength(1);
    expect(schemaErrors(aConfig(cluster({ overlays: { x: { requirements: [{ key: 'example.com/x', operator: 'Exists' }], wieght: 1 } } })))).toHaveLength(1);
  });
});

/** Values of every kind and at the edges of many fields: numbers, quantities, ids, durations, names. */
const VALUES: readonly unknown[] = [
  '', 'a', 'A b', '-1', '0', '0.5', '10%', '101%', '1Gi', '-1Gi', '500m', '18Ti', 'con', 'bootstrap', 'Web', 'https://x', 'kubernetes.default.svc',
  '1.34', '1.14.1', 'Audit', 'orphan', 'mon', 'funday', '22:00', 'Europe/Berlin', '6h', '10m', '1h30m', '30s', 'Never', '-28%', '0.12', 'ami-0123',
  'subnet-1', 'sg-1', 'cr-1', '123456789012', 'gp3', '5%', '9999999999999999999', -1, 0, 1, 1.5, 20, 21, 51, 65, 101, 2147483648,
  true, false, null, [], ['a'], ['mon', 'mon'], {}, { a: 'b' },
];

/** Values for the fields whose rules the editor schema writes as patterns and conditions, good and bad. */
const FIELD_VALUES: Readonly<Record<string, readonly unknown[]>> = {
  schedule: ['@daily', '@sometimes', '0 9 * * *', '30 22 ? * SUN', '*/15 0-6 1,15 jan-mar mon-fri', '0 25 * * *', '0 9 * *', '0 9 L * *'],
  nodes: ['0', '10%', '100%', '101%', 3, -1, 'ten'],
  duration: ['8h', '30m', '1h30m', '30s', '10m'],
  alias: ['al2023@latest', 'al2023@v20250505', 'al2@v20240807', 'bottlerocket@v1.39.1', 'bottlerocket@v20250505', 'ubuntu@v1', 'al2023'],
  family: ['AL2023', 'AL2', 'Bottlerocket', 'Custom', 'Ubuntu'],
  allowLatest: [true, false],
  key: ['karpenter.sh/capacity-type', 'karpenter.sh/nodepool', 'karpenter.sh/x', 'kubernetes.io/hostname', 'karpenter.k8s.aws/instance-family', 'karpenter.k8s.aws/instance-colour', 'example.com/x', 'a b'],
  operator: ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lte', 'Equals'],
  values: [[], ['a'], ['3'], ['3', '4'], ['five'], ['9999999999999999999']],
  reasons: [['Drifted'], ['Empty', 'Empty'], ['Expired']],
  days: [['mon'], ['mon', 'mon'], ['funday']],
  perHour: ['0', '0.0', '0.5', '40', 'lots'],
  price: ['0.12', 0.12, '$1', -1],
  priceAdjustment: ['-28%', '+10%', '-0.05', '-128%'],
  size: ['20Gi', '18Ti', '64000G', '1Ti'],
};

/** Map keys the editor schema checks (label, tag and resource names, ids), good and bad. */
const KEYS: readonly string[] = [
  'example.com/x', 'karpenter.sh', 'xkarpenter.sh/a', 'karpenter.sh/capacity-type', 'kubernetes.io/hostname', 'karpenter.k8s.aws/instance-family',
  'karpenter.k8s.aws/instance-colour', 'cost-center', 'Name', 'kubernetes.io/cluster/x', 'cpu', 'pods', 'hugepages-2Mi', 'nvidia.com/gpu', 'nvidia.com/',
  'con', 'bootstrap', 'batch', '',
];

/** A good config with a field of every section set. */
const GOOD = aConfig({
  karpenter: { version: '1.14.1', controller: { replicas: 2, resources: { requests: { cpu: '1' } }, featureGates: { spotToSpotConsolidation: true } }, helmValues: { podAnnotations: { a: 'b' } } },
  windows: { nightly: { timeZone: 'Europe/Berlin', days: ['mon', 'tue'], start: '22:00', duration: '6h' } },
  clusters: { demo: { terraformOutputs: 'terraform/demo.json', teams: { web: { limits: { cpu: '10' }, pools: { batch: { weight: 5 } } } }, window: 'nightly', destination: { name: 'demo' }, overlays: { deal: null } } },
  overlays: { deal: { requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m7i'] }], priceAdjustment: '-10%', weight: 2 } },
  defaults: { disruption: { budgets: [{ nodes: '10%' }, { nodes: '0', schedule: '@daily', duration: '8h', reasons: ['Drifted'] }] } },
  tenancy: { action: 'Audit' },
  teams: {
    web: {
      pools: { batch: {} }, namespaces: ['web'], labels: { 'example.com/tier': 'web' }, tags: { project: 'x' }, budget: { perHour: '40' },
      requirements: [{ key: 'karpenter.k8s.aws/instance-cpu', operator: 'Gt', values: ['3'] }], subnetSelectorTerms: [{ tags: { a: 'b' } }],
      kubelet: { maxPods: 20, kubeReserved: { cpu: '100m' } }, volume: { size: '20Gi', type: 'gp3' }, instanceGeneration: { gt: 5 },
      smokeTest: { replicas: 1, cpu: '1', memory: '2Gi' }, buffer: { replicas: 1, cpu: '1', memory: '1Gi' }, taints: [{ key: 'example.com/x', effect: 'NoSchedule' }],
    },
    ml: { defaultPool: false, pools: { gpu: { ami: { family: 'Custom', selectorTerms: [{ name: 'x', owner: 'self' }] }, capacityTypes: ['reserved'], capacityReservationSelectorTerms: [{ id: 'cr-1' }] } } },
  },
});

type Path = readonly (string | number)[];

/** Every place of a config: each map and list, and each value in them. */
function places(v: unknown, at: Path = []): Path[] {
  if (Array.isArray(v)) return [at, ...v.flatMap((x, i) => places(x, [...at, i]))];
  if (v !== null && typeof v === 'object') return [at, ...Object.entries(v).flatMap(([k, x]) => places(x, [...at, k]))];
  return [at];
}

/** The schema's properties for the map at `path`, where it lists them (the fields an edit may add there). */
function fieldsAt(path: Path): string[] {
  let node: Plain | undefined = SCHEMA;
  for (const p of path) {
    const branches: (Plain | undefined)[] = (node?.anyOf as Plain[] | undefined) ?? [node];
    const branch: Plain | undefined = branches.find((b) => (typeof p === 'number' ? b?.items : b?.properties || b?.additionalProperties));
    const props = branch?.properties as Record<string, Plain> | undefined;
    node = typeof p === 'number' ? branch?.items as Plain : props?.[p] ?? (typeof branch?.additionalProperties === 'object' ? branch.additionalProperties as Plain : undefined);
  }
  return Object.keys((node?.properties as Plain | undefined) ?? {});
}

/**
 * An edit of a config at one of its places: set a value (one of the field's own when it has
 * some), add a field the schema knows, rename a map key, or remove the value.
 */
const edit = fc.record({ kind: fc.constantFrom('set', 'add', 'rename', 'remove'), at: fc.nat(), pick: fc.nat(), value: fc.constantFrom(...VALUES) });

function applyEdits(config: Plain, edits: readonly { kind: string; at: number; pick: number; value: unknown }[]): Plain {
  const out = structuredClone(config);
  for (const e of edits) {
    const all = places(out).filter((p) => p.length > 0);
    const path = all[e.at % all.length];
    const parent = path.slice(0, -1).reduce<any>((o, k) => o[k], out);
    const last = path[path.length - 1];
    const valueFor = (field: string | number) => {
      const own = FIELD_VALUES[String(field)];
      return own && e.pick % 3 !== 0 ? own[e.pick % own.length] : e.value;
    };
    if (e.kind === 'remove') {
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
    } else if (e.kind === 'add' && !Array.isArray(parent)) {
      const fields = fieldsAt(path.slice(0, -1));
      const field = fields[e.pick % Math.max(fields.length, 1)];
      if (field !== undefined) parent[field] = valueFor(field);
    } else if (e.kind === 'rename' && !Array.isArray(parent)) {
      const key = KEYS[e.pick % KEYS.length];
      const value = parent[last];
      delete parent[last];
      parent[key] = value;
    } else {
      parent[last] = valueFor(last);
    }
  }
  return out;
}

/** Every single edit of the good config with the fields' own values and the keys above: each value set, each field added, each map key renamed. */
function singleEdits(): { readonly name: string; readonly config: Plain }[] {
  const out: { name: string; config: Plain }[] = [];
  const at = (config: Plain, path: Path) => path.reduce<any>((o, k) => o[k], config);
  for (const path of places(GOOD)) {
    const here = at(GOOD, path);
    const last = path[path.length - 1];
    for (const value of FIELD_VALUES[String(last)] ?? []) {
      const config = structuredClone(GOOD);
      at(config, path.slice(0, -1))[last] = value;
      out.push({ name: `${path.join('.')} = ${JSON.stringify(value)}`, config });
    }
    if (here === null || typeof here !== 'object' || Array.isArray(here)) continue;
    for (const field of fieldsAt(path).filter((f) => FIELD_VALUES[f] && !(f in here))) {
      for (const value of FIELD_VALUES[field]) {
        const config = structuredClone(GOOD);
        at(config, path)[field] = value;
        out.push({ name: `${[...path, field].join('.')} = ${JSON.stringify(value)}`, config });
      }
    }
    // A map (its schema lists no fields): rename each of its keys.
    if (fieldsAt(path).length > 0) continue;
    for (const key of Object.keys(here)) {
      for (const name of KEYS) {
        const config = structuredClone(GOOD);
        const map = at(config, path);
        const value = map[key];
        delete map[key];
        map[name] = value;
        out.push({ name: `${[...path, key].join('.')} renamed ${JSON.stringify(name)}`, config });
      }
    }
  }
  return out;
}

describe('the editor schema never refuses what the command line accepts', () => {
  it('holds for the good config', () => {
    expect(cliFields(GOOD)).toEqual([]);
    expect(schemaErrors(GOOD)).toEqual([]);
  });

  it('holds for every single edit of the good config with the values and keys above', () => {
    const edits = singleEdits();
    const refusedByTheSchemaOnly = edits.filter((e) => schemaErrors(e.config).length > 0 && !cliRejects(e.config)).map((e) => e.name);
    expect(refusedByTheSchemaOnly).toEqual([]);
    // The sweep is not empty: it edits every kind of place.
    expect(edits.length).toBeGreaterThan(400);
  });

  it('holds for random edits of the good config (a value set, a field added, a key renamed, a value removed)', () => {
    fc.assert(fc.property(fc.array(edit, { minLength: 1, maxLength: 3 }), (edits) => {
      const config = applyEdits(GOOD, edits);
      if (schemaErrors(config).length > 0) expect({ config, cli: cliRejects(config) }).toEqual({ config, cli: true });
    }), { seed: 29, numRuns: 100 });
  });
});

/**
 * One "fails when …" case per validation rule of config/platform.yaml: the
 * single-field rules of the schema (mirroring the Karpenter CRDs) and the
 * rules on merged pools. Each message must name the file, line, column and
 * field path, and say what was given and what is allowed.
 */
import { aConfig, Plain, rawConfigWithTeams, removeProjects } from '../builders';
import { formatProblem } from '../../src/input/problems';
import { aProblem, load, problemsOf } from './helpers';

afterAll(removeProjects);

/** One rule: the config that breaks it and the problem line it must produce. */
interface Rule {
  /** Completes "fails when …". */
  readonly when: string;
  /** The whole platform.yaml. */
  readonly config: Plain;
  /** Matches one problem line. */
  readonly problem: RegExp;
}

function failsWhen(rules: readonly Rule[]): void {
  it.each(rules)('fails when $when', ({ config, problem }) => {
    expect(problemsOf({ config })).toEqual(aProblem(problem));
  });
}

describe('unknown keys', () => {
  failsWhen([
    {
      when: 'a top-level key is misspelt',
      config: aConfig({ team: {} }),
      problem: /platform\.yaml:\d+:\d+: team: unknown key "team" \(did you mean "teams"\?\)/,
    },
    {
      when: 'a gitops key is misspelt',
      config: aConfig({ gitops: { repoUrl: 'https://github.com/acme/x.git' } }),
      problem: /platform\.yaml:\d+:\d+: gitops\.repoUrl: unknown key "repoUrl" \(did you mean "repoURL"\?\)/,
    },
    {
      when: 'a karpenter key is misspelt',
      config: aConfig({ karpenter: { namespce: 'karpenter' } }),
      problem: /platform\.yaml:\d+:\d+: karpenter\.namespce: unknown key "namespce" \(did you mean "namespace"\?\)/,
    },
    {
      when: 'a cluster key is misspelt',
      config: aConfig({ clusters: { demo: { smokeTest: false } } }),
      problem: /platform\.yaml:\d+:\d+: clusters\.demo\.smokeTest: unknown key "smokeTest" \(did you mean "smokeTests"\?\)/,
    },
    {
      when: 'a team key is misspelt',
      config: aConfig({ teams: { web: { capacityType: ['spot'] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.capacityType: unknown key "capacityType" \(did you mean "capacityTypes"\?\)/,
    },
    {
      when: 'a team-only key is misspelt',
      config: aConfig({ teams: { web: { costCentre: '4410' } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.costCentre: unknown key "costCentre" \(did you mean "costCenter"\?\)/,
    },
    {
      when: 'a pool key is misspelt',
      config: aConfig({ teams: { web: { pools: { gpu: { instanceFamily: ['g5'] } } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.pools\.gpu\.instanceFamily: unknown key "instanceFamily" \(did you mean "instanceFamilies"\?\)/,
    },
    {
      when: 'a defaults key is misspelt',
      config: aConfig({ defaults: { labls: { tier: 'x' } } }),
      problem: /platform\.yaml:\d+:\d+: defaults\.labls: unknown key "labls" \(did you mean "labels"\?\)/,
    },
    {
      when: 'a cluster overrides key is misspelt',
      config: aConfig({ clusters: { demo: { overrides: { zone: ['eu-west-1a'] } } } }),
      problem: /platform\.yaml:\d+:\d+: clusters\.demo\.overrides\.zone: unknown key "zone" \(did you mean "zones"\?\)/,
    },
    {
      when: 'a disruption key is misspelt',
      config: aConfig({ teams: { web: { disruption: { consolidateAftr: '1m' } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.disruption\.consolidateAftr: unknown key "consolidateAftr" \(did you mean "consolidateAfter"\?\)/,
    },
    {
      when: 'an ami key is misspelt',
      config: aConfig({ defaults: { ami: { alais: 'al2023@v20250505' } } }),
      problem: /platform\.yaml:\d+:\d+: defaults\.ami\.alais: unknown key "alais" \(did you mean "alias"\?\)/,
    },
    {
      when: 'a taint key is misspelt',
      config: aConfig({ teams: { web: { taints: [{ key: 'gpu', efect: 'NoSchedule' }] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.taints\[0\]\.efect: unknown key "efect" \(did you mean "effect"\?\)/,
    },
    {
      when: 'an unknown key is close to nothing known (the allowed keys are listed)',
      config: aConfig({ teams: { web: { volume: { xyzzy: 1 } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.volume\.xyzzy: unknown key "xyzzy" \(allowed: deleteOnTermination, encrypted, iops, kmsKeyID, size, throughput, type\)/,
    },
  ]);
});

describe('types', () => {
  failsWhen([
    {
      when: 'costCenter is a number (the fix is to quote it)',
      config: aConfig({ teams: { web: { costCenter: 4410 } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.costCenter: expected a string, got number 4410 \(quote it: "4410"\)/,
    },
    {
      when: 'weight is a string',
      config: aConfig({ teams: { web: { weight: 'ten' } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.weight: expected a number, got "ten"/,
    },
    {
      when: 'weight is not a whole number',
      config: aConfig({ teams: { web: { weight: 2.5 } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.weight: expected a whole number, got number 2\.5/,
    },
    {
      when: 'dedicated is a string',
      config: aConfig({ teams: { web: { dedicated: 'yes' } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.dedicated: expected true or false, got "yes"/,
    },
    {
      when: 'arch is a single value instead of a list',
      config: aConfig({ teams: { web: { arch: 'arm64' } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.arch: expected a list, got "arm64"/,
    },
    {
      when: 'a limit is not a quantity',
      config: aConfig({ teams: { web: { limits: { cpu: 'lots' } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.limits\.cpu: "lots"/,
    },
    {
      when: 'smokeTest.replicas is negative',
      config: aConfig({ teams: { web: { smokeTest: { replicas: -1 } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.smokeTest\.replicas: must be at least 0, got number -1/,
    },
    {
      when: 'the root volume\'s iops is 0 (a positive number: more than 0, not at least 0)',
      config: aConfig({ teams: { web: { volume: { iops: 0 } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.volume\.iops: must be more than 0, got number 0$/,
    },
  ]);
});

describe('enum values', () => {
  failsWhen([
    {
      when: 'a capacity type is misspelt',
      config: aConfig({ teams: { web: { capacityTypes: ['spott'] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.capacityTypes\[0\]: unknown value "spott" \(allowed: on-demand, spot, reserved\)/,
    },
    {
      when: 'an arch is not amd64 or arm64',
      config: aConfig({ teams: { web: { arch: ['amd64', 'x86_64'] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.arch\[1\]: unknown value "x86_64" \(allowed: amd64, arm64\)/,
    },
    {
      when: 'the consolidation policy is a v1beta1 name',
      config: aConfig({ teams: { web: { disruption: { consolidationPolicy: 'WhenUnderutilized' } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.disruption\.consolidationPolicy: "WhenUnderutilized" is the Karpenter v0\.x name: in v1 it is WhenEmptyOrUnderutilized \(allowed: WhenEmpty, WhenEmptyOrUnderutilized, Balanced\)/,
    },
    {
      when: 'a budget reason is misspelt',
      config: aConfig({ teams: { web: { disruption: { budgets: [{ nodes: '0', reasons: ['Drift'] }] } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.disruption\.budgets\[0\]\.reasons\[0\]: unknown value "Drift" \(allowed: Underutilized, Empty, Drifted, Repair\)/,
    },
    {
      when: 'the ami family is unknown',
      config: aConfig({ defaults: { ami: { family: 'Ubuntu' } } }),
      problem: /platform\.yaml:\d+:\d+: defaults\.ami\.family: unknown value "Ubuntu" \(allowed: AL2023, Bottlerocket, AL2, Custom\)/,
    },
    {
      when: 'the volume type is unknown',
      config: aConfig({ teams: { web: { volume: { type: 'gp4' } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.volume\.type: unknown value "gp4" \(allowed: gp3, gp2, io1, io2, sc1, st1, standard\)/,
    },
    {
      when: 'instanceStorePolicy is not RAID0',
      config: aConfig({ teams: { web: { instanceStorePolicy: 'RAID1' } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.instanceStorePolicy: unknown value "RAID1" \(allowed: RAID0\)/,
    },
    {
      when: 'the controller log level is unknown',
      config: aConfig({ karpenter: { controller: { logLevel: 'warn' } } }),
      problem: /platform\.yaml:\d+:\d+: karpenter\.controller\.logLevel: unknown value "warn" \(allowed: debug, info, error\)/,
    },
  ]);
});

describe('required fields and the Karpenter version', () => {
  failsWhen([
    {
      when: 'gitops.repoURL is missing',
      config: aConfig({ gitops: { repoURL: undefined } }),
      problem: /platform\.yaml:\d+:\d+: gitops\.repoURL: required field is missing \(expected string\)/,
    },
    {
      when: 'karpenter.version is missing',
      config: aConfig({ karpenter: { version: undefined } }),
      problem: /platform\.yaml:\d+:\d+: karpenter\.version: required field is missing \(expected string\)/,
    },
    {
      when: 'a cluster has no terraformOutputs',
      config: aConfig({ clusters: { demo: { terraformOutputs: undefined, smokeTests: true } } }),
      problem: /platform\.yaml:\d+:\d+: clusters\.demo\.terraformOutputs: required field is missing \(expected string\)/,
    },
    {
      when: 'there is no cluster',
      config: aConfig({ clusters: { demo: undefined } }),
      problem: /platform\.yaml:\d+:\d+: clusters: define at least one cluster/,
    },
    {
      when: 'the version starts with "v"',
      config: aConfig({ karpenter: { version: 'v1.14.1' } }),
      problem: /platform\.yaml:\d+:\d+: karpenter\.version: "v1\.14\.1": must be an exact version such as 1\.14\.1 \(no "v", no ranges\)/,
    },
    {
      when: 'the version is a range',
      config: aConfig({ karpenter: { version: '^1.14' } }),
      problem: /platform\.yaml:\d+:\d+: karpenter\.version: "\^1\.14": must be an exact version such as 1\.14\.1 \(no "v", no ranges\)/,
    },
    {
      when: 'the version has no patch number',
      config: aConfig({ karpenter: { version: '1.14' } }),
      problem: /platform\.yaml:\d+:\d+: karpenter\.version: "1\.14": must be an exact version/,
    },
  ]);
});

describe('team, cluster and pool names', () => {
  failsWhen([
    {
      when: 'a team id is a name Windows reserves (its files could not be checked out there)',
      config: aConfig({ teams: { con: {} } }),
      problem: /platform\.yaml:\d+:\d+: teams\.con: invalid key "con": is a name Windows reserves for devices \(con, prn, aux, nul, com1-9, lpt1-9\)/,
    },
    {
      when: 'a cluster id is a name Windows reserves',
      config: aConfig({ clusters: { demo: undefined, lpt1: { terraformOutputs: 'terraform/demo.json' } } }),
      problem: /platform\.yaml:\d+:\d+: clusters\.lpt1: invalid key "lpt1": is a name Windows reserves/,
    },
    {
      when: 'a team key is not a DNS label',
      config: aConfig({ teams: { Web_Team: {} } }),
      problem: /platform\.yaml:\d+:\d+: teams\.Web_Team: invalid key "Web_Team": .*must be a DNS-1123 label: lowercase letters, digits and "-"/,
    },
    {
      when: 'a cluster key is not a DNS label',
      config: aConfig({ clusters: { demo: undefined, 'Demo.1': { terraformOutputs: 'terraform/demo.json' } } }),
      problem: /platform\.yaml:\d+:\d+: clusters\["Demo\.1"\]: invalid key "Demo\.1": .*must be a DNS-1123 label/,
    },
    {
      when: 'a pool key is not a DNS label',
      config: aConfig({ teams: { web: { pools: { GPU: {} } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.pools\.GPU: invalid key "GPU": .*must be a DNS-1123 label/,
    },
    {
      when: 'a team key is longer than 63 characters',
      config: aConfig({ teams: { ['t'.repeat(64)]: {} } }),
      problem: /platform\.yaml:\d+:\d+: teams\.t{64}: invalid key "t{64}": must be at most 63 characters/,
    },
    {
      when: 'a cluster lists an unknown team (with a suggestion)',
      config: aConfig({ clusters: { demo: { teams: ['wbe'] } } }),
      problem: /platform\.yaml:\d+:\d+: clusters\.demo\.teams\[0\]: unknown team "wbe" \(did you mean "web"\?\)/,
    },
    {
      when: 'a cluster lists an unknown team (nothing close: the teams are listed)',
      config: aConfig({ clusters: { demo: { teams: ['payments'] } } }),
      problem: /platform\.yaml:\d+:\d+: clusters\.demo\.teams\[0\]: unknown team "payments" \(teams: web\)/,
    },
    {
      when: 'a team has defaultPool: false and no pools',
      config: aConfig({ teams: { web: { defaultPool: false } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.defaultPool: team has no pools: with defaultPool: false, define at least one entry under pools/,
    },
    {
      when: 'a pool name (<team>-<key>) is longer than 63 characters',
      config: aConfig({ teams: { web: { pools: { ['x'.repeat(60)]: {} } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.pools\.x{60}: pool name "web-x{60}" is 64 characters; Kubernetes names of NodePools are at most 63: shorten the team or pool key/,
    },
    {
      when: 'team "a-b" clashes with pool "b" of team "a"',
      config: aConfig({ teams: { web: undefined, a: { pools: { b: {} } }, 'a-b': {} } }),
      problem: /platform\.yaml:\d+:\d+: teams\.a-b: pool name "a-b" is also the name of the pool at teams\.a\.pools\.b: rename one of them/,
    },
  ]);

  it('names an invalid key once in its message', () => {
    expect(problemsOf({ config: aConfig({ teams: { Web_Team: {} } }) })).toEqual(aProblem(
      /teams\.Web_Team: invalid key "Web_Team": must be a DNS-1123 label/,
    ));
  });
});

describe('labels', () => {
  failsWhen([
    {
      when: 'a label is in the karpenter.sh domain',
      config: aConfig({ teams: { web: { labels: { 'karpenter.sh/foo': 'x' } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.labels\["karpenter\.sh\/foo"\]: invalid key "karpenter\.sh\/foo": label domain "karpenter\.sh" is restricted/,
    },
    {
      when: 'a label is in the karpenter.k8s.aws domain and not well known',
      config: aConfig({ teams: { web: { labels: { 'karpenter.k8s.aws/foo': 'x' } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.labels\["karpenter\.k8s\.aws\/foo"\]: invalid key "karpenter\.k8s\.aws\/foo": label domain "karpenter\.k8s\.aws" is restricted to its well-known labels/,
    },
    {
      when: 'a label is kubernetes.io/hostname',
      config: aConfig({ teams: { web: { labels: { 'kubernetes.io/hostname': 'x' } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.labels\["kubernetes\.io\/hostname"\]: invalid key "kubernetes\.io\/hostname": label "kubernetes\.io\/hostname" is restricted/,
    },
    {
      when: 'a label is karpenter.sh/nodepool',
      config: aConfig({ teams: { web: { labels: { 'karpenter.sh/nodepool': 'x' } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.labels\["karpenter\.sh\/nodepool"\]: invalid key "karpenter\.sh\/nodepool": label "karpenter\.sh\/nodepool" is restricted \(Karpenter sets it\)/,
    },
    {
      when: 'a label key is not a qualified name',
      config: aConfig({ teams: { web: { labels: { '-tier': 'x' } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.labels\.-tier: invalid key "-tier": .*must be a label key such as "example\.com\/role" or "role"/,
    },
    {
      when: 'a label value is longer than 63 characters',
      config: aConfig({ teams: { web: { labels: { tier: 'v'.repeat(64) } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.labels\.tier: must be at most 63 characters/,
    },
    {
      when: 'a label value has a character labels cannot have',
      config: aConfig({ teams: { web: { labels: { tier: 'front end' } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.labels\.tier: "front end": must be a label value: at most 63 letters, digits, "-", "_" or "\.", starting and ending with a letter or digit/,
    },
    {
      when: 'the user sets the label "team" (the generator sets it)',
      config: aConfig({ teams: { web: { labels: { team: 'frontend' } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.labels\.team: the label "team" is set by the generator to the team id: remove it/,
    },
  ]);
});

describe('requirements', () => {
  const withRequirement = (requirement: Plain) => aConfig({ teams: { web: { requirements: [requirement] } } });
  failsWhen([
    {
      when: 'a Gt value is larger than a 64-bit integer (the CRD\'s CEL int() would overflow)',
      config: withRequirement({ key: 'example.com/size', operator: 'Gt', values: ['99999999999999999999'] }),
      problem: /teams\.web\.requirements\[0\]\.values\[0\]: 99999999999999999999 is larger than the largest 64-bit integer \(9223372036854775807\), which the NodePool CRD reads it as$/,
    },
    {
      when: 'the requirements and the ones generated from pool fields exceed the CRD\'s 100',
      config: aConfig({ teams: { web: { instanceCategories: ['c'], requirements: Array.from({ length: 98 }, (_, i) => ({ key: `example.com/k${i}`, operator: 'Exists' })) } } }),
      problem: /teams\.web\.requirements: a NodePool takes at most 100 requirements; this pool has 101: 98 in requirements and 3 from arch, capacityTypes, instanceCategories$/,
    },
    {
      when: 'a requirement key is in the karpenter.sh domain',
      config: withRequirement({ key: 'karpenter.sh/foo', operator: 'Exists' }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.requirements\[0\]\.key: label domain "karpenter\.sh" is restricted/,
    },
    {
      when: 'a requirement key is in the karpenter.k8s.aws domain and not well known',
      config: withRequirement({ key: 'karpenter.k8s.aws/foo', operator: 'Exists' }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.requirements\[0\]\.key: label domain "karpenter\.k8s\.aws" is restricted to its well-known labels/,
    },
    {
      when: 'a requirement key is kubernetes.io/hostname',
      config: withRequirement({ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.requirements\[0\]\.key: label "kubernetes\.io\/hostname" is restricted/,
    },
    {
      when: 'a requirement key is karpenter.sh/nodepool',
      config: withRequirement({ key: 'karpenter.sh/nodepool', operator: 'Exists' }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.requirements\[0\]\.key: label "karpenter\.sh\/nodepool" is restricted/,
    },
    {
      when: 'an In requirement has no values',
      config: withRequirement({ key: 'example.com/tier', operator: 'In' }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.requirements\[0\]\.values: operator In needs at least one value/,
    },
    {
      when: 'an Exists requirement has values',
      config: withRequirement({ key: 'example.com/tier', operator: 'Exists', values: ['a'] }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.requirements\[0\]\.values: operator Exists takes no values/,
    },
    {
      when: 'a Gt requirement has a value that is not an integer',
      config: withRequirement({ key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'Gt', values: ['two'] }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.requirements\[0\]\.values: operator Gt needs exactly one non-negative integer value, e\.g\. \["5"\]/,
    },
    {
      when: 'a Gt requirement has two values',
      config: withRequirement({ key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'Gt', values: ['1', '2'] }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.requirements\[0\]\.values: operator Gt needs exactly one non-negative integer value/,
    },
    {
      when: 'minValues is above the number of values',
      config: withRequirement({ key: 'example.com/tier', operator: 'In', values: ['a', 'b'], minValues: 3 }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.requirements\[0\]\.minValues: minValues 3 is more than the 2 value\(s\) given/,
    },
    {
      when: 'the operator is unknown',
      config: withRequirement({ key: 'example.com/tier', operator: 'Equals', values: ['a'] }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.requirements\[0\]\.operator: unknown value "Equals" \(allowed: In, NotIn, Exists, DoesNotExist, Gt, Gte, Lt, Lte\)/,
    },
    {
      when: 'a requirement sets kubernetes.io/arch, which the field arch sets',
      config: withRequirement({ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.requirements\[0\]\.key: kubernetes\.io\/arch is already set by the field arch: change it there instead/,
    },
    {
      when: 'a requirement sets beta.kubernetes.io/arch, the alias Karpenter reads as kubernetes.io/arch, which the field arch sets',
      config: withRequirement({ key: 'beta.kubernetes.io/arch', operator: 'In', values: ['arm64'] }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.requirements\[0\]\.key: beta\.kubernetes\.io\/arch is already set by the field arch: change it there instead/,
    },
    {
      when: 'a requirement sets karpenter.sh/capacity-type, which the field capacityTypes sets',
      config: withRequirement({ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['spot'] }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.requirements\[0\]\.key: karpenter\.sh\/capacity-type is already set by the field capacityTypes/,
    },
    {
      when: 'a requirement sets the instance type that instanceTypes also sets',
      config: aConfig({
        teams: { web: { instanceTypes: ['m7i.large'], requirements: [{ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m7i.xlarge'] }] } },
      }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.requirements\[0\]\.key: node\.kubernetes\.io\/instance-type is already set by the field instanceTypes/,
    },
  ]);

  it('accepts a requirement on the instance type when instanceTypes is not set', () => {
    const { platform } = load({ config: withRequirement({ key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m7i.large'] }) });
    expect(platform.clusters[0].pools[0].settings.requirements).toEqual([
      { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m7i.large'] },
    ]);
  });
});

describe('quantities', () => {
  it('fails when a limit is not a quantity, showing what a quantity looks like', () => {
    expect(problemsOf({ config: aConfig({ teams: { web: { limits: { cpu: 'lots' } } } }) })).toEqual(aProblem(
      /platform\.yaml:\d+:\d+: teams\.web\.limits\.cpu: .*expected a Kubernetes quantity such as "2", "500m" or "64Gi"/,
    ));
  });

  failsWhen([
    {
      when: 'a limit names a resource that does not exist (the limit would never bind)',
      config: aConfig({ teams: { web: { limits: { cpus: '10' } } } }),
      problem: /teams\.web\.limits\.cpus: invalid key "cpus": unknown resource "cpus" \(did you mean "cpu"\?\) \(allowed: cpu, memory, ephemeral-storage, pods, nodes, hugepages-<size>, or domain\/name such as nvidia\.com\/gpu\)$/,
    },
    {
      when: 'a controller resource name has characters no resource name has',
      config: aConfig({ karpenter: { controller: { resources: { requests: { 'memo*ry': '1Gi' } } } } }),
      problem: /karpenter\.controller\.resources\.requests\["memo\*ry"\]: invalid key "memo\*ry": unknown resource "memo\*ry" \(did you mean "memory"\?\)/,
    },
    {
      when: 'a controller resource is one a container cannot request',
      config: aConfig({ karpenter: { controller: { resources: { limits: { nodes: '1' } } } } }),
      problem: /karpenter\.controller\.resources\.limits\.nodes: invalid key "nodes": unknown resource "nodes"/,
    },
  ]);

  it('accepts extended and hugepages resources in limits', () => {
    expect(load({ config: aConfig({ teams: { web: { limits: { 'nvidia.com/gpu': '8', 'hugepages-2Mi': '1Gi', nodes: '10' } } } }) })
      .platform.clusters[0].pools[0].settings.limits).toEqual({ cpu: '100', memory: '400Gi', 'nvidia.com/gpu': '8', 'hugepages-2Mi': '1Gi', nodes: '10' });
  });
});

describe('instance bounds', () => {
  failsWhen([
    {
      when: 'instanceGeneration sets no bound',
      config: aConfig({ teams: { web: { instanceGeneration: {} } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.instanceGeneration: set at least one of gt, gte, lt, lte/,
    },
    {
      when: 'instanceCpu has an unknown bound',
      config: aConfig({ teams: { web: { instanceCpu: { min: 4 } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.instanceCpu\.min: unknown key "min"/,
    },
    {
      when: 'an instanceMemoryMiB bound is negative',
      config: aConfig({ teams: { web: { instanceMemoryMiB: { gt: -1 } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.instanceMemoryMiB\.gt: must be at least 0, got number -1/,
    },
  ]);
});

describe('disruption, expiry and weight', () => {
  const withBudget = (budget: Plain) => aConfig({ teams: { web: { disruption: { budgets: [budget] } } } });
  failsWhen([
    {
      when: 'a budget has a schedule without a duration',
      config: withBudget({ nodes: '0', schedule: '0 9 * * mon-fri' }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.disruption\.budgets\[0\]: schedule and duration go together: add duration/,
    },
    {
      when: 'a budget has a duration without a schedule',
      config: withBudget({ nodes: '0', duration: '8h' }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.disruption\.budgets\[0\]: schedule and duration go together: add schedule/,
    },
    {
      when: 'budget nodes is neither a count nor a percentage',
      config: withBudget({ nodes: 'ten' }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.disruption\.budgets\[0\]\.nodes: "ten": must be a node count or percentage such as "10%" or "0"/,
    },
    {
      when: 'budget nodes is a percentage above 100',
      config: withBudget({ nodes: '150%' }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.disruption\.budgets\[0\]\.nodes: "150%": must be a node count or percentage/,
    },
    {
      when: 'a budget duration is in days',
      config: withBudget({ nodes: '0', schedule: '@daily', duration: '1d' }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.disruption\.budgets\[0\]\.duration: "1d": must be minutes and\/or hours such as "30m" or "8h"/,
    },
    {
      when: 'a budget schedule is not cron',
      config: withBudget({ nodes: '0', schedule: 'every day', duration: '8h' }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.disruption\.budgets\[0\]\.schedule: a schedule has 5 fields \(minute, hour, day of month, month, day of week\), got 2: e\.g\. "0 9 \* \* mon-fri"$/,
    },
    {
      when: 'a budget schedule has an hour out of range',
      config: withBudget({ nodes: '0', schedule: '0 25 * * mon-fri', duration: '8h' }),
      problem: /teams\.web\.disruption\.budgets\[0\]\.schedule: hour "25": 25 is out of range 0-23$/,
    },
    {
      when: 'a budget schedule names a day that does not exist',
      config: withBudget({ nodes: '0', schedule: '0 9 * * mon-fry', duration: '8h' }),
      problem: /teams\.web\.disruption\.budgets\[0\]\.schedule: day of week "mon-fry": unknown name "fry" \(months jan-dec, days sun-sat\)$/,
    },
    {
      when: 'a budget schedule has a character cron does not take',
      config: withBudget({ nodes: '0', schedule: '0 9 : * mon-fri', duration: '8h' }),
      problem: /teams\.web\.disruption\.budgets\[0\]\.schedule: day of month ":": ":" is not allowed \(Karpenter's cron takes numbers, names, \*, \?, ranges, lists and steps\)$/,
    },
    {
      when: 'a budget schedule uses a Quartz extension Karpenter does not parse',
      config: withBudget({ nodes: '0', schedule: '0 9 L * *', duration: '8h' }),
      problem: /teams\.web\.disruption\.budgets\[0\]\.schedule: day of month "L": "L" is not allowed/,
    },
    {
      when: 'a budget schedule has a day of week 7',
      config: withBudget({ nodes: '0', schedule: '0 9 * * 7', duration: '8h' }),
      problem: /teams\.web\.disruption\.budgets\[0\]\.schedule: day of week "7": days are 0-6 \(sun-sat\); 7 is not allowed$/,
    },
    {
      when: 'a budget schedule is a macro the CRD does not allow',
      config: withBudget({ nodes: '0', schedule: '@every 5m', duration: '8h' }),
      problem: /teams\.web\.disruption\.budgets\[0\]\.schedule: unknown schedule macro "@every 5m" \(allowed: @annually, @yearly, @monthly, @weekly, @daily, @midnight, @hourly\)$/,
    },
    {
      when: 'consolidateAfter is not a duration',
      config: aConfig({ teams: { web: { disruption: { consolidateAfter: '1 minute' } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.disruption\.consolidateAfter: "1 minute": must be a duration such as "30s", "10m", "720h" or "Never"/,
    },
    {
      when: 'expireAfter is in days',
      config: aConfig({ teams: { web: { expireAfter: '30d' } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.expireAfter: "30d": must be a duration such as "30s", "10m", "720h" or "Never"/,
    },
    {
      when: 'terminationGracePeriod is Never',
      config: aConfig({ teams: { web: { terminationGracePeriod: 'Never' } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.terminationGracePeriod: "Never": must be a duration such as "30s", "10m" or "24h"/,
    },
    {
      when: 'weight is 0',
      config: aConfig({ teams: { web: { weight: 0 } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.weight: must be at least 1, got number 0/,
    },
    {
      when: 'weight is 101',
      config: aConfig({ teams: { web: { weight: 101 } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.weight: must be at most 100, got number 101/,
    },
  ]);
});

describe('ami', () => {
  const withAmi = (ami: Plain) => aConfig({ defaults: { ami } });
  failsWhen([
    {
      when: 'the alias is not family@version',
      config: withAmi({ alias: 'al2023' }),
      problem: /platform\.yaml:\d+:\d+: defaults\.ami\.alias: "al2023": must be family@version, e\.g\. al2023@v20250505 or bottlerocket@v1\.39\.1/,
    },
    {
      when: 'the alias family is unknown',
      config: withAmi({ alias: 'ubuntu@v20250505' }),
      problem: /platform\.yaml:\d+:\d+: defaults\.ami\.alias: unknown alias family "ubuntu" \(allowed: al2023, bottlerocket, al2\)/,
    },
    {
      when: 'the alias is @latest without allowLatest',
      config: withAmi({ alias: 'al2023@latest' }),
      problem: /platform\.yaml:\d+:\d+: defaults\.ami\.alias: "al2023@latest" replaces every node on each AMI release: pin a version \(e\.g\. al2023@v20250505\) or set allowLatest: true/,
    },
    {
      when: 'the alias is @latest and allowLatest is false',
      config: withAmi({ alias: 'bottlerocket@latest', allowLatest: false }),
      problem: /platform\.yaml:\d+:\d+: defaults\.ami\.alias: "bottlerocket@latest" replaces every node on each AMI release/,
    },
    {
      when: 'the family does not match the alias',
      config: withAmi({ family: 'Bottlerocket', alias: 'al2023@v20250505' }),
      problem: /platform\.yaml:\d+:\d+: defaults\.ami\.family: family Bottlerocket does not match alias al2023@v20250505 \(use AL2023, or leave family out\)/,
    },
    {
      when: 'selectorTerms are set without a family',
      config: withAmi({ alias: undefined, selectorTerms: [{ id: 'ami-0123456789abcdef0' }] }),
      problem: /platform\.yaml:\d+:\d+: defaults\.ami\.family: family is required with selectorTerms \(one of AL2023, Bottlerocket, AL2, Custom\)/,
    },
    {
      when: 'alias and selectorTerms are set together',
      config: withAmi({ family: 'Custom', selectorTerms: [{ id: 'ami-0123456789abcdef0' }] }),
      problem: /platform\.yaml:\d+:\d+: defaults\.ami\.selectorTerms: set either alias or selectorTerms, not both/,
    },
    {
      when: 'ami sets neither alias nor selectorTerms',
      config: aConfig({ defaults: { ami: undefined }, teams: { web: { ami: { family: 'AL2023' } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.ami: set alias \(e\.g\. al2023@v20250505\) or selectorTerms with family/,
    },
    {
      when: 'no level of the chain sets ami',
      config: aConfig({ defaults: undefined }),
      problem: /platform\.yaml:\d+:\d+: teams\.web: pool web has no ami: set ami\.alias \(e\.g\. al2023@v20250505\) under defaults or this team/,
    },
    {
      when: 'an ami selector term is empty',
      config: withAmi({ alias: undefined, family: 'Custom', selectorTerms: [{ owner: 'self' }] }),
      problem: /platform\.yaml:\d+:\d+: defaults\.ami\.selectorTerms\[0\]: a selector term needs one of id, name, tags, ssmParameter/,
    },
    {
      when: 'an ami selector term combines id and name',
      config: withAmi({ alias: undefined, family: 'Custom', selectorTerms: [{ id: 'ami-0123456789abcdef0', name: 'my-ami' }] }),
      problem: /platform\.yaml:\d+:\d+: defaults\.ami\.selectorTerms\[0\]\.id: id cannot be combined with name, owner or tags in one term/,
    },
  ]);

  it('accepts @latest with allowLatest: true', () => {
    const { platform } = load({ config: withAmi({ alias: 'al2023@latest', allowLatest: true }) });
    expect(platform.clusters[0].pools[0].settings.ami).toEqual({ alias: 'al2023@latest', allowLatest: true });
  });

  it('accepts family Custom with any alias, given userData', () => {
    const config = aConfig({ teams: { web: { ami: { family: 'Custom', alias: 'al2023@v20250505' }, userData: '#!/bin/bash\n/etc/eks/bootstrap.sh demo' } } });
    const { platform, warnings } = load({ config });
    expect(platform.clusters[0].pools[0].settings.ami).toMatchObject({ family: 'Custom', alias: 'al2023@v20250505' });
    expect(warnings.map(formatProblem)).toEqual([]);
  });

  it('warns when family Custom has no userData (Karpenter does not bootstrap custom AMIs)', () => {
    const config = aConfig({ teams: { web: { ami: { family: 'Custom', selectorTerms: [{ id: 'ami-0123456789abcdef0' }] } } } });
    expect(load({ config }).warnings.map(formatProblem)).toEqual([
      expect.stringMatching(/platform\.yaml:\d+:\d+: teams\.web\.ami\.family: pool web uses family Custom, which Karpenter does not bootstrap/),
    ]);
  });
});

describe('volume', () => {
  const withVolume = (volume: Plain) => aConfig({ teams: { web: { volume } } });
  failsWhen([
    {
      when: 'an AL2023 root volume is below 20Gi',
      config: withVolume({ size: '10Gi' }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.volume\.size: AL2023 root volume must be at least 20Gi \(the AMI snapshot size\), got 10Gi/,
    },
    {
      when: 'an AL2023 root volume is 20G (decimal gigabytes, below 20Gi)',
      config: withVolume({ size: '20G' }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.volume\.size: AL2023 root volume must be at least 20Gi .*got 20G/,
    },
    {
      when: 'an AL2 root volume is below 20Gi',
      config: aConfig({ defaults: { ami: { alias: 'al2@v20250505' } }, teams: { web: { volume: { size: '8Gi' } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.volume\.size: AL2 root volume must be at least 20Gi/,
    },
    {
      when: 'the volume size has a bad format',
      config: withVolume({ size: '20 GB' }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.volume\.size: "20 GB": must be a whole size in Gi, G, Ti or T that the EC2NodeClass CRD accepts, such as "20Gi"/,
    },
    {
      when: 'the volume is larger than its type allows (gp3 at most 16TiB)',
      config: withVolume({ size: '20000Gi' }),
      problem: /teams\.web\.volume\.size: gp3 volumes are 1Gi to 16384Gi, got 20000Gi$/,
    },
    {
      when: 'the volume is smaller than its type allows (st1 at least 125GiB)',
      config: withVolume({ size: '100Gi', type: 'st1' }),
      problem: /teams\.web\.volume\.size: st1 volumes are 125Gi to 16384Gi, got 100Gi$/,
    },
    {
      when: 'the volume size is a bare unit (which the CRD pattern lets through)',
      config: withVolume({ size: 'Ti' }),
      problem: /teams\.web\.volume\.size: "Ti": must be a whole size in Gi, G, Ti or T/,
    },
    {
      when: 'the volume size is one the CRD pattern refuses (18Ti)',
      config: withVolume({ size: '18Ti' }),
      problem: /teams\.web\.volume\.size: "18Ti": .*the CRD refuses some Ti sizes such as 18Ti: write them in Gi/,
    },
    {
      when: 'throughput is set on a gp2 volume',
      config: withVolume({ type: 'gp2', throughput: 250 }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.volume\.throughput: throughput applies to gp3 volumes only \(type is gp2\)/,
    },
    {
      when: 'iops is set on a gp2 volume',
      config: withVolume({ type: 'gp2', iops: 3000 }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.volume\.iops: iops applies to gp3, io1 and io2 volumes only \(type is gp2\)/,
    },
    {
      when: 'gp3 iops is above 16000',
      config: withVolume({ iops: 20000 }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.volume\.iops: gp3 iops must be 3000\.\.16000, got 20000/,
    },
    {
      when: 'gp3 iops is below 3000',
      config: withVolume({ iops: 1000 }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.volume\.iops: gp3 iops must be 3000\.\.16000, got 1000/,
    },
    {
      when: 'gp3 throughput is above 1000',
      config: withVolume({ throughput: 2000 }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.volume\.throughput: gp3 throughput must be 125\.\.1000 MiB\/s, got 2000/,
    },
    {
      when: 'kmsKeyID is set with encrypted: false',
      config: withVolume({ encrypted: false, kmsKeyID: 'arn:aws:kms:eu-west-1:111122223333:key/abcd' }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.volume\.kmsKeyID: kmsKeyID needs encrypted: true/,
    },
  ]);

  it('accepts a Bottlerocket data volume below 20Gi', () => {
    const config = aConfig({ teams: { web: { ami: { alias: 'bottlerocket@v1.39.1' }, volume: { size: '10Gi' } } } });
    expect(load({ config }).platform.clusters[0].pools[0].settings.volume.size).toBe('10Gi');
  });
});

describe('capacity reservations', () => {
  failsWhen([
    {
      when: 'reserved capacity has no capacityReservationSelectorTerms',
      config: aConfig({ teams: { web: { capacityTypes: ['reserved', 'on-demand'] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.capacityTypes: pool web uses reserved capacity: add capacityReservationSelectorTerms \(e\.g\. \[\{ id: cr-0123456789abcdef0 \}\]\)/,
    },
    {
      when: 'capacityReservationSelectorTerms are set without reserved capacity',
      config: aConfig({ teams: { web: { capacityReservationSelectorTerms: [{ id: 'cr-0123456789abcdef0' }] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.capacityReservationSelectorTerms: pool web never uses capacityReservationSelectorTerms: add reserved to capacityTypes/,
    },
    {
      when: 'a capacity reservation id is not cr-…',
      config: aConfig({ teams: { web: { capacityTypes: ['reserved'], capacityReservationSelectorTerms: [{ id: 'cr-XYZ' }] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.capacityReservationSelectorTerms\[0\]\.id: "cr-XYZ": must be a capacity reservation id such as cr-0123456789abcdef0/,
    },
    {
      when: 'a capacity reservation owner is not a 12-digit account id',
      config: aConfig({ teams: { web: { capacityTypes: ['reserved'], capacityReservationSelectorTerms: [{ tags: { a: 'b' }, ownerID: '1234' }] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.capacityReservationSelectorTerms\[0\]\.ownerID: "1234": must be a 12-digit AWS account id/,
    },
    {
      when: 'a capacity reservation term combines id and tags',
      config: aConfig({ teams: { web: { capacityTypes: ['reserved'], capacityReservationSelectorTerms: [{ id: 'cr-0123', tags: { a: 'b' } }] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.capacityReservationSelectorTerms\[0\]\.id: id cannot be combined with tags, ownerID or instanceMatchCriteria in one term/,
    },
  ]);
});

describe('tags', () => {
  const withTag = (key: string) => aConfig({ teams: { web: { tags: { [key]: 'x' } } } });
  failsWhen([
    {
      when: 'a tag key starts with kubernetes.io/cluster',
      config: withTag('kubernetes.io/cluster/demo'),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.tags\["kubernetes\.io\/cluster\/demo"\]: tag key "kubernetes\.io\/cluster\/demo" is restricted \(Karpenter sets it\)/,
    },
    {
      when: 'a tag key is eks:eks-cluster-name',
      config: withTag('eks:eks-cluster-name'),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.tags\["eks:eks-cluster-name"\]: tag key "eks:eks-cluster-name" is restricted/,
    },
    {
      when: 'a tag key is karpenter.sh/nodepool',
      config: withTag('karpenter.sh/nodepool'),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.tags\["karpenter\.sh\/nodepool"\]: tag key "karpenter\.sh\/nodepool" is restricted/,
    },
    {
      when: 'a tag key is karpenter.k8s.aws/ec2nodeclass',
      config: withTag('karpenter.k8s.aws/ec2nodeclass'),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.tags\["karpenter\.k8s\.aws\/ec2nodeclass"\]: tag key "karpenter\.k8s\.aws\/ec2nodeclass" is restricted/,
    },
    {
      when: 'the user sets the tag "team" (the generator sets it)',
      config: withTag('team'),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.tags\.team: the tag "team" is set by the generator: remove it \(use owner\/costCenter on the team\)/,
    },
    {
      when: 'the user sets the tag "Name" (the generator sets it)',
      config: withTag('Name'),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.tags\.Name: the tag "Name" is set by the generator: remove it/,
    },
    {
      when: 'the user sets the tag "managed-by" (the generator sets it)',
      config: withTag('managed-by'),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.tags\.managed-by: the tag "managed-by" is set by the generator: remove it/,
    },
  ]);
});

describe('kubelet', () => {
  const withKubelet = (kubelet: Plain) => aConfig({ teams: { web: { kubelet } } });
  failsWhen([
    {
      when: 'imageGCHighThresholdPercent is below imageGCLowThresholdPercent',
      config: withKubelet({ imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 60 }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.kubelet\.imageGCHighThresholdPercent: must be greater than imageGCLowThresholdPercent/,
    },
    {
      when: 'imageGCHighThresholdPercent equals imageGCLowThresholdPercent',
      config: withKubelet({ imageGCHighThresholdPercent: 60, imageGCLowThresholdPercent: 60 }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.kubelet\.imageGCHighThresholdPercent: must be greater than imageGCLowThresholdPercent/,
    },
    {
      when: 'evictionSoft has no matching grace period',
      config: withKubelet({ evictionSoft: { 'memory.available': '5%' } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.kubelet\.evictionSoft\["memory\.available"\]: needs a matching kubelet\.evictionSoftGracePeriod\.memory\.available/,
    },
    {
      when: 'evictionSoftGracePeriod has no matching evictionSoft',
      config: withKubelet({ evictionSoftGracePeriod: { 'memory.available': '1m' } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.kubelet\.evictionSoftGracePeriod\["memory\.available"\]: needs a matching kubelet\.evictionSoft\.memory\.available/,
    },
    {
      when: 'an eviction signal is unknown',
      config: withKubelet({ evictionHard: { 'memory.free': '5%' } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.kubelet\.evictionHard\["memory\.free"\]: unknown key "memory\.free"/,
    },
    {
      when: 'an eviction threshold is not a percentage or quantity',
      config: withKubelet({ evictionHard: { 'memory.available': 'five percent' } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.kubelet\.evictionHard\["memory\.available"\]: "five percent": must be a percentage or quantity such as "5%" or "100Mi"/,
    },
    {
      when: 'kubeReserved has an unknown resource',
      config: withKubelet({ kubeReserved: { gpu: '1' } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.kubelet\.kubeReserved\.gpu: unknown key "gpu"/,
    },
    {
      when: 'kubeReserved is negative',
      config: withKubelet({ kubeReserved: { cpu: '-100m' } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.kubelet\.kubeReserved\.cpu: cannot be negative/,
    },
    {
      when: 'systemReserved is not a quantity',
      config: withKubelet({ systemReserved: { memory: 'lots' } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.kubelet\.systemReserved\.memory: "lots": must be a quantity such as "100m" or "1Gi"/,
    },
  ]);

  it('fails when an eviction signal is unknown, naming the allowed signals', () => {
    expect(problemsOf({ config: withKubelet({ evictionHard: { 'memory.free': '5%' } }) })).toEqual(aProblem(
      /teams\.web\.kubelet\.evictionHard\["memory\.free"\]: unknown key "memory\.free" \((did you mean "memory\.available"\?|allowed: [^)]*memory\.available[^)]*)\)/,
    ));
  });

  it('fails when kubeReserved has an unknown resource, naming the allowed resources', () => {
    expect(problemsOf({ config: withKubelet({ kubeReserved: { gpu: '1' } }) })).toEqual(aProblem(
      /teams\.web\.kubelet\.kubeReserved\.gpu: unknown key "gpu" \((did you mean "cpu"\?|allowed: cpu, ephemeral-storage, memory, pid)\)/,
    ));
  });
});

describe('metadataOptions', () => {
  failsWhen([
    {
      when: 'the hop limit is 0',
      config: aConfig({ teams: { web: { metadataOptions: { httpPutResponseHopLimit: 0 } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.metadataOptions\.httpPutResponseHopLimit: must be at least 1, got number 0/,
    },
    {
      when: 'the hop limit is 65',
      config: aConfig({ teams: { web: { metadataOptions: { httpPutResponseHopLimit: 65 } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.metadataOptions\.httpPutResponseHopLimit: must be at most 64, got number 65/,
    },
    {
      when: 'httpTokens is unknown',
      config: aConfig({ teams: { web: { metadataOptions: { httpTokens: 'always' } } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.metadataOptions\.httpTokens: unknown value "always" \(allowed: required, optional\)/,
    },
  ]);
});

describe('subnet and security group selector terms', () => {
  failsWhen([
    {
      when: 'subnetSelectorTerms is empty',
      config: aConfig({ teams: { web: { subnetSelectorTerms: [] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.subnetSelectorTerms: needs at least 1 item\(s\)/,
    },
    {
      when: 'securityGroupSelectorTerms is empty',
      config: aConfig({ teams: { web: { securityGroupSelectorTerms: [] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.securityGroupSelectorTerms: needs at least 1 item\(s\)/,
    },
    {
      when: 'a subnet term sets both id and tags',
      config: aConfig({ teams: { web: { subnetSelectorTerms: [{ id: 'subnet-0123', tags: { tier: 'private' } }] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.subnetSelectorTerms\[0\]: a subnet selector term needs exactly one of id, tags/,
    },
    {
      when: 'a subnet term sets neither id nor tags',
      config: aConfig({ teams: { web: { subnetSelectorTerms: [{}] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.subnetSelectorTerms\[0\]: a subnet selector term needs exactly one of id, tags/,
    },
    {
      when: 'a security group term sets both id and tags',
      config: aConfig({ teams: { web: { securityGroupSelectorTerms: [{ id: 'sg-0123', tags: { tier: 'nodes' } }] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.securityGroupSelectorTerms\[0\]: a security group selector term needs exactly one of id, name, tags/,
    },
    {
      when: 'a subnet id is not subnet-…',
      config: aConfig({ teams: { web: { subnetSelectorTerms: [{ id: 'sn-0123' }] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.subnetSelectorTerms\[0\]\.id: "sn-0123": must be a subnet id such as subnet-0123456789abcdef0/,
    },
    {
      when: 'a selector tag value is empty',
      config: aConfig({ teams: { web: { subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': '' } }] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.subnetSelectorTerms\[0\]\.tags\["karpenter\.sh\/discovery"\]: empty tag values are not supported/,
    },
  ]);
});

describe('taints', () => {
  failsWhen([
    {
      when: 'a taint effect is unknown',
      config: aConfig({ teams: { web: { taints: [{ key: 'example.com/gpu', effect: 'NoSchedul' }] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.taints\[0\]\.effect: unknown value "NoSchedul" \(allowed: NoSchedule, PreferNoSchedule, NoExecute\)/,
    },
    {
      when: 'a taint has no effect',
      config: aConfig({ teams: { web: { taints: [{ key: 'example.com/gpu' }] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.taints\[0\]\.effect: .*\(allowed: NoSchedule, PreferNoSchedule, NoExecute\)/,
    },
    {
      when: 'a taint key is "dedicated" on a dedicated pool',
      config: aConfig({ teams: { web: { taints: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.taints\[0\]\.key: the taint "dedicated" is set by dedicated: true; remove it or set dedicated: false/,
    },
    {
      when: 'a startup taint key is "dedicated" on a dedicated pool',
      config: aConfig({ teams: { web: { startupTaints: [{ key: 'dedicated', effect: 'NoExecute' }] } } }),
      problem: /platform\.yaml:\d+:\d+: teams\.web\.startupTaints\[0\]\.key: the taint "dedicated" is set by dedicated: true/,
    },
  ]);

  it('fails when a taint has no effect, saying the field is missing', () => {
    const problems = problemsOf({ config: aConfig({ teams: { web: { taints: [{ key: 'example.com/gpu' }] } } }) });
    expect(problems).toEqual(aProblem(/teams\.web\.taints\[0\]\.effect: required field is missing \(allowed: NoSchedule, PreferNoSchedule, NoExecute\)/));
    expect(problems.join('\n')).not.toMatch(/undefined/);
  });

  it('accepts a "dedicated" taint when dedicated is false', () => {
    const config = aConfig({ teams: { web: { dedicated: false, taints: [{ key: 'dedicated', value: 'shared', effect: 'NoSchedule' }] } } });
    expect(load({ config }).platform.clusters[0].pools[0].settings.taints).toEqual([{ key: 'dedicated', value: 'shared', effect: 'NoSchedule' }]);
  });
});

describe('clusters', () => {
  failsWhen([
    {
      when: 'a destination sets both server and name',
      config: aConfig({ clusters: { demo: { destination: { server: 'https://kubernetes.default.svc', name: 'in-cluster' } } } }),
      problem: /platform\.yaml:\d+:\d+: clusters\.demo\.destination: set exactly one of server, name/,
    },
    {
      when: 'a destination server is not a URL',
      config: aConfig({ clusters: { demo: { destination: { server: 'kubernetes.default.svc' } } } }),
      problem: /platform\.yaml:\d+:\d+: clusters\.demo\.destination\.server: .*must be an https:\/\/ URL of a Kubernetes API server/,
    },
    {
      when: 'smokeTests is not a boolean',
      config: aConfig({ clusters: { demo: { smokeTests: 'no' } } }),
      problem: /platform\.yaml:\d+:\d+: clusters\.demo\.smokeTests: expected true or false, got "no"/,
    },
  ]);
});

describe('values the API server or EC2 would reject later', () => {
  it('writes a fractional limit as a string: the CRD takes an integer or a string, never a float', () => {
    const { platform } = load({ config: aConfig({ teams: { web: { limits: { cpu: 0.5, memory: 64 } } } }) });
    expect(platform.clusters[0].pools[0].settings.limits).toEqual({ cpu: '0.5', memory: '64' });
  });

  it('fails when a limit is negative', () => {
    expect(problemsOf({ config: aConfig({ teams: { web: { limits: { cpu: '-1' } } } }) })).toEqual(aProblem(
      /platform\.yaml:\d+:\d+: teams\.web\.limits\.cpu: cannot be negative/,
    ));
  });

  it('fails when a budget lists a reason twice (the CRD keeps reasons as a set)', () => {
    const config = aConfig({ teams: { web: { disruption: { budgets: [{ nodes: '1', reasons: ['Drifted', 'Drifted'] }] } } } });
    expect(problemsOf({ config })).toEqual(aProblem(/teams\.web\.disruption\.budgets\[0\]\.reasons: each reason may appear once/));
  });

  it('fails when a kubelet count does not fit the CRD int32', () => {
    expect(problemsOf({ config: aConfig({ teams: { web: { kubelet: { maxPods: 3000000000 } } } }) })).toEqual(aProblem(
      /teams\.web\.kubelet\.maxPods: must be at most 2147483647/,
    ));
  });

  it('fails when gp3 iops exceed 500 per GiB of the volume', () => {
    const config = aConfig({ teams: { web: { ami: { alias: 'bottlerocket@v1.39.1' }, volume: { size: '10Gi', iops: 16000 } } } });
    expect(problemsOf({ config })).toEqual(aProblem(
      /teams\.web\.volume\.iops: gp3 allows at most 500 iops per GiB: 16000 iops needs at least 32Gi, volume\.size is 10Gi/,
    ));
  });

  it('reports a misspelt required key once, as the typo', () => {
    const config = aConfig({ teams: { web: { taints: [{ key: 'example.com/x', efect: 'NoSchedule' }] } } });
    expect(problemsOf({ config })).toEqual([
      expect.stringMatching(/teams\.web\.taints\[0\]\.efect: unknown key "efect" \(did you mean "effect"\?\)/),
    ]);
  });

  it('accepts YAML anchors and merge keys', () => {
    const rawConfig = rawConfigWithTeams(['  web: &base', '    arch: [arm64]', '  api:', '    <<: *base', '    weight: 10']);
    const { platform } = load({ rawConfig });
    expect(platform.clusters[0].pools.find((p) => p.name === 'api')?.settings).toMatchObject({ arch: ['arm64'], weight: 10 });
  });
});

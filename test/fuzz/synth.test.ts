/**
 * Fuzz test (seeded, bounded): configs built from every pool field, with values at the
 * edges of what the config accepts (int64 bounds, 100 requirements, strings every YAML
 * reader reads differently, keys named like object internals), go through the real loader
 * and synth. Every config the loader accepts must give NodePools, EC2NodeClasses and
 * Applications that the real CRDs accept (schema and CEL, test/support/crd-validator.ts)
 * and that the API server has nothing to default in (no drift). The loader may refuse a
 * config, but only with located problems, never a crash.
 */
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { stringify } from 'yaml';
import { loadPlatform } from '../../src/config/load';
import { InputError } from '../../src/input/problems';
import { synthesize } from '../../src/synth';
import { aTerraform, removeProjects, writeProject } from '../builders';
import { defaulted, knownKinds, validate } from '../support/crd-validator';

afterAll(removeProjects);

/** Strings that some YAML reader takes for another type, and other awkward but valid ones. */
const TRICKY = ['0o17', '0X1F', '1e3', '08', '012', 'yes', 'on', 'n', 'true', 'null', '1_000', '2026-01-01', 'constructor', 'toString', 'a.b', 'x-y_z'];
const labelValue = fc.oneof(fc.constantFrom(...TRICKY.filter((v) => /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(v))), fc.stringMatching(/^[a-z0-9]([-a-z0-9_.]{0,10}[a-z0-9])?$/));
const dnsLabel = fc.stringMatching(/^[a-z]([-a-z0-9]{0,8}[a-z0-9])?$/).filter((s) => !/^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/.test(s));
const labelKey = fc.oneof(fc.constantFrom('example.com/role', 'constructor'), fc.stringMatching(/^[a-z]{1,6}\.io\/[a-z0-9]{1,8}$/));
// Mostly in range; now and then just past int64, which the loader must refuse.
const int64Edge = fc.oneof(
  { arbitrary: fc.constantFrom('0', '9223372036854775807', '9223372036854775806'), weight: 10 },
  { arbitrary: fc.bigInt({ min: 0n, max: 9223372036854775807n }).map(String), weight: 10 },
  { arbitrary: fc.constantFrom('9223372036854775808', '99999999999999999999'), weight: 1 },
);

const requirement = fc.oneof(
  // Instance-type labels with values that exist, so the dry run against the catalog lets most pools through.
  fc.constantFrom(
    { key: 'karpenter.k8s.aws/instance-size', operator: 'NotIn', values: ['metal', 'nano'] },
    { key: 'karpenter.k8s.aws/instance-hypervisor', operator: 'In', values: ['nitro'] },
    { key: 'karpenter.k8s.aws/instance-cpu-manufacturer', operator: 'NotIn', values: ['amd'] },
  ),
  fc.record({ key: labelKey, operator: fc.constantFrom('In', 'NotIn'), values: fc.uniqueArray(labelValue, { minLength: 1, maxLength: 4 }) }),
  fc.record({ key: labelKey, operator: fc.constantFrom('Exists', 'DoesNotExist') }),
  fc.record({ key: labelKey, operator: fc.constantFrom('Gt', 'Gte', 'Lt', 'Lte'), values: int64Edge.map((v) => [v]) }),
);
const bounds = fc.record({ gt: fc.nat(4), lte: fc.integer({ min: 8, max: 4096 }) }, { requiredKeys: [] }).filter((b) => Object.keys(b).length > 0);
const schedule = fc.constantFrom('0 9 * * mon-fri', '@daily', '*/15 * * * *', '0 0 1 jan *', '30 22 ? * SUN');
const budget = fc.oneof(
  fc.record({ nodes: fc.constantFrom('10%', '0', '3', '100%') }),
  fc.record({ nodes: fc.constantFrom('0', '20%'), schedule, duration: fc.constantFrom('8h', '30m', '1h30m'), reasons: fc.subarray(['Drifted', 'Empty', 'Underutilized'], { minLength: 1 }) }),
);
const ami = fc.oneof(
  fc.constantFrom({ alias: 'al2023@v20250505' }, { alias: 'bottlerocket@v1.39.1' }, { alias: 'al2@v20240807' }, { family: 'AL2023', alias: 'al2023@latest', allowLatest: true }),
  fc.constant({ family: 'Custom', selectorTerms: [{ name: 'my-ami-*', owner: '123456789012' }] }),
  fc.constant({ family: 'AL2023', selectorTerms: [{ id: 'ami-0123456789abcdef0' }] }),
);
const taint = fc.record({ key: labelKey.filter((k) => k !== 'dedicated'), value: fc.option(labelValue, { nil: undefined }), effect: fc.constantFrom('NoSchedule', 'PreferNoSchedule', 'NoExecute') }, { requiredKeys: ['key', 'effect'] });
const tags = fc.dictionary(fc.oneof(fc.constantFrom(...TRICKY, '__proto__'), fc.stringMatching(/^[A-Za-z][A-Za-z0-9:._-]{0,10}$/)).filter((k) => !['team', 'owner', 'cost-center', 'managed-by', 'Name'].includes(k)), fc.oneof(fc.constantFrom(...TRICKY), fc.string({ maxLength: 12 })), { maxKeys: 5 });

const poolFields = fc.record({
  dedicated: fc.boolean(),
  labels: fc.dictionary(labelKey.filter((k) => k !== 'team' && !k.startsWith('karpenter.k8s.aws/') && !k.startsWith('topology.')), labelValue, { maxKeys: 4 }),
  taints: fc.uniqueArray(taint, { maxLength: 3, selector: (t) => `${t.key}:${t.effect}` }),
  arch: fc.subarray(['amd64', 'arm64'], { minLength: 1 }),
  capacityTypes: fc.subarray(['on-demand', 'spot'], { minLength: 1 }),
  instanceCategories: fc.subarray(['c', 'm', 'r', 'g'], { minLength: 1 }),
  instanceGeneration: bounds,
  instanceCpu: bounds,
  zones: fc.subarray(['ap-northeast-2a', 'ap-northeast-2b'], { minLength: 1 }),
  requirements: fc.array(requirement, { maxLength: 6 }),
  limits: fc.dictionary(fc.constantFrom('cpu', 'memory', 'nvidia.com/gpu', 'nodes'), fc.oneof(fc.constantFrom('10', '500m', '64Gi', '1e3'), fc.nat(1000)), { maxKeys: 3 }),
  weight: fc.integer({ min: 1, max: 100 }),
  expireAfter: fc.constantFrom('720h', 'Never', '1h30m'),
  terminationGracePeriod: fc.constantFrom('24h', '30m'),
  disruption: fc.record({
    consolidationPolicy: fc.constantFrom('WhenEmpty', 'WhenEmptyOrUnderutilized', 'Balanced'),
    consolidateAfter: fc.constantFrom('0s', '30s', 'Never', '10m'),
    budgets: fc.array(budget, { minLength: 1, maxLength: 3 }),
  }, { requiredKeys: [] }),
  ami,
  volume: fc.oneof(
    fc.record({ size: fc.constantFrom('20Gi', '100Gi', '1Ti', '16384Gi', '2T'), type: fc.constantFrom('gp3', 'gp2'), encrypted: fc.boolean() }, { requiredKeys: [] }),
    fc.record({ size: fc.constantFrom('64000G', '58Ti', '20Gi'), type: fc.constant('io2'), iops: fc.constantFrom(3000, 16000), encrypted: fc.constant(true) }),
  ),
  kubelet: fc.record({
    maxPods: fc.integer({ min: 1, max: 2147483647 }),
    systemReserved: fc.record({ cpu: fc.constant('100m'), memory: fc.constant('100Mi') }, { requiredKeys: [] }),
    evictionHard: fc.record({ 'memory.available': fc.constant('5%') }, { requiredKeys: [] }),
  }, { requiredKeys: [] }),
  metadataOptions: fc.record({ httpPutResponseHopLimit: fc.integer({ min: 1, max: 64 }), httpProtocolIPv6: fc.constantFrom('enabled', 'disabled') }, { requiredKeys: [] }),
  userData: fc.constantFrom('#!/bin/bash\necho yes\n', 'on', '[settings.kubernetes]\nmax-pods = 110\n'),
  tags,
  associatePublicIPAddress: fc.boolean(),
  detailedMonitoring: fc.boolean(),
  smokeTest: fc.record({ replicas: fc.nat(3), cpu: fc.constantFrom('1', '500m', 0.25), memory: fc.constantFrom('512Mi', '2Gi') }, { requiredKeys: [] }),
}, { requiredKeys: [] });

const team = fc.tuple(poolFields, fc.dictionary(dnsLabel, poolFields, { maxKeys: 2 }), fc.option(fc.constantFrom('0X1F', 'web@acme.example', 'yes'), { nil: undefined }))
  .map(([fields, pools, owner]) => ({ ...fields, ...(Object.keys(pools).length ? { pools } : {}), ...(owner ? { owner, costCenter: '0o17' } : {}) }));

const config = fc.record({
  teams: fc.dictionary(dnsLabel, team, { minKeys: 1, maxKeys: 3 }),
  defaults: poolFields,
  clusters: fc.uniqueArray(dnsLabel, { minLength: 1, maxLength: 2 }),
});

describe('fuzzing synth against the real CRDs', () => {
  it('only accepts configs whose every NodePool, EC2NodeClass and Application the CRDs accept unchanged', () => {
    const kinds = new Set(knownKinds().map((k) => k.split(' ')[1]));
    let accepted = 0;
    fc.assert(fc.property(config, ({ teams, defaults, clusters }) => {
      const project = writeProject({
        rawConfig: stringify({
          gitops: { repoURL: 'https://github.com/acme/platform-gitops.git' },
          karpenter: { version: '1.14.1' },
          clusters: Object.fromEntries(clusters.map((c, i) => [c, { terraformOutputs: `terraform/${c}.json`, ...(i > 0 ? { destination: { name: c } } : {}) }])),
          defaults: { ami: { alias: 'al2023@v20250505' }, ...defaults },
          teams,
        }),
        terraform: Object.fromEntries(clusters.map((c) => [c, aTerraform({ cluster_name: c })])),
      });
      let platform;
      try {
        platform = loadPlatform(project.configPath).platform;
      } catch (err) {
        if (!(err instanceof InputError)) throw err;
        for (const p of err.problems) expect(p.line).toBeGreaterThan(0);
        return;
      }
      accepted++;
      for (const [path, text] of synthesize(platform)) {
        if (!path.endsWith('.yaml')) continue;
        for (const doc of parseAllDocuments(text).map((d) => d.toJS())) {
          if (!kinds.has(doc.kind)) continue;
          expect({ path, problems: validate(doc) }).toEqual({ path, problems: [] });
          expect({ path, stored: defaulted(doc) }).toEqual({ path, stored: doc });
        }
      }
    }), { seed: 20261123, numRuns: 100, endOnFailure: true });
    // The generator must mostly make configs the loader accepts, or the property says little.
    expect(accepted).toBeGreaterThan(40);
  }, 60_000);
});

/**
 * The CRD defaults of each vendored release (`crdDefaults`) and `withCrdDefaults`, which applies
 * them: run against the model of the API server in test/support/crd-validator.ts (`defaulted`,
 * written from apiextensions-apiserver's defaulting), driven by the very CRD files the facts
 * say they were read from (by sha256), and counted from those files' YAML here.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { isNode, isPair, isScalar, parse, parseDocument, visit } from 'yaml';
import { withCrdDefaults } from '../../src/release/defaults';
import { release, vendoredVersions } from '../../src/release/release';
import type { CrdDefault, CrdKind, ReleaseFacts } from '../../src/release/types';
import { defaulted, useReleaseCrds } from '../support/crd-validator';

const FIXTURES = join(__dirname, '..', 'fixtures');
const KINDS: readonly CrdKind[] = ['NodePool', 'EC2NodeClass', 'NodeOverlay'];

/** Every vendored copy of a release's CRDs (test/fixtures/karpenter-crds/v<version>/), by sha256. */
const VENDORED_CRDS = new Map(readdirSync(join(FIXTURES, 'karpenter-crds')).flatMap((release) => {
  const dir = join(FIXTURES, 'karpenter-crds', release);
  return readdirSync(dir).map((name) => [createHash('sha256').update(readFileSync(join(dir, name))).digest('hex'), join(dir, name)] as const);
}));

/** The CRD file each kind's facts of `facts` were read from (its path and sha256 in `sources`), found among the vendored ones. */
function crdFileOf(facts: ReleaseFacts, kind: CrdKind): string {
  const name = { NodePool: 'karpenter.sh_nodepools.yaml', EC2NodeClass: 'karpenter.k8s.aws_ec2nodeclasses.yaml', NodeOverlay: 'karpenter.sh_nodeoverlays.yaml' }[kind];
  const sha = facts.sources[`pkg/apis/crds/${name}`];
  const file = VENDORED_CRDS.get(sha);
  if (file === undefined) throw new Error(`${facts.version}'s ${name} (sha256 ${sha}) is not vendored under test/fixtures/karpenter-crds`);
  return file;
}

/**
 * The model's name for the CRDs a release's facts were read from: 1.13.1's NodeOverlay CRD is not
 * in karpenter-crds/v1.13.1/, but its bytes are vendored (upstream v1.13.1 and v1.14.1 ship the same file).
 */
const modelDirs: string[] = [];
function modelOf(facts: ReleaseFacts): string {
  const dir = mkdtempSync(join(tmpdir(), 'kg-crd-defaults-'));
  modelDirs.push(dir);
  for (const kind of KINDS) copyFileSync(crdFileOf(facts, kind), join(dir, basename(crdFileOf(facts, kind))));
  const name = `${facts.version} as its facts were read`;
  useReleaseCrds(name, dir);
  return name;
}
afterAll(() => modelDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

type Plain = Record<string, unknown>;

function aNodePool(spec: Plain = {}): Plain {
  return {
    apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'web' },
    spec: { template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'web' }, requirements: [] } }, ...spec },
  };
}

function anEc2NodeClass(spec: Plain = {}): Plain {
  return {
    apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name: 'web' },
    spec: {
      role: 'KarpenterNodeRole-demo', amiSelectorTerms: [{ alias: 'al2023@latest' }],
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }], securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
      ...spec,
    },
  };
}

function aNodeOverlay(spec: Plain = {}): Plain {
  return {
    apiVersion: 'karpenter.sh/v1alpha1', kind: 'NodeOverlay', metadata: { name: 'savings-plan' },
    spec: { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }], priceAdjustment: '-28%', weight: 10, ...spec },
  };
}

/** The objects both the model and withCrdDefaults default, by what they show. */
const CASES: readonly [string, CrdKind, Plain][] = [
  ['a minimal NodePool (no disruption: defaulted, then its children inside it)', 'NodePool', aNodePool()],
  ['a NodePool with budgets without nodes (each item gets its own)', 'NodePool', aNodePool({
    disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '5m', budgets: [{ schedule: '0 9 * * mon-fri', duration: '8h' }, { reasons: ['Drifted'] }, { nodes: '0' }] },
  })],
  ['a NodePool with an empty disruption (the children\'s defaults, not the parent\'s consolidateAfter)', 'NodePool', aNodePool({ disruption: {} })],
  ['a NodePool with null disruption and expireAfter (a non-nullable null is defaulted)', 'NodePool', aNodePool({
    disruption: null, template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'web' }, requirements: [], expireAfter: null } },
  })],
  ['an EC2NodeClass without metadataOptions', 'EC2NodeClass', anEc2NodeClass()],
  ['an EC2NodeClass with a partial metadataOptions', 'EC2NodeClass', anEc2NodeClass({ metadataOptions: { httpTokens: 'optional', httpPutResponseHopLimit: 2 } })],
  ['an EC2NodeClass with capacityReservationSelectorTerms (no default inside an item: the CRD\'s capacity-reservation defaults are status\'s)', 'EC2NodeClass', anEc2NodeClass({
    capacityReservationSelectorTerms: [{ tags: { team: 'web' } }, { id: 'cr-0123456789abcdef0' }],
  })],
  ['a NodeOverlay', 'NodeOverlay', aNodeOverlay()],
];

describe.each(vendoredVersions())('Karpenter %s', (version) => {
  const facts = release(version) as ReleaseFacts;
  const model = modelOf(facts);

  it.each(CASES)('defaults %s as the API server does', (_what, kind, object) => {
    expect(withCrdDefaults(kind, object, version)).toEqual(defaulted(object, model));
  });

  it('lists every default: of each CRD, status left out, parents before children', () => {
    for (const kind of KINDS) {
      const found = defaultsInYaml(readFileSync(crdFileOf(facts, kind), 'utf8'));
      expect({ kind, count: facts.crdDefaults[kind].length }).toEqual({ kind, count: found.spec.length });
      expect({ kind, defaults: sortedByPath(facts.crdDefaults[kind]) }).toEqual({ kind, defaults: sortedByPath(found.spec) });
      const paths = facts.crdDefaults[kind].map((d) => d.path);
      const inside = (path: string, parent: string) => path.startsWith(`${parent}.`) || path.startsWith(`${parent}[]`);
      paths.forEach((path, i) => expect({ path, parentsBefore: paths.filter((p) => inside(path, p)).every((p) => paths.indexOf(p) < i) })
        .toEqual({ path, parentsBefore: true }));
      expect(paths.filter((p) => p.startsWith('status'))).toEqual([]);
    }
  });

  it('changes nothing in objects that set every defaulted field, as the model does', () => {
    const nodePool = aNodePool({
      disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: '1m', budgets: [{ nodes: '2' }] },
      template: { spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'web' }, requirements: [], expireAfter: 'Never' } },
    });
    const nodeClass = anEc2NodeClass({ metadataOptions: { httpEndpoint: 'disabled', httpProtocolIPv6: 'enabled', httpPutResponseHopLimit: 2, httpTokens: 'optional' } });
    for (const [kind, object] of [['NodePool', nodePool], ['EC2NodeClass', nodeClass], ['NodeOverlay', aNodeOverlay()]] as const) {
      expect(defaulted(object, model)).toEqual(object);
      expect(withCrdDefaults(kind, object, version)).toEqual(object);
    }
  });

  it('never modifies its input, nor shares a part with it', () => {
    for (const [, kind, object] of CASES) {
      const before = structuredClone(object);
      withCrdDefaults(kind, object, version);
      expect(object).toEqual(before);
      // A write to a frozen input throws (strict mode); the output is a copy of its own.
      const out = withCrdDefaults(kind, deepFreeze(structuredClone(object)), version) as { spec: Plain };
      expect(Object.isFrozen(out.spec)).toBe(false);
    }
    // The defaults are copies too: changing one output does not change the next.
    const first = withCrdDefaults('NodePool', aNodePool(), version) as { spec: { disruption: { budgets: Plain[] } } };
    first.spec.disruption.budgets[0].nodes = '99%';
    expect(withCrdDefaults('NodePool', aNodePool(), version)).toMatchObject({ spec: { disruption: { budgets: [{ nodes: '10%' }] } } });
  });
});

describe('withCrdDefaults', () => {
  it('fills a minimal NodePool as the 1.14.1 CRD says (the disruption block and expireAfter)', () => {
    expect(withCrdDefaults('NodePool', aNodePool(), '1.14.1')).toMatchObject({
      spec: { disruption: { consolidateAfter: '0s', consolidationPolicy: 'WhenEmptyOrUnderutilized', budgets: [{ nodes: '10%' }] }, template: { spec: { expireAfter: '720h' } } },
    });
  });

  it('answers for a patch release that is not vendored with the release before it', () => {
    expect(withCrdDefaults('EC2NodeClass', anEc2NodeClass(), '1.13.4')).toEqual(withCrdDefaults('EC2NodeClass', anEc2NodeClass(), '1.13.1'));
  });

  it('fails when no vendored release answers for the version, saying which releases are', () => {
    expect(() => withCrdDefaults('NodePool', aNodePool(), '1.2.0')).toThrow(/Karpenter 1\.2\.0 is older than the oldest vendored release, 1\.13\.1/);
  });
});

/**
 * Every `default:` keyword in a CRD's single version's openAPIV3Schema, read from the YAML
 * (not through the generator): by field path in the facts' notation, split into spec's and status's.
 */
function defaultsInYaml(text: string): { spec: CrdDefault[]; status: CrdDefault[] } {
  expect((parse(text) as { spec: { versions: unknown[] } }).spec.versions).toHaveLength(1);
  const found: { spec: CrdDefault[]; status: CrdDefault[] } = { spec: [], status: [] };
  visit(parseDocument(text), {
    Pair(_, pair, ancestors) {
      if (!isScalar(pair.key) || pair.key.value !== 'default') return undefined;
      const keys = ancestors.filter(isPair).map((p) => (isScalar(p.key) ? String(p.key.value) : ''));
      // A property named `default` is a field, not the keyword.
      if (keys.at(-1) === 'properties') return undefined;
      const schemaAt = keys.indexOf('openAPIV3Schema');
      if (schemaAt < 0) return visit.SKIP;
      let path = '';
      const steps = keys.slice(schemaAt + 1);
      for (let i = 0; i < steps.length; i++) {
        if (steps[i] === 'properties') path = path === '' ? steps[++i] : `${path}.${steps[++i]}`;
        else if (steps[i] === 'items') path += '[]';
        else if (steps[i] === 'additionalProperties') path += '.*';
        else path += `(${steps[i]})`;
      }
      const value: unknown = isNode(pair.value) ? pair.value.toJSON() : pair.value;
      (path.startsWith('status') ? found.status : found.spec).push({ path, value });
      return visit.SKIP;
    },
  });
  return found;
}

function sortedByPath(defaults: readonly CrdDefault[]): CrdDefault[] {
  return [...defaults].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

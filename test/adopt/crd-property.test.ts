/**
 * Issue 44, property: every valid v1 NodePool and EC2NodeClass of the supported releases adopts.
 * Live objects are generated from the vendored CRDs' schemas (crd-arbitrary.ts) and kept valid
 * with the CRD validator (schema and CEL, test/support/crd-validator.ts), stored as the API server
 * stores them (its defaults applied), adopted through the real `adopt` command and synthesized
 * with the real `synth`; the generated NodePool and EC2NodeClass must be accepted by the CRDs and
 * equal the live ones once the API server's defaults apply (requirements as sets). Adoption may
 * refuse only what the config refuses by design, each refusal naming the object and field:
 * Windows pools, empty selector values (aws/karpenter-provider-aws#9964). Seeded and bounded;
 * every gap found is reported at once.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { Plain, removeProjects } from '../builders';
import { cli } from '../review/fleet';
import { defaulted, validateFor } from '../support/crd-validator';
import { fromSchema, repaired, specSchema } from './crd-arbitrary';
import { aFleet, writeExport } from './live-builders';

afterAll(removeProjects);

const RELEASES = ['1.13.1', '1.14.1'];
/** Runs per release and seed: each adopts and synthesizes a fleet (about half a second). */
const RUNS = 24;
/**
 * The samples' seeds. 4545 found what 44 did not: NotIn with no values and a block device mapping
 * without deviceName, both valid for the CRD, were refused as "the config adoption would write …";
 * 31337 samples a static pool whose limits.nodes leaves no room above replicas (the cluster runs
 * what the config refuses).
 */
const SEEDS = [44, 4545, 31337];

const NODE_CLASS_REF = { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' };
const BASES = {
  NodePool: { spec: { template: { spec: { nodeClassRef: NODE_CLASS_REF, requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }] } } } },
  EC2NodeClass: {
    spec: {
      amiSelectorTerms: [{ alias: 'al2023@latest' }], role: 'KarpenterNodeRole-c1',
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'c1' } }], securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'c1' } }],
    },
  },
};
/** What adoption refuses by design (the config refuses it too), as its messages say it. */
const REFUSED = /Windows pools are not supported|a limit no node's resource reaches never binds|takes no values \(Karpenter ignores them|: is empty: Karpenter|which the CRD lets through only beside a term that does not|operator NotIn with no values is what Karpenter reads as Exists|has no deviceName: Karpenter gives EC2|^error: the cluster runs what the config refuses: /;

/** A valid stored object of `kind` from a generated spec, or undefined when it cannot be made valid. */
function stored(release: string, kind: 'NodePool' | 'EC2NodeClass', spec: unknown): Plain | undefined {
  const apiVersion = kind === 'NodePool' ? 'karpenter.sh/v1' : 'karpenter.k8s.aws/v1';
  const s = structuredClone(spec) as Plain;
  // The pool uses the class of the export; the class is this cluster's (the outputs' node role).
  if (kind === 'NodePool' && s.template && typeof s.template === 'object') ((s.template as Plain).spec as Plain | undefined ?? {}).nodeClassRef = NODE_CLASS_REF;
  if (kind === 'NodePool' && s.template && typeof s.template === 'object' && (s.template as Plain).spec) ((s.template as Plain).spec as Plain).nodeClassRef = NODE_CLASS_REF;
  if (kind === 'EC2NodeClass' && s.role !== undefined) s.role = 'KarpenterNodeRole-c1';
  const valid = repaired({ apiVersion, kind, metadata: { name: kind === 'NodePool' ? 'pool' : 'default' }, spec: s }, BASES[kind], (o) => validateFor(release, o));
  return valid && defaulted(valid, release) as Plain;
}

/**
 * A spec as Karpenter reads it: requirements as sets (their order, and their values', means
 * nothing to it), map keys in one order, and no empty list or map (the API server keeps
 * `taints: []` as given; Karpenter's Go reads it as no taints, len 0 like nil).
 */
function asSets(spec: unknown): unknown {
  const s = canonical(structuredClone(spec)) as Plain;
  const template = (s.template as Plain | undefined)?.spec as Plain | undefined;
  if (template && Array.isArray(template.requirements)) {
    template.requirements = (template.requirements as Plain[]).map((r) => ({ ...r, ...(Array.isArray(r.values) ? { values: [...(r.values as string[])].sort() } : {}) }))
      .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  }
  return s;
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (!v || typeof v !== 'object') return v;
  const entries = Object.keys(v).sort().map((k) => [k, canonical((v as Plain)[k])] as const)
    .filter(([, x]) => !(Array.isArray(x) && x.length === 0) && !(x && typeof x === 'object' && !Array.isArray(x) && Object.keys(x).length === 0));
  return Object.fromEntries(entries);
}

/** The NodePools and EC2NodeClasses synth wrote for cluster c1, by `kind/name`. */
function written(dir: string): Map<string, Plain> {
  const out = new Map<string, Plain>();
  const root = join(dir, 'dist', 'c1');
  for (const f of readdirSync(root, { recursive: true }).map(String).filter((x) => x.endsWith('.yaml'))) {
    for (const d of parseAllDocuments(readFileSync(join(root, f), 'utf8'))) {
      const o = d.toJS() as Plain | null;
      if (o && ['NodePool', 'EC2NodeClass'].includes(String(o.kind))) out.set(`${String(o.kind)}/${String((o.metadata as Plain).name)}`, o);
    }
  }
  return out;
}

describe.each(RELEASES)('a valid NodePool and EC2NodeClass of Karpenter %s', (release) => {
  it('adopts, and synth makes them again (equal once the API server defaults them), or is refused only by design', async () => {
    const pools = fromSchema(specSchema(release, 'karpenter.sh_nodepools.yaml'));
    const classes = fromSchema(specSchema(release, 'karpenter.k8s.aws_ec2nodeclasses.yaml'));
    const valid = fc.tuple(pools, classes).map(([p, c]) => [stored(release, 'NodePool', p), stored(release, 'EC2NodeClass', c)] as const)
      .filter((pair): pair is readonly [Plain, Plain] => pair[0] !== undefined && pair[1] !== undefined);
    const pairs = SEEDS.flatMap((seed) => fc.sample(valid, { numRuns: RUNS, seed }));
    const gaps: unknown[] = [];
    let adopted = 0;
    for (const [pool, nodeClass] of pairs) {
      const project = aFleet(release);
      const live = writeExport(project, [pool, nodeClass]);
      const r = await cli(['adopt', 'c1', '--live', live, '--config', project.configPath]);
      if (r.code !== 0) {
        const lines = r.err.split('\n').filter((l) => l.startsWith('error: ') || /^\S+:\d+:\d+: /.test(l));
        if (/a bug of adopt/.test(r.err) || lines.length === 0 || !lines.every((l) => REFUSED.test(l))) gaps.push({ refused: r.err, pool: pool.spec, nodeClass: nodeClass.spec });
        continue;
      }
      adopted++;
      const s = await cli(['synth', '--config', project.configPath, '--outdir', project.dir]);
      if (s.code !== 0) {
        gaps.push({ synth: s.err, pool: pool.spec, nodeClass: nodeClass.spec });
        continue;
      }
      const made = written(project.dir);
      for (const o of [pool, nodeClass]) {
        const key = `${String(o.kind)}/${String((o.metadata as Plain).name)}`;
        const mine = made.get(key);
        const problems = mine ? validateFor(release, mine) : ['not made'];
        const same = mine && JSON.stringify(asSets((defaulted(mine, release) as Plain).spec)) === JSON.stringify(asSets(o.spec));
        if (problems.length || !same) gaps.push({ key, problems, live: o.spec, made: mine?.spec });
      }
    }
    expect(pairs.length).toBeGreaterThan(SEEDS.length * RUNS / 2);
    if (process.env.GAPS) console.log(adopted, pairs.length, JSON.stringify(gaps.map((g) => (g as Plain).refused ?? (g as Plain).synth ?? [(g as Plain).key, (g as Plain).problems, firstDiff(asSets((g as Plain).live), asSets((g as Plain).made))])));
    // Every pair adopts and comes back, or is refused by design (each checked above): what it is about.
    expect(gaps).toEqual([]);
    // And the sample is not all refusals: a third of the pairs or more adopt.
    expect(adopted).toBeGreaterThanOrEqual(pairs.length / 3);
  }, 180_000);
});

function firstDiff(a: unknown, b: unknown, path = 'spec'): string | undefined {
  if (JSON.stringify(a) === JSON.stringify(b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDiff((a as Plain)[k], (b as Plain)[k], `${path}.${k}`);
      if (d) return d;
    }
  }
  return `${path}: live ${JSON.stringify(a)}, made ${JSON.stringify(b)}`;
}

/**
 * The planning work that repeats across a fleet's clusters is done once per distinct input
 * (issue 47): the dry run's smoke-test fit per match result and requests, a pool's admitted
 * types after overlays per match result and overlays, its cost bound per admitted types and
 * limits. A memo must answer exactly what a fresh computation answers: each case runs pools
 * through one shared matcher (the memo warm) and through a fresh matcher each (nothing to
 * remember), and the answers must be equal, messages and all, whatever the order.
 */
import { karpenterCatalog } from '../../src/catalog/catalog';
import { createMatcher, Matcher, priceRange } from '../../src/catalog/match';
import type { NodeOverlaySpec } from '../../src/catalog/overlays';
import { dryRun } from '../../src/config/dry-run';
import type { Pool, PoolSettings } from '../../src/config/platform';
import { poolPlan } from '../../src/model/plan';
import { aCluster, aPool } from '../pool-builders';

const fresh = (): Matcher => createMatcher(karpenterCatalog().types);
const smokeTest = (over: Partial<PoolSettings['smokeTest']>): PoolSettings['smokeTest'] => ({ ...aPool().settings.smokeTest, ...over });

/** Pools of several shapes, two names each: each shape's second pool finds the first one's answer remembered. */
const SHAPES: Readonly<Record<string, Partial<PoolSettings>>> = {
  'a smoke test no admitted type holds': { instanceFamilies: ['t3'], smokeTest: smokeTest({ cpu: '100' }) },
  'the same types and a smoke test they hold': { instanceFamilies: ['t3'], smokeTest: smokeTest({ cpu: '1' }) },
  'the same smoke test, types that hold it': { instanceFamilies: ['m7i'], smokeTest: smokeTest({ cpu: '100' }) },
  'a GPU pool whose smoke test requests no GPU': { instanceFamilies: ['g6'] },
  'a GPU pool whose smoke test requests one': { instanceFamilies: ['g6'], smokeTest: smokeTest({ resources: { 'nvidia.com/gpu': 1 } }) },
  'a GPU pool whose smoke test requests more GPUs than any type has': { instanceFamilies: ['g6'], smokeTest: smokeTest({ resources: { 'nvidia.com/gpu': 64 } }) },
  'a spot pool of few types': { instanceTypes: ['m7i.large', 'm7i.xlarge'], capacityTypes: ['spot'] },
};

function pools(): Pool[] {
  return Object.values(SHAPES).flatMap((settings, i) => ['alpha', 'beta'].map((name) => aPool(settings, { name: `${name}-${i}` })));
}

describe('the dry run with its smoke-test fit remembered', () => {
  it('finds for every pool what a fresh matcher finds, its own name in its messages, shapes interleaved', () => {
    const shared = fresh();
    const all = pools();
    // Every shape once before any second name: a memo keyed too coarsely would hand one shape's answer to the next.
    const order = [...all.filter((_, i) => i % 2 === 0), ...all.filter((_, i) => i % 2 === 1)];
    for (const pool of order) {
      const remembered = dryRun(pool.name, pool.settings, pool.requirements, { matcher: shared });
      expect(remembered).toEqual(dryRun(pool.name, pool.settings, pool.requirements, { matcher: fresh() }));
      for (const p of remembered) expect(p.message).toContain(`pool ${pool.name}`);
    }
  });

  it('says each shape\'s problems apart: the right field for each, none for a smoke test that fits', () => {
    const shared = fresh();
    const fields = (settings: Partial<PoolSettings>, name: string) => {
      const pool = aPool(settings, { name });
      return dryRun(name, pool.settings, pool.requirements, { matcher: shared }).map((p) => `${p.severity} ${p.field.join('.')}`);
    };
    expect(fields(SHAPES['a smoke test no admitted type holds'], 'a')).toEqual(['error smokeTest.cpu']);
    expect(fields(SHAPES['the same types and a smoke test they hold'], 'b')).toEqual([]);
    expect(fields(SHAPES['the same smoke test, types that hold it'], 'c')).toEqual([]);
    expect(fields(SHAPES['a GPU pool whose smoke test requests no GPU'], 'd')).toEqual(['error smokeTest']);
    expect(fields(SHAPES['a GPU pool whose smoke test requests one'], 'e')).toEqual([]);
    expect(fields(SHAPES['a GPU pool whose smoke test requests more GPUs than any type has'], 'f')).toEqual(['error smokeTest.resources.nvidia.com/gpu']);
    expect(fields(SHAPES['a smoke test no admitted type holds'], 'g')).toEqual(['error smokeTest.cpu']);
  });

  it('checks no smoke test on a cluster that runs none, after one that does', () => {
    const shared = fresh();
    const pool = aPool(SHAPES['a smoke test no admitted type holds']);
    expect(dryRun(pool.name, pool.settings, pool.requirements, { matcher: shared })).toHaveLength(1);
    expect(dryRun(pool.name, pool.settings, pool.requirements, { matcher: shared, smokeTests: false })).toEqual([]);
  });
});

describe('a pool\'s facts remembered across clusters', () => {
  const discount: NodeOverlaySpec = { name: 'discount', requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m7i'] }], priceAdjustment: '-50%' };

  it('gives every pool of every cluster the facts a fresh matcher gives, overlays and limits apart', () => {
    const shared = fresh();
    const shape = { instanceFamilies: ['m7i'] };
    const clusters = [
      aCluster([], { id: 'one' }),
      aCluster([], { id: 'two', overlays: [discount] }),
      aCluster([], { id: 'three' }),
      aCluster([], { id: 'four', overlays: [{ ...discount, priceAdjustment: '-25%' }] }),
    ];
    const limits: Readonly<Record<string, string>>[] = [{ cpu: '100' }, { memory: '100Gi' }, { cpu: '100', memory: '100Gi' }, { memory: '100Gi', cpu: '100' }];
    const ceilings = new Set<number | null>();
    for (const cluster of clusters) {
      for (const [i, l] of limits.entries()) {
        const pool = aPool({ ...shape, limits: l }, { name: `web-${i}` });
        const remembered = poolPlan(cluster, pool, { matcher: shared }).facts;
        expect(remembered).toEqual(poolPlan(cluster, pool, { matcher: fresh() }).facts);
        ceilings.add(remembered.ceiling.perHour);
      }
    }
    // Three overlays (none, -50%, -25%) × two limits at least: no answer was handed to another input.
    expect(ceilings.size).toBeGreaterThanOrEqual(6);
  });

  it('shares one frozen list of admitted types among the pools of a shape, and ranges its prices once', () => {
    const shared = fresh();
    const a = poolPlan(aCluster([], { id: 'one' }), aPool({ instanceFamilies: ['m7i'] }, { name: 'a' }), { matcher: shared }).facts;
    const b = poolPlan(aCluster([], { id: 'two' }), aPool({ instanceFamilies: ['m7i'] }, { name: 'b' }), { matcher: shared }).facts;
    expect(b.admitted).toBe(a.admitted);
    expect(Object.isFrozen(a.admitted)).toBe(true);
    expect(b.prices).toBe(a.prices);
    // A list that can still change is ranged afresh every time.
    const open = [...a.admitted];
    expect(priceRange(open)).toEqual(a.prices);
    open.pop();
    expect(priceRange(open)).toEqual(priceRange([...open]));
  });
});

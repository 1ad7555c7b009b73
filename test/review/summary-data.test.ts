/**
 * The review's summary data (src/review/summary-data.ts): the fleet's `dist/summary.json` holds
 * every cluster's place, each cluster's `dist/<cluster>/summary.json` its pools. A review scoped
 * to the clusters a change touches (review/scope.ts) reads those clusters' pools and no other's,
 * so what it holds of the fleet does not grow with the clusters it does not touch; a base written
 * in version 1 (every cluster's pools in the fleet's file) is still read whole.
 */
import { loadPlan } from '../../src/model/checks';
import { changeScope } from '../../src/review/scope';
import { summaryDataOf } from '../../src/review/summary-data';
import { GeneratedTree } from '../../src/review/tree';
import { synthesize } from '../../src/synth';
import { aConfig, aTerraform, removeProjects, writeProject } from '../builders';

afterAll(removeProjects);

const IDS = ['demo', 'east', 'west'];

function files(): Map<string, string> {
  const config = aConfig({ clusters: Object.fromEntries(IDS.map((id) => [id, { terraformOutputs: `terraform/${id}.json` }])), teams: { web: {}, data: {} } });
  const { configPath } = writeProject({ config, terraform: Object.fromEntries(IDS.map((id) => [id, aTerraform({ cluster_name: id })])) });
  return synthesize(loadPlan(configPath).platform);
}

it('reads the pools of the clusters in the tree as read: a review scoped to one cluster reads its pools and no other\'s', () => {
  const all = files();
  const scope = changeScope(['dist/east/nodepools/web/web.yaml'], { index: 1, count: 1 });
  const scoped = new GeneratedTree(new Map([...all].filter(([path]) => scope.holds(path))), 'x');
  const read = summaryDataOf(scoped);
  if (!('data' in read)) throw new Error(read.missing);
  expect(read.data.clusters.map((c) => [c.id, c.pools?.map((p) => p.name)])).toEqual([['demo', undefined], ['east', ['web', 'data']], ['west', undefined]]);
  // The whole tree: every cluster's.
  const whole = summaryDataOf(new GeneratedTree(all, 'y'));
  expect('data' in whole && whole.data.clusters.every((c) => c.pools?.length === 2)).toBe(true);
});

it('reads a base of version 1, whose fleet file holds every cluster\'s pools', () => {
  const all = files();
  const fleet = JSON.parse(all.get('dist/summary.json') ?? '') as { clusters: { id: string }[] };
  const v1 = {
    ...fleet, summaryVersion: 1,
    clusters: fleet.clusters.map((c) => ({ ...c, pools: (JSON.parse(all.get(`dist/${c.id}/summary.json`) ?? '') as { pools: unknown[] }).pools })),
  };
  const read = summaryDataOf(new GeneratedTree(new Map([['dist/summary.json', JSON.stringify(v1)]]), 'origin/main'));
  if (!('data' in read)) throw new Error(read.missing);
  expect(read.data.clusters.map((c) => c.pools?.length)).toEqual([2, 2, 2]);
  // A cluster's file of another cluster, or of no version it knows, is not read as its pools.
  const moved = new Map(all);
  moved.set('dist/demo/summary.json', all.get('dist/east/summary.json') ?? '');
  const other = summaryDataOf(new GeneratedTree(moved, 'z'));
  expect('data' in other && other.data.clusters[0].pools).toBeUndefined();
});

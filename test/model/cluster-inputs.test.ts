/**
 * A cluster file's input digest (src/model/cluster-inputs.ts) is the JSON of what its build reads,
 * parts of the cluster's plan: it holds only if that part is plain data, which JSON keeps whole. A
 * Map, a Set, a function or a class instance would be flattened (`{}`), and two different plans
 * could share a digest. And the build must read nothing else: a pool's facts, left out of the
 * digest, change none of its bytes.
 */
import { loadPlan } from '../../src/model/checks';
import { fileInputs } from '../../src/model/cluster-inputs';
import type { ClusterPlan } from '../../src/model/plan';
import { renderFile } from '../../src/output/render';
import { clusterFiles } from '../../src/synth';
import { aConfig, aTerraform, removeProjects, writeProject } from '../builders';

afterAll(removeProjects);

/** The paths of values under `value` that JSON would not keep as they are. */
function notPlain(value: unknown, at: string = '$'): string[] {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return [];
  if (typeof value !== 'object') return [`${at}: ${typeof value}`];
  if (Array.isArray(value)) return value.flatMap((v, i) => notPlain(v, `${at}[${i}]`));
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return [`${at}: ${value.constructor.name}`];
  return Object.entries(value).flatMap(([k, v]) => (v === undefined ? [] : notPlain(v, `${at}.${k}`)));
}

const config = aConfig({
  clusters: { demo: { terraformOutputs: 'terraform/demo.json', stage: 1 }, prod: { terraformOutputs: 'terraform/prod.json', stage: 2 } },
  windows: { nightly: { timeZone: 'Europe/Berlin', days: ['mon', 'tue'], start: '22:00', duration: '6h' } },
  teams: { web: { namespaces: ['web'], pools: { batch: { capacityTypes: ['spot'] } } }, data: {} },
});

it('is taken of plain data only: every cluster of a fleet with stages, windows, tenancy and two pools per team', () => {
  const { configPath } = writeProject({ config, terraform: { demo: aTerraform(), prod: aTerraform({ cluster_name: 'prod' }) } });
  const { plan } = loadPlan(configPath);
  for (const cluster of plan.clusters) {
    expect(notPlain({ ...cluster, pools: cluster.pools.map(({ facts: _facts, ...pool }) => pool) })).toEqual([]);
  }
});

it('of a file changes with what its build reads and nothing else; a pool\'s facts change neither its digest nor its bytes', () => {
  const { configPath } = writeProject({ config, terraform: { demo: aTerraform(), prod: aTerraform({ cluster_name: 'prod' }) } });
  const [cluster] = loadPlan(configPath).plan.clusters;
  const [pool, ...others] = cluster.pools;
  const digests = (c: ClusterPlan) => new Map(clusterFiles(c).map((f) => [f.path, fileInputs(f.path, f.inputs)]));
  const changed = (c: ClusterPlan) => [...digests(cluster)].filter(([path, d]) => digests(c).get(path) !== d).map(([path]) => path);
  const noFacts = { ...cluster, pools: [{ ...pool, facts: { ...pool.facts, admitted: [], ceiling: { ...pool.facts.ceiling, perHour: 0 } } }, ...others] };
  expect(changed(noFacts)).toEqual([]);
  const bytes = (c: ClusterPlan) => clusterFiles(c).map((f) => renderFile(f.build()));
  expect(bytes(noFacts)).toEqual(bytes(cluster));
  expect(changed({ ...cluster, pools: [{ ...pool, header: '# another window\n' }, ...others] })).toEqual([pool.path]);
  const values = cluster.controllerValues?.path;
  expect(changed({ ...cluster, karpenterVersion: '0.0.0' })).toEqual([values]);
});

/**
 * A cluster's input digest (src/model/cluster-inputs.ts) is the JSON of its part of the plan: it
 * holds only if that part is plain data, which JSON keeps whole. A Map, a Set, a function or a
 * class instance would be flattened (`{}`), and two different plans could share a digest.
 */
import { loadPlan } from '../../src/model/checks';
import { clusterInputs } from '../../src/model/cluster-inputs';
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

it('changes with any field of the cluster\'s part of the plan, and not with its pools\' facts', () => {
  const { configPath } = writeProject();
  const [cluster] = loadPlan(configPath).plan.clusters;
  const [pool] = cluster.pools;
  expect(clusterInputs(cluster)).toBe(clusterInputs({ ...cluster, pools: [{ ...pool, facts: { ...pool.facts, admitted: [] } }] }));
  expect(clusterInputs(cluster)).not.toBe(clusterInputs({ ...cluster, pools: [{ ...pool, header: '# another window\n' }] }));
  expect(clusterInputs(cluster)).not.toBe(clusterInputs({ ...cluster, karpenterVersion: '0.0.0' }));
});

/**
 * `fit` beside the tenancy policy (issue 22): per pool, whether admission lets the workload's
 * namespace use it, next to whether Karpenter could schedule it. Cluster demo has vision
 * (dedicated, namespaces vision and vision-batch), shared (not dedicated, namespace shared) and
 * legacy (no namespaces); cluster open has no team with namespaces.
 */
import type { WorkloadKind } from '../../src/fit/manifest';
import { fitWorkloads } from '../../src/fit/placement';
import { fitJson, fitTerminal } from '../../src/fit/report';
import { aCluster, aPlatform, aPool } from '../pool-builders';
import { aPodSpec, expr, podOf, requiring } from './builders';

const platform = aPlatform([
  aCluster([
    aPool({}, { name: 'vision', team: 'vision', namespaces: ['vision', 'vision-batch'] }),
    aPool({ dedicated: false }, { name: 'shared', team: 'shared', namespaces: ['shared'] }),
    aPool({}, { name: 'legacy', team: 'legacy' }),
  ]),
  aCluster([aPool({}, { name: 'vision', team: 'vision' })], { id: 'open' }),
]);

const visionToleration = { key: 'dedicated', value: 'vision', effect: 'NoSchedule' };

function fit(namespace: string, spec: Record<string, unknown>, kind: WorkloadKind = 'Deployment') {
  const [w] = fitWorkloads([{ kind, namespace, name: 'app', pod: podOf(aPodSpec(spec), kind) }], platform);
  const rows = [...w.fits.map((f) => ({ ...f, fits: true })), ...w.rejected.map((r) => ({ ...r, fits: false }))];
  return Object.fromEntries(rows.map((r) => [`${r.cluster}/${r.pool}`, { fits: r.fits, admission: r.admission }]));
}

describe('fit and the tenancy policy', () => {
  it('says admission allows the team\'s own namespace on the pool it fits', () => {
    const rows = fit('vision', { tolerations: [visionToleration], affinity: requiring([expr('karpenter.sh/nodepool', 'In', 'vision')]) });
    expect(rows['demo/vision']).toEqual({ fits: true, admission: { allowed: true } });
  });

  it('fails when a namespace of another team tolerates the pool: Karpenter could place it, admission refuses it', () => {
    const rows = fit('web', { tolerations: [visionToleration] });
    expect(rows['demo/vision'].fits).toBe(true);
    expect(rows['demo/vision'].admission).toEqual({
      allowed: false,
      reason: 'admission refuses the pod: namespace web may not use team vision\'s pool vision (the pod tolerates its taint dedicated=vision:NoSchedule): only pods of namespaces vision, vision-batch, karpenter-smoke-tests may',
    });
    // The pod cannot be created on demo at all: every pool of the cluster says so.
    expect(rows['demo/legacy'].admission).toMatchObject({ allowed: false, reason: expect.stringMatching(/^admission refuses the pod: /) });
  });

  it('says a pool of a team whose namespaces do not include the workload\'s is closed to it, even where the pod does not touch it yet', () => {
    const rows = fit('web', {});
    expect(rows['demo/vision']).toEqual({ fits: false, admission: { allowed: false, reason: expect.stringMatching(/^namespace web may not use team vision's pools \(only vision, vision-batch, karpenter-smoke-tests\)/) } });
    expect(rows['demo/shared']).toEqual({ fits: true, admission: { allowed: false, reason: expect.stringMatching(/the pool is not dedicated: a pod that neither tolerates nor selects it may still land on it/) } });
    expect(rows['demo/legacy'].admission).toEqual({ allowed: true });
  });

  it('reports nothing about admission on a cluster without a tenancy policy', () => {
    expect(fit('web', { tolerations: [visionToleration] })['open/vision']).toEqual({ fits: true, admission: undefined });
  });

  it('lets a DaemonSet that tolerates every taint through, and not one that tolerates one team\'s taint', () => {
    expect(fit('monitoring', { tolerations: [{ operator: 'Exists' }] }, 'DaemonSet')['demo/vision']).toEqual({ fits: true, admission: { allowed: true } });
    expect(fit('monitoring', { tolerations: [{ operator: 'Exists' }] }, 'Deployment')['demo/vision'].admission).toMatchObject({ allowed: false, reason: expect.stringMatching(/^admission refuses the pod/) });
    expect(fit('monitoring', { tolerations: [visionToleration] }, 'DaemonSet')['demo/vision'].admission).toMatchObject({ allowed: false, reason: expect.stringMatching(/^admission refuses the pod/) });
  });

  it('prints admission after the fit in the terminal, and as admission in JSON', () => {
    const [w] = fitWorkloads([{ kind: 'Deployment', namespace: 'vision', name: 'api', pod: podOf(aPodSpec({ tolerations: [visionToleration] })) }], platform);
    const lines = fitTerminal([w], []);
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^ {2}✓ demo\/vision +\d+ instance types can hold it; admission: allowed$/)]));
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^ {2}✓ open\/vision +\d+ instance types can hold it$/)]));
    const json = JSON.parse(fitJson([w], [])) as { workloads: { fits: { cluster: string; pool: string; admission?: unknown }[] }[] };
    expect(json.workloads[0].fits.find((f) => f.cluster === 'demo' && f.pool === 'vision')).toEqual({ cluster: 'demo', pool: 'vision', admission: { allowed: true } });
    expect(json.workloads[0].fits.find((f) => f.cluster === 'open')).toEqual({ cluster: 'open', pool: 'vision' });
  });
});

/**
 * `fit` beside the tenancy policy (issue 22): per pool, whether admission lets the workload's
 * namespace use it, next to whether Karpenter could schedule it. Cluster demo has vision
 * (dedicated, namespaces vision and vision-batch), shared (not dedicated, namespace shared) and
 * legacy (no namespaces); cluster open has no team with namespaces.
 */
import { manifestOf, WorkloadKind } from '../../src/fit/manifest';
import { fitWorkloads } from '../../src/fit/placement';
import { fleetPlan } from '../../src/model/plan';
import { fitJson, fitTerminal } from '../../src/fit/report';
import { aCluster, aPlatform, aPool } from '../pool-builders';
import { SourceFile } from '../../src/input/source';
import { aPodSpec, aWorkload, expr, manifest, podOf, requiring } from './builders';

const platform = aPlatform([
  aCluster([
    aPool({}, { name: 'vision', team: 'vision', namespaces: ['vision', 'vision-batch'] }),
    aPool({ dedicated: false }, { name: 'shared', team: 'shared', namespaces: ['shared'] }),
    aPool({}, { name: 'legacy', team: 'legacy' }),
  ]),
  aCluster([aPool({}, { name: 'vision', team: 'vision' })], { id: 'open' }),
]);

const plan = fleetPlan(platform);

const visionToleration = { key: 'dedicated', value: 'vision', effect: 'NoSchedule' };

function fit(namespace: string, spec: Record<string, unknown>, kind: WorkloadKind = 'Deployment') {
  const [w] = fitWorkloads([{ kind, namespace, name: 'app', pod: podOf(aPodSpec(spec), kind) }], platform, plan);
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

  it('fails when a DaemonSet that tolerates every taint selects another team\'s nodes by its nodeSelector, which its pods keep', () => {
    const rows = fit('monitoring', { tolerations: [{ operator: 'Exists' }], nodeSelector: { team: 'vision' } }, 'DaemonSet');
    expect(rows['demo/vision'].admission).toMatchObject({ allowed: false, reason: expect.stringMatching(/^admission refuses the pod: namespace monitoring may not use team vision's pool vision \(the pod selects it/) });
  });

  it('says a DaemonSet that selects another team\'s nodes by node affinity is admitted: the DaemonSet controller replaces it on each pod', () => {
    const rows = fit('monitoring', { tolerations: [{ operator: 'Exists' }], affinity: requiring([expr('team', 'In', 'vision')]) }, 'DaemonSet');
    expect(rows['demo/vision'].admission).toEqual({ allowed: true });
  });

  it('fails when a pod names its node, and the node may be one of another team\'s', () => {
    expect(fit('web', { nodeName: 'ip-10-0-12-34.ec2.internal' }, 'Pod')['demo/vision'].admission).toMatchObject({
      allowed: false, reason: expect.stringMatching(/names its node \(spec\.nodeName\), which skips its taint dedicated=vision:NoSchedule/),
    });
  });

  it('reads a Pod\'s owner: an apps/v1 DaemonSet controller that tolerates every taint passes, another group\'s does not', () => {
    const ownedBy = (apiVersion: string) => {
      const pod = aWorkload('Pod', aPodSpec({ tolerations: [{ operator: 'Exists' }] }), {
        name: 'agent-x7k2p', namespace: 'monitoring', ownerReferences: [{ apiVersion, kind: 'DaemonSet', name: 'agent', uid: 'c0ffee', controller: true }],
      });
      const { manifest: read } = manifestOf(SourceFile.parseDocuments(manifest(pod), 'app.yaml'));
      const [w] = fitWorkloads(read.workloads, platform, plan);
      return [...w.fits, ...w.rejected].find((r) => r.cluster === 'demo' && r.pool === 'vision')?.admission;
    };
    expect(ownedBy('apps/v1')).toEqual({ allowed: true });
    expect(ownedBy('evil.example/v1')).toMatchObject({ allowed: false });
  });

  it('prints admission after the fit in the terminal, and as admission in JSON', () => {
    const [w] = fitWorkloads([{ kind: 'Deployment', namespace: 'vision', name: 'api', pod: podOf(aPodSpec({ tolerations: [visionToleration] })) }], platform, plan);
    const lines = fitTerminal([w], []);
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^ {2}✓ demo\/vision +\d+ instance types can hold it; admission: allowed$/)]));
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^ {2}✓ open\/vision +\d+ instance types can hold it$/)]));
    const json = JSON.parse(fitJson([w], [])) as { workloads: { fits: { cluster: string; pool: string; admission?: unknown }[] }[] };
    expect(json.workloads[0].fits.find((f) => f.cluster === 'demo' && f.pool === 'vision')).toEqual({ cluster: 'demo', pool: 'vision', admission: { allowed: true } });
    expect(json.workloads[0].fits.find((f) => f.cluster === 'open')).toEqual({ cluster: 'open', pool: 'vision' });
  });
});

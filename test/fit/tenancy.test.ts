/**
 * `fit` beside the tenancy policy (issues 22 and 29): per pool, whether admission lets the
 * workload's namespace use it, next to whether Karpenter could schedule it; a pool Karpenter
 * could place it on whose policy refuses its pods is refused, not a fit. Cluster demo has vision
 * (dedicated, namespaces vision and vision-batch), shared (not dedicated, namespace shared) and
 * legacy (no namespaces); cluster open has no team with namespaces.
 */
import { manifestOf, WorkloadKind } from '../../src/fit/manifest';
import { fitWorkloads } from '../../src/fit/placement';
import { fleetPlan } from '../../src/model/plan';
import { fitJson, fitTerminal } from '../../src/fit/report';
import type { Platform } from '../../src/config/platform';
import { aCluster, aPlatform, aPool } from '../pool-builders';
import { SourceFile } from '../../src/input/source';
import { aPodSpec, aWorkload, expr, manifest, readWorkload, requiring } from './builders';

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

/** Per `cluster/pool`: whether the workload fits, is refused by admission or is rejected there, and what admission says. */
function fit(namespace: string, spec: Record<string, unknown>, kind: WorkloadKind = 'Deployment', on: Platform = platform) {
  const [w] = fitWorkloads([readWorkload(kind, aPodSpec(spec), { name: 'app', namespace })], on, on === platform ? plan : fleetPlan(on));
  const rows = [
    ...w.fits.map((f) => ({ ...f, as: 'fits' })), ...w.refused.map((r) => ({ ...r, as: 'refused' })), ...w.rejected.map((r) => ({ ...r, as: 'rejected' })),
  ];
  return Object.fromEntries(rows.map((r) => [`${r.cluster}/${r.pool}`, { as: r.as, admission: r.admission }]));
}

describe('fit and the tenancy policy', () => {
  it('says admission allows the team\'s own namespace on the pool it fits', () => {
    const rows = fit('vision', { tolerations: [visionToleration], affinity: requiring([expr('karpenter.sh/nodepool', 'In', 'vision')]) });
    expect(rows['demo/vision']).toEqual({ as: 'fits', admission: { allowed: true } });
  });

  it('fails when a namespace of another team tolerates the pool: Karpenter could place it, admission refuses it, so it is refused, not a fit', () => {
    const rows = fit('web', { tolerations: [visionToleration] });
    expect(rows['demo/vision'].as).toBe('refused');
    expect(rows['demo/vision'].admission).toEqual({
      allowed: false,
      reason: 'admission refuses the Deployment: namespace web may not use team vision\'s pool vision (the Deployment\'s pod template tolerates its taint dedicated=vision:NoSchedule): only pods of namespaces vision, vision-batch, karpenter-smoke-tests may',
    });
    // The Deployment cannot be created on demo at all: every pool of the cluster says so.
    expect(rows['demo/shared']).toMatchObject({ as: 'refused', admission: { allowed: false, reason: expect.stringMatching(/^admission refuses the Deployment: /) } });
    // A pool it cannot run on anyway (legacy's taint) stays rejected, for its own reason.
    expect(rows['demo/legacy']).toMatchObject({ as: 'rejected', admission: { allowed: false, reason: expect.stringMatching(/^admission refuses the Deployment: /) } });
  });

  it('says a pool of a team whose namespaces do not include the workload\'s is closed to it, even where the pod does not touch it yet', () => {
    const rows = fit('web', {});
    expect(rows['demo/vision']).toEqual({ as: 'rejected', admission: { allowed: false, reason: expect.stringMatching(/^namespace web may not use team vision's pools \(only vision, vision-batch, karpenter-smoke-tests\)/) } });
    // The policy admits a pod that neither selects nor tolerates a pool, so it may land on one that is not dedicated: a fit.
    expect(rows['demo/shared']).toEqual({ as: 'fits', admission: { allowed: false, reason: expect.stringMatching(/the pool is not dedicated: a pod that neither tolerates nor selects it may still land on it/) } });
    expect(rows['demo/legacy'].admission).toEqual({ allowed: true });
  });

  it('reports nothing about admission on a cluster without a tenancy policy', () => {
    expect(fit('web', { tolerations: [visionToleration] })['open/vision']).toEqual({ as: 'fits', admission: undefined });
  });

  it('fails when a DaemonSet tolerates every taint outside the exempt namespaces: its pods could run on every pool, and Karpenter sizes each pool for them', () => {
    expect(fit('monitoring', { tolerations: [{ operator: 'Exists' }] }, 'DaemonSet')['demo/vision'].admission).toEqual({
      allowed: false,
      reason: 'admission refuses the DaemonSet: namespace monitoring may not use team vision\'s pool vision (the DaemonSet\'s pods can run on its nodes, and Karpenter adds their requests to every node of the pool): '
        + 'only pods of namespaces vision, vision-batch, karpenter-smoke-tests may; in all, 2 pools it may not use: vision, shared (confine it to the namespace\'s pools with a nodeSelector, or run it in an exempt namespace)',
    });
    expect(fit('monitoring', { tolerations: [visionToleration] }, 'DaemonSet')['demo/vision'].admission).toMatchObject({ allowed: false, reason: expect.stringMatching(/^admission refuses the DaemonSet/) });
  });

  it('lets a DaemonSet through in an exempt namespace, and a team\'s DaemonSet confined to its own pools', () => {
    const exempt = aPlatform([{ ...platform.clusters[0], tenancyExemptNamespaces: ['monitoring'] }]);
    expect(fit('monitoring', { tolerations: [{ operator: 'Exists' }] }, 'DaemonSet', exempt)['demo/vision']).toEqual({ as: 'fits', admission: { allowed: true } });
    expect(fit('vision', { tolerations: [{ operator: 'Exists' }], nodeSelector: { team: 'vision' } }, 'DaemonSet')['demo/vision']).toEqual({ as: 'fits', admission: { allowed: true } });
  });

  it('fails when a DaemonSet selects another team\'s nodes by node affinity: Karpenter sizes the pool by its template, whose affinity it reads', () => {
    const rows = fit('monitoring', { tolerations: [{ operator: 'Exists' }], affinity: requiring([expr('team', 'In', 'vision')]) }, 'DaemonSet');
    expect(rows['demo/vision'].admission).toMatchObject({ allowed: false, reason: expect.stringMatching(/^admission refuses the DaemonSet: namespace monitoring may not use team vision's pool vision \(the DaemonSet's pods can run on its nodes/) });
  });

  it('fails when a pod names its node, and the node may be one of another team\'s', () => {
    expect(fit('web', { nodeName: 'ip-10-0-12-34.ec2.internal' }, 'Pod')['demo/vision'].admission).toMatchObject({
      allowed: false, reason: expect.stringMatching(/names its node \(spec\.nodeName\), which skips its taint dedicated=vision:NoSchedule/),
    });
  });

  it('fails when a Pod carries a controller reference of any group and kind, as applied by a person: Karpenter may take it for a DaemonSet\'s, so it is judged by the DaemonSet rule', () => {
    const ownedBy = (apiVersion: string, kind: string) => {
      const pod = aWorkload('Pod', aPodSpec({ tolerations: [{ operator: 'Exists' }] }), {
        name: 'agent-x7k2p', namespace: 'monitoring', ownerReferences: [{ apiVersion, kind, name: 'agent', uid: 'c0ffee', controller: true }],
      });
      const { manifest: read } = manifestOf(SourceFile.parseDocuments(manifest(pod), 'app.yaml'));
      const [w] = fitWorkloads(read.workloads, platform, plan);
      return [...w.fits, ...w.refused, ...w.rejected].find((r) => r.cluster === 'demo' && r.pool === 'vision')?.admission;
    };
    for (const [apiVersion, kind] of [['apps/v1', 'DaemonSet'], ['apps/v1beta2', 'DaemonSet'], ['evil.example/v1', 'Widget']]) {
      expect(ownedBy(apiVersion, kind)).toEqual({
        allowed: false,
        reason: 'admission refuses the pod: namespace monitoring may not use team vision\'s pool vision (the pod, whose controller reference Karpenter may take for a DaemonSet\'s, can run on its nodes, '
          + 'and Karpenter adds their requests to every node of the pool): only pods of namespaces vision, vision-batch, karpenter-smoke-tests may; in all, 2 pools it may not use: vision, shared '
          + '(confine it to the namespace\'s pools with a nodeSelector, or run it in an exempt namespace)',
      });
    }
  });

  it.each(['Job', 'CronJob'] as const)('fails when a %s tolerates another team\'s pool: the API server refuses it when it is applied, not each pod it makes', (kind) => {
    expect(fit('web', { tolerations: [visionToleration] }, kind)['demo/vision'].admission).toEqual({
      allowed: false,
      reason: `admission refuses the ${kind}: namespace web may not use team vision's pool vision (the ${kind}'s pod template tolerates its taint dedicated=vision:NoSchedule): only pods of namespaces vision, vision-batch, karpenter-smoke-tests may`,
    });
  });

  it('prints admission after the fit in the terminal, and as admission in JSON', () => {
    const [w] = fitWorkloads([readWorkload('Deployment', aPodSpec({ tolerations: [visionToleration] }), { name: 'api', namespace: 'vision' })], platform, plan);
    const lines = fitTerminal([w], []);
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^ {2}✓ demo\/vision +\d+ instance types can hold it \(\$[\d.]+ to \$[\d.]+ per node-hour\); admission: allowed$/)]));
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^ {2}✓ open\/vision +\d+ instance types can hold it \(\$[\d.]+ to \$[\d.]+ per node-hour\)$/)]));
    const json = JSON.parse(fitJson([w], [])) as { workloads: { fits: { cluster: string; pool: string; admission?: unknown }[] }[] };
    const priced = { instanceTypes: expect.any(Number), onDemandPricePerHour: { min: expect.any(Number), max: expect.any(Number), region: 'us-east-1' } };
    expect(json.workloads[0].fits.find((f) => f.cluster === 'demo' && f.pool === 'vision')).toEqual({ cluster: 'demo', pool: 'vision', ...priced, admission: { allowed: true } });
    expect(json.workloads[0].fits.find((f) => f.cluster === 'open')).toEqual({ cluster: 'open', pool: 'vision', ...priced });
  });
});

describe('a pool admission refuses the workload on', () => {
  const refusal = 'admission refuses the Deployment: namespace web may not use team vision\'s pool vision (the Deployment\'s pod template tolerates its taint dedicated=vision:NoSchedule): only pods of namespaces vision, vision-batch, karpenter-smoke-tests may';
  const web = () => fitWorkloads([readWorkload('Deployment', aPodSpec({ tolerations: [visionToleration] }), { name: 'api', namespace: 'web' })], platform, plan);

  it('is not counted as a fit: the terminal marks it ⊘ with the policy\'s reason, and counts only the pool it runs on', () => {
    const lines = fitTerminal(web(), []);
    const types = (pool: string) => web()[0].refused.find((r) => r.pool === pool)?.instanceTypes;
    expect(lines[0]).toBe('Deployment web/api: fits 1 of 4 pools; admission refuses it on 2 more');
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^ {2}✓ open\/vision {2}\d+ instance types can hold it \(\$[\d.]+ to \$[\d.]+ per node-hour\)$/),
      `  ⊘ demo/vision  ${refusal}; ${types('vision')} instance types could hold it`,
      `  ⊘ demo/shared  ${refusal}; ${types('shared')} instance types could hold it`,
      `  ✗ demo/legacy  untolerated taint dedicated=legacy:NoSchedule; ${refusal}`,
    ]);
  });

  it('says so when admission refuses it on every pool it would fit', () => {
    const only = aPlatform([platform.clusters[0]]);
    const [w] = fitWorkloads([readWorkload('Deployment', aPodSpec({ tolerations: [visionToleration] }), { name: 'api', namespace: 'web' })], only, fleetPlan(only));
    expect(fitTerminal([w], [])[0]).toBe('Deployment web/api: fits no pool; admission refuses it on 2 it would fit');
  });

  it('is under refused in JSON, with the policy\'s reason and the instance types that could hold it, never under fits', () => {
    const json = JSON.parse(fitJson(web(), [])) as { workloads: Record<string, { cluster: string; pool: string }[]>[] };
    const [w] = json.workloads;
    expect(Object.keys(w)).toEqual(['kind', 'namespace', 'name', 'fits', 'refused', 'rejected']);
    expect(w.fits.map((f) => `${f.cluster}/${f.pool}`)).toEqual(['open/vision']);
    expect(w.refused).toEqual(['vision', 'shared'].map((pool) => ({
      cluster: 'demo', pool, reason: refusal, instanceTypes: expect.any(Number), admission: { allowed: false, reason: refusal },
    })));
    expect(w.rejected).toEqual([{ cluster: 'demo', pool: 'legacy', reason: 'untolerated taint dedicated=legacy:NoSchedule', admission: { allowed: false, reason: refusal } }]);
  });

  it('is a fit under tenancy action Audit or Warn, which admit the pod: admission says what it records', () => {
    for (const [action, says] of [['Audit', /^admission admits it and records the refusal in the audit log \(tenancy action Audit\): namespace web may not use/], ['Warn', /^admission admits it with a warning \(tenancy action Warn\): /]] as const) {
      const rows = fit('web', { tolerations: [visionToleration] }, 'Deployment', aPlatform([{ ...platform.clusters[0], tenancyAction: action }]));
      expect(rows['demo/vision']).toEqual({ as: 'fits', admission: { allowed: false, reason: expect.stringMatching(says) } });
    }
  });
});

/**
 * `npm run tenancy -- preflight` (issue 43): what the generated policies would refuse of what a
 * cluster runs, through the real command line, on exports as kubectl prints them; each verdict is
 * the policies' own (fit/admission.ts), so the cases here say which objects are judged, as whom,
 * and how the report reads.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { run } from '../../src/cli';
import { aConfig, Plain, removeProjects, writeProject } from '../builders';

afterAll(removeProjects);

const project = writeProject({ config: aConfig({ teams: { web: { namespaces: ['web'] }, vision: { namespaces: ['vision'], dedicated: false } } }) });
const list = (items: Plain[]) => ({ apiVersion: 'v1', kind: 'List', items });
const spec = (s: Plain = {}) => ({ containers: [{ name: 'c', image: 'public.ecr.aws/docker/library/nginx:1.27' }], ...s });
const owned = (apiVersion: string, kind: string) => [{ apiVersion, kind, name: 'owner', uid: '0c3f', controller: true }];
const workload = (kind: string, namespace: string, podSpec: Plain, extra: Plain = {}) => ({
  apiVersion: kind === 'CronJob' || kind === 'Job' ? 'batch/v1' : 'apps/v1', kind, metadata: { name: kind.toLowerCase(), namespace, ...extra },
  spec: kind === 'CronJob' ? { schedule: '0 3 * * *', jobTemplate: { spec: { template: { spec: podSpec } } } } : { selector: {}, template: { spec: podSpec } },
});
const pod = (name: string, namespace: string, s: Plain, ownerReferences?: Plain[]) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, ...(ownerReferences ? { ownerReferences } : {}) }, spec: spec(s) });
const accounts = (...names: string[]) => list(names.map((name) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'kube-system' } })));
const ALL = ['daemon-set-controller', 'replicaset-controller', 'statefulset-controller', 'job-controller', 'replication-controller'];

async function preflight(...exports: (Plain | string)[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const files = exports.map((e, i) => {
    const path = join(project.dir, `export-${i}.yaml`);
    writeFileSync(path, typeof e === 'string' ? e : stringify(e));
    return path;
  });
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(['tenancy', 'preflight', '--live', files.join(','), '--config', project.configPath], { out: (l) => out.push(l), err: (l) => err.push(l) }, {});
  return { code, out, err };
}

describe('tenancy preflight', () => {
  it('fails when running objects would be refused under Deny: names each, when, and why, one line per creator of pods', async () => {
    const r = await preflight(list([
      workload('DaemonSet', 'monitoring', spec({ tolerations: [{ operator: 'Exists' }] })),
      workload('CronJob', 'web', spec({ tolerations: [{ key: 'dedicated', value: 'vision', effect: 'NoSchedule' }], nodeSelector: { team: 'vision' } })),
      workload('Deployment', 'web', spec({ tolerations: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }], nodeSelector: { team: 'web' } })),
      // A Deployment's ReplicaSet and their pods are judged through the Deployment; a DaemonSet's pods through the DaemonSet.
      { ...workload('ReplicaSet', 'web', spec({ nodeSelector: { team: 'vision' } }), { ownerReferences: owned('apps/v1', 'Deployment') }) },
      pod('api-1', 'web', { nodeSelector: { team: 'vision' } }, owned('apps/v1', 'ReplicaSet')),
      pod('agent-1', 'monitoring', { tolerations: [{ operator: 'Exists' }] }, owned('apps/v1', 'DaemonSet')),
      // An operator's pods: judged by the DaemonSet rule, as the operator makes them again.
      pod('driver-1', 'spark', {}, owned('sparkoperator.k8s.io/v1beta2', 'SparkApplication')),
      pod('driver-2', 'spark', { nodeName: 'ip-10-0-1-2.ec2.internal' }, owned('sparkoperator.k8s.io/v1beta2', 'SparkApplication')),
      pod('coredns', 'kube-system', { tolerations: [{ operator: 'Exists' }] }),
    ]), accounts(...ALL));
    expect(r.code).toBe(3);
    expect(r.out[0]).toBe('cluster demo (tenancy action Deny): 3 object(s) the policies would refuse under Deny, of 5 judged');
    expect(r.out.slice(1, 4)).toEqual([
      expect.stringMatching(/^  ⊘ DaemonSet monitoring\/daemonset, when it is next applied or its template changes: namespace monitoring may not use team web's pool web \(the DaemonSet's pods can run/),
      expect.stringMatching(/^  ⊘ CronJob web\/cronjob, when it is next applied or its template changes: namespace web may not use team vision's pool vision \(the CronJob's pod template selects it/),
      expect.stringMatching(/^  ⊘ Pod spark\/driver-1 \(and 1 more pod\(s\) of the same creator\), when its creator next makes a pod: namespace spark may not use team vision's pool vision \(the pod, whose controller reference Karpenter may take for a DaemonSet's, can run on its nodes/),
    ]);
    expect(r.out[4]).toMatch(/^identities: kube-system has the service accounts of the DaemonSet and workload controllers/);
  });

  it('fails when kube-controller-manager does not run its controllers under their own service accounts, naming the ones missing', async () => {
    const r = await preflight(list([]), accounts('default'));
    expect(r.code).toBe(3);
    expect(r.out).toEqual([
      'cluster demo (tenancy action Deny): nothing the policies would refuse under Deny, of 0 judged',
      expect.stringMatching(/^identities: kube-system has no service account daemon-set-controller, replicaset-controller, statefulset-controller, job-controller, replication-controller: kube-controller-manager/),
    ]);
  });

  it('passes a cluster whose workloads keep to their teams\' pools, and says when the identities were not checked', async () => {
    const r = await preflight(list([workload('Deployment', 'web', spec({ nodeSelector: { team: 'web' }, tolerations: [{ key: 'dedicated', value: 'web', effect: 'NoSchedule' }] }))]));
    expect(r.code).toBe(0);
    expect(r.out).toEqual([
      'cluster demo (tenancy action Deny): nothing the policies would refuse under Deny, of 1 judged',
      'identities: not checked (add the output of kubectl get serviceaccounts -n kube-system -o yaml to --live)',
    ]);
  });

  it('fails when an export is empty (a kubectl that failed), naming the file, and writes no report', async () => {
    const r = await preflight('');
    expect(r.code).toBe(1);
    expect(r.out).toEqual([]);
    expect(r.err.join('\n')).toMatch(/export-0\.yaml.*the export is empty: the kubectl command failed or printed nothing/);
  });
});

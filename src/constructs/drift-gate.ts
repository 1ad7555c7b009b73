import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { DRIFT_GATE_WAVE, driftGateScript, DriftGateModel } from '../model/stages';
import { MANAGED_BY } from '../model/node-pool';

/** Properties of a {@link DriftGate}. */
export interface DriftGateProps {
  /** The gate to render. */
  readonly gate: DriftGateModel;
}

/**
 * The drift gate of a team's pools: a ServiceAccount allowed only to read NodeClaims, and a
 * Job in the last sync wave that succeeds once none of the team's NodeClaims is Drifted. A
 * regular Job, not a hook: Argo CD counts it toward the Application's health (Progressing
 * while it runs, Degraded when it fails), and no `ttlSecondsAfterFinished`, which would make
 * Argo CD see it missing and create it again. Pod Security: restricted.
 * @see https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted
 */
export class DriftGate extends Construct {
  /** The Job. */
  public readonly job: ApiObject;

  public constructor(scope: Construct, id: string, props: DriftGateProps) {
    super(scope, id);
    const g = props.gate;
    const labels = { 'app.kubernetes.io/managed-by': MANAGED_BY, 'app.kubernetes.io/component': 'drift-gate', team: g.team };
    // RBAC first, the Job last: the Job's pod needs its ServiceAccount and role to start.
    const rbacWave = { 'argocd.argoproj.io/sync-wave': String(DRIFT_GATE_WAVE - 1) };
    const serviceAccount = new ApiObject(this, 'ServiceAccount', {
      apiVersion: 'v1', kind: 'ServiceAccount',
      metadata: { name: g.rbacName, namespace: g.namespace, labels, annotations: rbacWave },
      automountServiceAccountToken: true,
    });
    const role = new ApiObject(this, 'ClusterRole', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole',
      metadata: { name: g.rbacName, labels, annotations: rbacWave },
      // Read-only, NodeClaims only (they are cluster-scoped: a ClusterRole).
      rules: [{ apiGroups: ['karpenter.sh'], resources: ['nodeclaims'], verbs: ['get', 'list', 'watch'] }],
    });
    new ApiObject(this, 'ClusterRoleBinding', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding',
      metadata: { name: g.rbacName, labels, annotations: rbacWave },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.name },
      subjects: [{ kind: 'ServiceAccount', name: serviceAccount.name, namespace: g.namespace }],
    });
    this.job = new ApiObject(this, 'Job', {
      apiVersion: 'batch/v1', kind: 'Job',
      metadata: { name: g.name, namespace: g.namespace, labels, annotations: { 'argocd.argoproj.io/sync-wave': String(DRIFT_GATE_WAVE) } },
      spec: {
        activeDeadlineSeconds: g.deadlineSeconds,
        backoffLimit: 0,
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: serviceAccount.name,
            restartPolicy: 'Never',
            securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
            volumes: [{ name: 'tmp', emptyDir: { sizeLimit: '16Mi' } }],
            containers: [{
              name: 'gate',
              image: g.image,
              command: ['/bin/sh', '-c', driftGateScript(g)],
              // kubectl keeps its discovery cache under $HOME: a scratch volume, the root stays read-only.
              env: [{ name: 'HOME', value: '/tmp' }],
              volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
              resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '64Mi' } },
              securityContext: {
                allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true,
                capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' },
              },
            }],
          },
        },
      },
    });
  }
}

import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { MANAGED_BY } from '../model/node-pool';
import { GUARD_ENV, GuardGateModel } from '../model/tenancy-guard';

/** Properties of a {@link GuardGate}. */
export interface GuardGateProps {
  /** The guard gate to render. */
  readonly gate: GuardGateModel;
}

/** Argo CD's hook annotations: run before every sync of the Application, deleted before the next run and once it succeeded. */
export const GUARD_GATE_HOOK = {
  'argocd.argoproj.io/hook': 'PreSync',
  'argocd.argoproj.io/hook-delete-policy': 'BeforeHookCreation,HookSucceeded',
} as const;

/**
 * The guard gate of a team's pools: a PreSync hook Job of the team's pools Application that runs
 * the guard program (src/gate/guard-main.ts) with the image's own `node`, no shell, as the
 * ServiceAccount the policies Application delivers. Argo CD runs it before any resource of each
 * sync and goes on only once it has succeeded; it is never compared, so it alone never makes the
 * Application OutOfSync. `BeforeHookCreation`: each sync runs a new Job of the same name (the old
 * one deleted first); `HookSucceeded`: a Job that passed goes at the end of the sync, one that
 * failed stays for its log until the next sync. `activeDeadlineSeconds`: Kubernetes fails it
 * after the deadline, and with it the sync, which Argo CD retries. An eviction (the node it runs
 * on drained) does not count as a failure (`podFailurePolicy`). No `ttlSecondsAfterFinished`:
 * a hook missing while Argo CD waits for it fails the sync. Pod Security: restricted.
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/resource_hooks/
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/gitops-engine/pkg/sync/hook/hook.go#L26-L32 (IsHook: the hook annotation)
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/gitops-engine/pkg/sync/hook/delete_policy.go#L11-L26 (DeletePolicies)
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/gitops-engine/pkg/sync/sync_context.go#L1650-L1684 (BeforeHookCreation: the old hook deleted, and gone, before the new one is created)
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/gitops-engine/pkg/sync/sync_context.go#L620-L656 (HookSucceeded, HookFailed: deleted once the sync ends)
 * @see https://kubernetes.io/docs/concepts/workloads/controllers/job/#job-termination-and-cleanup
 * @see https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted
 */
export class GuardGate extends Construct {
  /** The Job. */
  public readonly job: ApiObject;

  public constructor(scope: Construct, id: string, props: GuardGateProps) {
    super(scope, id);
    const g = props.gate;
    const labels = { 'app.kubernetes.io/managed-by': MANAGED_BY, 'app.kubernetes.io/component': 'guard-gate' };
    this.job = new ApiObject(this, 'Job', {
      apiVersion: 'batch/v1', kind: 'Job',
      metadata: { name: g.name, namespace: g.namespace, labels, annotations: { ...GUARD_GATE_HOOK } },
      spec: {
        activeDeadlineSeconds: g.deadlineSeconds,
        // Only the program's own failure counts (it exits 1 when it may not read what it must); an eviction does not.
        backoffLimit: 2,
        podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: g.serviceAccount,
            restartPolicy: 'Never',
            securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
            containers: [{
              name: 'guard',
              image: g.image,
              command: ['node', '-e', g.program],
              env: [{ name: GUARD_ENV, value: JSON.stringify(g.spec) }, { name: 'NODE_OPTIONS', value: g.nodeOptions }],
              resources: { requests: { cpu: '10m', memory: g.memory }, limits: { memory: g.memory } },
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

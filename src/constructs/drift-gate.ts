import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { DRIFT_GATE_PROGRAM_DIR, DRIFT_GATE_PROGRAM_KEY, DriftGateModel, DriftGateProgramModel, GATE_ENV, GATE_RBAC_RULES, GateRbacRule } from '../model/stages';
import { MANAGED_BY } from '../model/node-pool';

/** Properties of a {@link DriftGate}. */
export interface DriftGateProps {
  /** The gate to render. */
  readonly gate: DriftGateModel;
}

/**
 * The drift gate of a cluster: a ServiceAccount that may only read NodePools, EC2NodeClasses,
 * NodeOverlays, NodeClaims and the controller's Deployment, and a Job that runs the gate
 * program (src/gate/, the ConfigMap of {@link DriftGateProgram} mounted read-only) with the
 * image's own `node`, no shell. A regular Job, not a hook: Argo CD
 * counts it toward the Application's health (Progressing while it waits, Healthy once
 * Karpenter has finished with the revision). No `activeDeadlineSeconds`: it never fails
 * because a window closed, it waits for the next one; no `ttlSecondsAfterFinished`, which would
 * make Argo CD see it missing and create it again. An eviction (the node it runs on drained)
 * does not count as a failure (`podFailurePolicy`). Its memory request is its limit
 * (`gitops.driftGateMemory`) and `NODE_OPTIONS` sizes V8's heap to it: the gate uses what it is
 * given, so the node must not lend it to others. Pod Security: restricted.
 * @see https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted
 * @see https://kubernetes.io/docs/concepts/workloads/controllers/job/#pod-failure-policy
 */
export class DriftGate extends Construct {
  /** The Job. */
  public readonly job: ApiObject;

  public constructor(scope: Construct, id: string, props: DriftGateProps) {
    super(scope, id);
    const g = props.gate;
    const labels = { 'app.kubernetes.io/managed-by': MANAGED_BY, 'app.kubernetes.io/component': 'drift-gate' };
    // RBAC first, the Job in the last wave: its pod needs its ServiceAccount and roles to start.
    const rbacWave = { 'argocd.argoproj.io/sync-wave': '0' };
    const serviceAccount = new ApiObject(this, 'ServiceAccount', {
      apiVersion: 'v1', kind: 'ServiceAccount',
      metadata: { name: g.rbacName, namespace: g.namespace, labels, annotations: rbacWave },
      automountServiceAccountToken: true,
    });
    const subjects = [{ kind: 'ServiceAccount', name: serviceAccount.name, namespace: g.namespace }];
    const clusterRole = new ApiObject(this, 'ClusterRole', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole',
      metadata: { name: g.rbacName, labels, annotations: rbacWave },
      // Read-only: exactly the reads of the gate (src/gate/spec.ts GATE_RBAC_RULES) on Karpenter's
      // cluster-scoped objects; the Deployment's read is the Role's below, for one name.
      rules: GATE_RBAC_RULES.filter((r) => !r.controllerOnly).map(policyRule),
    });
    new ApiObject(this, 'ClusterRoleBinding', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding',
      metadata: { name: g.rbacName, labels, annotations: rbacWave },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole.name },
      subjects,
    });
    // Read-only, and only the controller's Deployment.
    const role = new ApiObject(this, 'Role', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role',
      metadata: { name: g.rbacName, namespace: g.spec.controller.namespace, labels, annotations: rbacWave },
      rules: GATE_RBAC_RULES.filter((r) => r.controllerOnly).map((r) => ({ ...policyRule(r), resourceNames: [g.spec.controller.deployment] })),
    });
    new ApiObject(this, 'RoleBinding', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding',
      metadata: { name: g.rbacName, namespace: g.spec.controller.namespace, labels, annotations: rbacWave },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role.name },
      subjects,
    });
    this.job = new ApiObject(this, 'Job', {
      apiVersion: 'batch/v1', kind: 'Job',
      metadata: { name: g.name, namespace: g.namespace, labels, annotations: { 'argocd.argoproj.io/sync-wave': '1' } },
      spec: {
        // Only the program's own failure counts (it exits 1 when it may not read what it must); an eviction does not.
        backoffLimit: 2,
        podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: serviceAccount.name,
            restartPolicy: 'Never',
            securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
            containers: [{
              name: 'gate',
              image: g.image,
              command: ['node', `${DRIFT_GATE_PROGRAM_DIR}/${DRIFT_GATE_PROGRAM_KEY}`],
              volumeMounts: [{ name: 'program', mountPath: DRIFT_GATE_PROGRAM_DIR, readOnly: true }],
              env: [{ name: GATE_ENV, value: JSON.stringify(g.spec) }, { name: 'NODE_OPTIONS', value: g.nodeOptions }],
              resources: { requests: { cpu: '10m', memory: g.memory }, limits: { memory: g.memory } },
              securityContext: {
                allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true,
                capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' },
              },
            }],
            // The kubelet starts the pod only once the ConfigMap exists (a volume that is not
            // optional): it is in the gate's first wave with the RBAC, the Job in the second.
            volumes: [{ name: 'program', configMap: { name: g.programConfigMap } }],
          },
        },
      },
    });
  }
}

/** Properties of a {@link DriftGateProgram}. */
export interface DriftGateProgramProps {
  readonly program: DriftGateProgramModel;
}

/**
 * The drift gate's program, an immutable ConfigMap named after its text (model/stages.ts
 * `DriftGateProgramModel`), in the gate's first wave: the Job's pod mounts it.
 */
export class DriftGateProgram extends Construct {
  public constructor(scope: Construct, id: string, props: DriftGateProgramProps) {
    super(scope, id);
    const p = props.program;
    new ApiObject(this, 'ConfigMap', {
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: {
        name: p.name, namespace: p.namespace,
        labels: { 'app.kubernetes.io/managed-by': MANAGED_BY, 'app.kubernetes.io/component': 'drift-gate' },
        annotations: { 'argocd.argoproj.io/sync-wave': '0' },
      },
      immutable: true,
      data: { [DRIFT_GATE_PROGRAM_KEY]: p.program },
    });
  }
}

/** A rule of the gate's reads as a PolicyRule. */
function policyRule(r: GateRbacRule): { apiGroups: string[]; resources: string[]; verbs: string[] } {
  return { apiGroups: [...r.apiGroups], resources: [...r.resources], verbs: [...r.verbs] };
}

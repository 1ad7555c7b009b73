import { ApiObject, JsonPatch, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-31';
import { Construct } from 'constructs';
import { SmokeTestModel } from '../model/smoke-test';

/** Properties of a {@link SmokeTestDeployment}. */
export interface SmokeTestDeploymentProps {
  /** The smoke test to render. */
  readonly test: SmokeTestModel;
  /** Namespace of the Deployment. */
  readonly namespace: string;
}

/** UID/GID of the pause image's unprivileged user. */
const NOBODY = 65535;

/**
 * A Deployment of pause containers that fits only on one pool: required node
 * affinity to the pool's `karpenter.sh/nodepool` label, one toleration per
 * pool taint, and the restricted Pod Security profile. Scale it above 0 to
 * watch Karpenter launch a node for the pool.
 * @see https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted
 */
export class SmokeTestDeployment extends Construct {
  /** The Deployment. */
  public readonly deployment: kplus.Deployment;

  public constructor(scope: Construct, id: string, props: SmokeTestDeploymentProps) {
    super(scope, id);
    const t = props.test;
    const labels = { 'app.kubernetes.io/name': 'karpenter-smoke-test', 'app.kubernetes.io/instance': t.name };
    this.deployment = new kplus.Deployment(this, 'Deployment', {
      metadata: { name: t.name, namespace: props.namespace, labels },
      replicas: t.replicas,
      select: false,
      podMetadata: { labels },
      automountServiceAccountToken: false,
      securityContext: { ensureNonRoot: true, user: NOBODY, group: NOBODY },
      containers: [{
        name: 'pause',
        image: t.image,
        // The memory limit equals the request: the pod never grows beyond what was scheduled.
        resources: {
          cpu: { request: kplus.Cpu.millis(t.cpuMillis) },
          memory: { request: Size.mebibytes(t.memoryMiB), limit: Size.mebibytes(t.memoryMiB) },
        },
        securityContext: {
          ensureNonRoot: true,
          user: NOBODY,
          group: NOBODY,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          privileged: false,
          capabilities: { drop: [kplus.Capability.ALL] },
          seccompProfile: { type: kplus.SeccompProfileType.RUNTIME_DEFAULT },
        },
      }],
    });
    this.deployment.select(kplus.LabelSelector.of({ labels }));
    for (const [key, value] of Object.entries(t.nodeSelector)) {
      this.deployment.scheduling.attract(kplus.Node.labeled(kplus.NodeLabelQuery.is(key, value)));
    }
    for (const tol of t.tolerations) {
      const effect = { NoSchedule: kplus.TaintEffect.NO_SCHEDULE, PreferNoSchedule: kplus.TaintEffect.PREFER_NO_SCHEDULE, NoExecute: kplus.TaintEffect.NO_EXECUTE }[tol.effect];
      this.deployment.scheduling.tolerate(kplus.Node.tainted(tol.value !== undefined
        ? kplus.NodeTaintQuery.is(tol.key, tol.value, { effect })
        : kplus.NodeTaintQuery.exists(tol.key, { effect })));
    }
    // cdk8s-plus labels pods with a hash of the construct path; a refactor would change it and roll the pods.
    ApiObject.of(this.deployment).addJsonPatch(JsonPatch.remove('/spec/template/metadata/labels/cdk8s.io~1metadata.addr'));
    // Extended resources (GPUs) are set as limits (requests follow); cdk8s-plus knows only cpu, memory and
    // storage. The patch runs before the typed conversion of the Deployment, which reads a Quantity.
    for (const [resource, count] of Object.entries(t.extended).sort(([a], [b]) => (a < b ? -1 : 1))) {
      const at = `/spec/template/spec/containers/0/resources/limits/${resource.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      ApiObject.of(this.deployment).addJsonPatch(JsonPatch.add(at, kplus.k8s.Quantity.fromNumber(count)));
    }
  }
}

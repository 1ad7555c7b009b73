import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { MANAGED_BY } from '../model/node-pool';
import { GUARD_RBAC_RULES, GuardGateRbacModel } from '../model/tenancy-guard';

/** Properties of a {@link GuardGateRbac}. */
export interface GuardGateRbacProps {
  /** The RBAC to render. */
  readonly rbac: GuardGateRbacModel;
}

/**
 * What the guard gates of a cluster run as: a ServiceAccount in the controller's namespace, and a
 * ClusterRole that may only get and list ValidatingAdmissionPolicies and their bindings, bound to
 * it. It lives with the policies, whose Application no window holds and which the root syncs
 * before the pools, so it is there before any guarded pool's sync runs its hook.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/rbac/#role-and-clusterrole
 */
export class GuardGateRbac extends Construct {
  public constructor(scope: Construct, id: string, props: GuardGateRbacProps) {
    super(scope, id);
    const r = props.rbac;
    const metadata = { labels: { 'app.kubernetes.io/managed-by': MANAGED_BY, 'app.kubernetes.io/component': 'guard-gate' } };
    const serviceAccount = new ApiObject(this, 'ServiceAccount', {
      apiVersion: 'v1', kind: 'ServiceAccount',
      metadata: { ...metadata, name: r.name, namespace: r.namespace },
      automountServiceAccountToken: true,
    });
    const clusterRole = new ApiObject(this, 'ClusterRole', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole',
      metadata: { ...metadata, name: r.name },
      rules: GUARD_RBAC_RULES.map((rule) => ({ apiGroups: [...rule.apiGroups], resources: [...rule.resources], verbs: [...rule.verbs] })),
    });
    new ApiObject(this, 'ClusterRoleBinding', {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding',
      metadata: { ...metadata, name: r.name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole.name },
      subjects: [{ kind: 'ServiceAccount', name: serviceAccount.name, namespace: r.namespace }],
    });
  }
}

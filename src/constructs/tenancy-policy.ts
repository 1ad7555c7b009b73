import * as k8s from 'cdk8s-plus-31/lib/imports/k8s';
import { Construct } from 'constructs';
import { MANAGED_BY } from '../model/node-pool';
import { POLICY_SYNC_OPTIONS, tenancyCel, TenancyPolicyModel, validationActions } from '../model/tenancy';

/** Properties of a {@link TenancyPolicy}. */
export interface TenancyPolicyProps {
  /** The cluster's tenancy policy. */
  readonly policy: TenancyPolicyModel;
}

/**
 * The ValidatingAdmissionPolicy that keeps each team's pools to the team's namespaces, and
 * its binding (admissionregistration.k8s.io/v1, Kubernetes 1.30+, evaluated in the API
 * server: no controller to run). Pods of the exempt namespaces are never looked at; a pod's
 * UPDATE is looked at only when it changes what the pod tolerates or selects.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/
 */
export class TenancyPolicy extends Construct {
  /** The policy. */
  public readonly policy: k8s.KubeValidatingAdmissionPolicy;
  /** Its binding. */
  public readonly binding: k8s.KubeValidatingAdmissionPolicyBinding;

  public constructor(scope: Construct, id: string, props: TenancyPolicyProps) {
    super(scope, id);
    const p = props.policy;
    const cel = tenancyCel(p);
    const metadata = {
      labels: { 'app.kubernetes.io/managed-by': MANAGED_BY },
      // Removing either opens every team's pools to every namespace: a person confirms it in Argo CD.
      annotations: { 'argocd.argoproj.io/sync-options': POLICY_SYNC_OPTIONS },
    };
    this.policy = new k8s.KubeValidatingAdmissionPolicy(this, 'Policy', {
      metadata: { name: p.name, ...metadata },
      spec: {
        // Fail closed: a pod the policy cannot judge is refused (the exempt namespaces are never judged).
        failurePolicy: 'Fail',
        // The API server's defaults written out (matchPolicy, objectSelector, scope), so Argo CD sees no diff.
        matchConstraints: {
          matchPolicy: 'Equivalent',
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'], scope: '*' }],
          namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: [...p.exemptNamespaces] }] },
          objectSelector: {},
        },
        matchConditions: [{ name: 'changes-scheduling', expression: cel.matchCondition }],
        variables: cel.variables.map((v) => ({ ...v })),
        validations: [{ expression: cel.validation, messageExpression: cel.message, message: cel.fallbackMessage, reason: 'Forbidden' }],
      },
    });
    this.binding = new k8s.KubeValidatingAdmissionPolicyBinding(this, 'Binding', {
      metadata: { name: p.name, ...metadata },
      spec: { policyName: this.policy.name, validationActions: validationActions(p.action) },
    });
  }
}

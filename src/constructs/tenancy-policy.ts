import { ApiObject } from 'cdk8s';
import * as k8s from 'cdk8s-plus-31/lib/imports/k8s';
import { Construct } from 'constructs';
import { MANAGED_BY } from '../model/node-pool';
import {
  JUDGED_RESOURCES, POLICY_SYNC_OPTIONS, TEAM_TENANCY, TEAM_TENANCY_API_VERSION, tenancyCel, TenancyPolicyModel, teamTenancySpec, validationActions,
} from '../model/tenancy';

/** Properties of a {@link TenancyPolicy}. */
export interface TenancyPolicyProps {
  /** The cluster's tenancy policy. */
  readonly policy: TenancyPolicyModel;
  /** Sync waves within the policies Application: the parameters before the policy, the policy before its binding. */
  readonly waves: { readonly params: number; readonly policy: number; readonly binding: number };
}

/** The label that marks the parameters the binding uses (the generator's own). */
const MANAGED = { 'app.kubernetes.io/managed-by': MANAGED_BY };

/**
 * The ValidatingAdmissionPolicy that keeps each team's pools to the team's namespaces, its
 * binding, and one `TeamTenancy` parameter object per team (admissionregistration.k8s.io/v1,
 * Kubernetes 1.30+, evaluated in the API server: no controller to run). The binding selects the
 * generator's parameters by label; the API server evaluates the policy once per parameter, with
 * the CEL cost budget of each, so the policy's expressions stay the same size at any fleet size.
 * Objects of the exempt namespaces are never looked at.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/admission/plugin/policy/validating/dispatcher.go#L190-L222 (one evaluation per parameter, each with RuntimeCELCostBudget)
 */
export class TenancyPolicy extends Construct {
  /** The policy. */
  public readonly policy: k8s.KubeValidatingAdmissionPolicy;
  /** Its binding. */
  public readonly binding: k8s.KubeValidatingAdmissionPolicyBinding;
  /** The parameters, one per team (or part of a team). */
  public readonly params: readonly ApiObject[];

  public constructor(scope: Construct, id: string, props: TenancyPolicyProps) {
    super(scope, id);
    const p = props.policy;
    const cel = tenancyCel();
    const confirmed = (wave: number) => ({
      labels: MANAGED,
      // Removing either opens every team's pools to every namespace: a person confirms it in Argo CD.
      annotations: { 'argocd.argoproj.io/sync-options': POLICY_SYNC_OPTIONS, 'argocd.argoproj.io/sync-wave': String(wave) },
    });
    this.params = p.params.map((param) => new ApiObject(this, `Param-${param.name}`, {
      apiVersion: TEAM_TENANCY_API_VERSION,
      kind: TEAM_TENANCY.kind,
      metadata: { name: param.name, labels: MANAGED, annotations: { 'argocd.argoproj.io/sync-wave': String(props.waves.params) } },
      spec: teamTenancySpec(param),
    }));
    this.policy = new k8s.KubeValidatingAdmissionPolicy(this, 'Policy', {
      metadata: { name: p.name, ...confirmed(props.waves.policy) },
      spec: {
        // Fail closed: an object the policy cannot judge (a cost limit hit, an error) is refused.
        failurePolicy: 'Fail',
        paramKind: { apiVersion: TEAM_TENANCY_API_VERSION, kind: TEAM_TENANCY.kind },
        // The API server's defaults written out (matchPolicy, objectSelector, scope), so Argo CD sees no diff.
        matchConstraints: {
          matchPolicy: 'Equivalent',
          resourceRules: [
            { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: [...JUDGED_RESOURCES.core], scope: '*' },
            { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: [...JUDGED_RESOURCES.apps], scope: '*' },
          ],
          namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: [...p.exemptNamespaces] }] },
          objectSelector: {},
        },
        matchConditions: [{ name: 'judged', expression: cel.matchCondition }],
        variables: cel.variables.map((v) => ({ ...v })),
        validations: cel.validations.map((v) => ({ ...v, reason: 'Forbidden' })),
      },
    });
    this.binding = new k8s.KubeValidatingAdmissionPolicyBinding(this, 'Binding', {
      metadata: { name: p.name, ...confirmed(props.waves.binding) },
      spec: {
        policyName: this.policy.name,
        // Every parameter the generator wrote; none found (they are deleted first): nothing to judge by.
        paramRef: { selector: { matchLabels: MANAGED }, parameterNotFoundAction: 'Allow' },
        validationActions: validationActions(p.action),
      },
    });
  }
}

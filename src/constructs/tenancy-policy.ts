import * as k8s from 'cdk8s-plus-31/lib/imports/k8s';
import { Construct } from 'constructs';
import { MANAGED_BY } from '../model/node-pool';
import { POLICY_SYNC_OPTIONS, POLICY_WAVES, TenancyPolicyModel, TenancyPolicyPart } from '../model/tenancy';
import { GUARDS_ANNOTATION } from '../model/tenancy-guard';

/** Properties of a {@link TenancyPolicy}. */
export interface TenancyPolicyProps {
  /** The cluster's tenancy policy. */
  readonly policy: TenancyPolicyModel;
  /**
   * Each guarded team's guard digest: a policy carries those of the teams whose pools it holds in
   * its annotation `karpenter-gitops.io/guards`, which the team's guard gate waits for. @default {}
   */
  readonly guards?: Readonly<Record<string, string>>;
}

/**
 * The ValidatingAdmissionPolicies that keep each team's pools to the team's namespaces, each
 * holding some pools as literal data, and their bindings (admissionregistration.k8s.io/v1,
 * Kubernetes 1.30+, evaluated in the API server: no controller to run, no parameter to find).
 * Each part and its binding share a name derived from the part's content: Argo CD creates the
 * new ones first (waves -2 and -1) and prunes the replaced ones after the last wave (PruneLast).
 * Objects of the exempt namespaces are never looked at.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.0/pkg/admission/plugin/policy/validating/dispatcher.go#L182-L214 (no paramKind: one evaluation per binding)
 */
export class TenancyPolicy extends Construct {
  /** The policies, one per part. */
  public readonly policies: readonly k8s.KubeValidatingAdmissionPolicy[];
  /** Their bindings. */
  public readonly bindings: readonly k8s.KubeValidatingAdmissionPolicyBinding[];

  public constructor(scope: Construct, id: string, props: TenancyPolicyProps) {
    super(scope, id);
    const metadata = (name: string, wave: number) => ({
      name,
      labels: { 'app.kubernetes.io/managed-by': MANAGED_BY },
      annotations: { 'argocd.argoproj.io/sync-options': POLICY_SYNC_OPTIONS, 'argocd.argoproj.io/sync-wave': String(wave) },
    });
    const guards = props.guards ?? {};
    const withGuards = <M extends { annotations: Record<string, string> }>(m: M, own: Record<string, string>): M => (Object.keys(own).length === 0 ? m
      : { ...m, annotations: { ...m.annotations, [GUARDS_ANNOTATION]: JSON.stringify(own) } });
    const guardsOf = (part: TenancyPolicyPart) => Object.fromEntries([...new Set(part.pools.map((g) => g.team))].filter((t) => guards[t] !== undefined).map((t) => [t, guards[t]]));
    this.policies = props.policy.parts.map((part) => new k8s.KubeValidatingAdmissionPolicy(this, `Policy-${part.name}`, {
      metadata: withGuards(metadata(part.name, POLICY_WAVES.policy), guardsOf(part)),
      spec: {
        ...part.spec,
        matchConstraints: {
          ...part.spec.matchConstraints,
          resourceRules: part.spec.matchConstraints.resourceRules.map((r) => ({ ...r, apiGroups: [...r.apiGroups], apiVersions: [...r.apiVersions], operations: [...r.operations], resources: [...r.resources] })),
          namespaceSelector: { matchExpressions: part.spec.matchConstraints.namespaceSelector.matchExpressions.map((e) => ({ ...e, values: [...e.values] })) },
        },
        matchConditions: part.spec.matchConditions.map((c) => ({ ...c })),
        variables: part.spec.variables.map((v) => ({ ...v })),
        validations: part.spec.validations.map((v) => ({ ...v })),
      },
    }));
    this.bindings = props.policy.parts.map((part) => new k8s.KubeValidatingAdmissionPolicyBinding(this, `Binding-${part.name}`, {
      metadata: metadata(part.name, POLICY_WAVES.binding),
      spec: { policyName: part.binding.policyName, validationActions: [...part.binding.validationActions] },
    }));
  }
}

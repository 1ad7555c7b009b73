/**
 * A cluster as a guard gate sees it: the tenancy policies of the generator (label
 * `app.kubernetes.io/managed-by: karpenter-gitops`, annotation `karpenter-gitops.io/guards`) and
 * their bindings, as the API server serves them. Tests change them as Argo CD would (apply a new
 * commit's digest, delete, restore).
 */
import { GUARDS_ANNOTATION, GuardSpec } from '../../src/gate/guard-spec';
import type { SimObject } from '../support/karpenter';

const EPOCH = '2026-01-01T00:00:00Z';
let uids = 0;

function object(kind: string, name: string, spec: Record<string, unknown>, metadata: Partial<SimObject['metadata']> = {}): SimObject {
  uids += 1;
  return {
    apiVersion: 'admissionregistration.k8s.io/v1', kind,
    metadata: { name, uid: `00000000-0000-0000-0001-${String(uids).padStart(12, '0')}`, generation: 1, resourceVersion: String(uids), creationTimestamp: EPOCH, ...metadata },
    spec, status: {},
  };
}

/** A policy of the tenancy set that guards `guards` (team to digest). */
export function aPolicy(name: string, guards: Record<string, string> | string): SimObject {
  const annotations = { [GUARDS_ANNOTATION]: typeof guards === 'string' ? guards : JSON.stringify(guards) };
  return object('ValidatingAdmissionPolicy', name, { failurePolicy: 'Fail', validations: [{ expression: 'true' }] }, { labels: { 'app.kubernetes.io/managed-by': 'karpenter-gitops' }, annotations });
}

/** The binding of `policy`, named as it (as the generator names them). */
export function aBinding(name: string, policyName = name): SimObject {
  return object('ValidatingAdmissionPolicyBinding', name, { policyName, validationActions: ['Deny'] });
}

/** Argo CD applies another commit's guards to a policy (the same object: the stand-in serves the change). */
export function argoAppliesGuards(policy: SimObject, guards: Record<string, string>): void {
  policy.metadata.annotations = { ...policy.metadata.annotations, [GUARDS_ANNOTATION]: JSON.stringify(guards) };
  policy.metadata.generation += 1;
}

/** The guard of team `web` at digest `d2`, one part: settle 10s, a look every 5s. */
export function aGuardSpec(overrides: Partial<GuardSpec> = {}): GuardSpec {
  return {
    cluster: 'prod-eu', team: 'web', digest: 'd2', parts: 1, application: 'prod-eu-policies',
    policySelector: 'app.kubernetes.io/managed-by=karpenter-gitops', settleSeconds: 10, pollSeconds: 5, ...overrides,
  };
}

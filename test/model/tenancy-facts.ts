/**
 * The tenancy policies and their bindings as synth renders them for a cluster, paired by name,
 * for the model of the API server's admission (test/support/admission-policy.ts).
 */
import { parseAllDocuments } from 'yaml';
import type { JsonObject, PolicyPair } from '../support/admission-policy';

/** The tenancy policies of a cluster with their bindings, as synth wrote them (`files`: synthesize's result). */
export function renderedPolicy(files: ReadonlyMap<string, string>, cluster = 'demo'): PolicyPair[] {
  const text = files.get(`dist/${cluster}/policies/team-pools.yaml`);
  if (text === undefined) throw new Error(`no policy for ${cluster}: ${[...files.keys()].filter((f) => f.includes(cluster)).join(', ')}`);
  return renderedPairs(parseAllDocuments(text).map((d) => d.toJS() as JsonObject));
}

/** Policies and bindings of a list of objects, paired by the binding's policyName (each policy must have exactly one). */
export function renderedPairs(docs: readonly JsonObject[]): PolicyPair[] {
  const policies = docs.filter((d) => d.kind === 'ValidatingAdmissionPolicy');
  const bindings = docs.filter((d) => d.kind === 'ValidatingAdmissionPolicyBinding');
  if (policies.length === 0) throw new Error('no ValidatingAdmissionPolicy');
  return policies.map((policy) => {
    const name = (policy.metadata as JsonObject).name;
    const own = bindings.filter((b) => (b.spec as JsonObject).policyName === name);
    if (own.length !== 1) throw new Error(`${own.length} bindings for ${String(name)}`);
    return { policy, binding: own[0] };
  });
}

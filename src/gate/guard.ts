/**
 * The guard gate (docs/tenancy.md, "Delivery"): the program of the PreSync hook Job of a guarded
 * team's pools Application. It waits until the tenancy policies that guard the team's pools as
 * this commit has them are live — each carries the team's guard digest in its
 * `karpenter-gitops.io/guards` annotation and has its binding — so Argo CD creates or changes
 * none of the team's NodePools before the policy that judges who may use them. It has no deadline
 * of its own: its Job's `activeDeadlineSeconds` ends it, which fails the sync (Argo CD retries it).
 */
import type { Answer, Api } from './api';
import { DENIED_LOOKS, Denial, GateRuntime, joined, listAll, named, Read, read } from './look';
import { GUARD_CLUSTER_ROLE, GUARDS_ANNOTATION, GuardSpec, isRecord } from './guard-spec';

/**
 * Policies asked for per page of the list (`limit`). A policy of the tenancy set holds its
 * expressions and a share of the pools, well under the 256 KiB that client-side apply's
 * last-applied annotation allows; ten of them are a few MB at most, which the guard reduces to
 * {@link PolicyFacts} before it asks for the next page. Measured under the drift gate's default
 * memory (96Mi, test/gate/memory.test.ts): about 72 MiB resident reading 200 policies of 128 KB;
 * the same list in one answer runs out of heap.
 */
export const POLICY_PAGE_SIZE = 10;

/** What the guard keeps of one policy: its name, whom it guards, whether it is being deleted. */
export interface PolicyFacts {
  readonly name: string;
  readonly deleting: boolean;
  /** Its {@link GUARDS_ANNOTATION}: team to digest. @default {} - none, or not readable */
  readonly guards: Readonly<Record<string, string>>;
  /** Why its annotation is not a JSON object of team to digest. @default - it is, or there is none */
  readonly problem?: string;
}

/** What the guard saw of a binding: undefined when there is none (404). */
export interface BindingFacts {
  readonly deleting: boolean;
  /** Its `spec.policyName`. @default - none */
  readonly policyName?: string;
}

/** One look: every tenancy policy, and the binding of each that guards the team in this commit. */
export interface GuardLook {
  readonly policies: readonly PolicyFacts[];
  /** By the name of each policy of {@link guarding}: its binding of the same name, undefined when there is none. */
  readonly bindings: Readonly<Record<string, BindingFacts | undefined>>;
}

/** The guard's verdict on one look. */
export interface GuardAssessment {
  /** At least `parts` policies guard the team as in this commit, each live with its binding. */
  readonly done: boolean;
  /** The policies that do, by name. */
  readonly live: readonly string[];
  /** One line per thing still missing, for people. */
  readonly waiting: readonly string[];
}

/** A policy's or binding's `metadata`, the fields the guard reads. */
function metadataOf(item: unknown): { readonly name: string; readonly deleting: boolean; readonly annotations: Readonly<Record<string, unknown>> } {
  const meta = isRecord(item) && isRecord(item.metadata) ? item.metadata : {};
  return {
    name: typeof meta.name === 'string' ? meta.name : '',
    deleting: meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== null,
    annotations: isRecord(meta.annotations) ? meta.annotations : {},
  };
}

/**
 * The facts of a ValidatingAdmissionPolicy as the API server serves it: its name, its
 * annotations, whether it is being deleted.
 * @see https://github.com/kubernetes/api/blob/v0.34.0/admissionregistration/v1/types.go (ValidatingAdmissionPolicy)
 */
export function policyFacts(item: unknown): PolicyFacts {
  const meta = metadataOf(item);
  const text = meta.annotations[GUARDS_ANNOTATION];
  return { name: meta.name, deleting: meta.deleting, ...guardsOf(typeof text === 'string' ? text : undefined) };
}

/**
 * The facts of a ValidatingAdmissionPolicyBinding as the API server serves it: the policy it binds
 * (`spec.policyName`), whether it is being deleted.
 * @see https://github.com/kubernetes/api/blob/v0.34.0/admissionregistration/v1/types.go (ValidatingAdmissionPolicyBindingSpec.policyName)
 */
export function bindingFacts(item: unknown): BindingFacts {
  const spec = isRecord(item) && isRecord(item.spec) ? item.spec : {};
  return { deleting: metadataOf(item).deleting, ...(typeof spec.policyName === 'string' ? { policyName: spec.policyName } : {}) };
}

/** The annotation's value read as team to digest, or why it cannot be. */
function guardsOf(text: string | undefined): Pick<PolicyFacts, 'guards' | 'problem'> {
  if (text === undefined) return { guards: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { guards: {}, problem: `is not JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (!isRecord(value) || Object.values(value).some((v) => typeof v !== 'string')) return { guards: {}, problem: `is not a JSON object of team to digest: ${text.slice(0, 80)}` };
  return { guards: Object.fromEntries(Object.entries(value).flatMap(([team, digest]) => (typeof digest === 'string' ? [[team, digest]] : []))) };
}

/** The policies that say they guard the team's pools as in this commit (being deleted or not). */
export function guarding(policies: readonly PolicyFacts[], spec: GuardSpec): PolicyFacts[] {
  return policies.filter((p) => p.guards[spec.team] === spec.digest);
}

/**
 * Whether the team's pools as this commit has them are guarded, at one look: at least `parts`
 * policies carry the team's digest, none of them being deleted, each with its binding (same
 * name, `policyName` that name, not being deleted): a policy without a binding is never
 * evaluated. Policies that hold the team at another digest are from another commit, and do not
 * count. Pure: the same look, the same answer.
 * @see https://github.com/kubernetes/kubernetes/blob/03694666bdf4e2dcb6e65185237d1ee30ef10eaf/staging/src/k8s.io/apiserver/pkg/admission/plugin/policy/generic/policy_source.go (calculatePolicyData: only a policy some binding names is evaluated)
 */
export function assessGuard(look: GuardLook, spec: GuardSpec): GuardAssessment {
  const waiting: string[] = [];
  const live: string[] = [];
  for (const p of guarding(look.policies, spec)) {
    const binding = look.bindings[p.name];
    if (p.deleting) waiting.push(`policy ${p.name}: being deleted`);
    else if (!binding) waiting.push(`policy ${p.name}: no binding ${p.name} yet`);
    else if (binding.deleting) waiting.push(`binding ${p.name}: being deleted`);
    else if (binding.policyName !== p.name) waiting.push(`binding ${p.name}: binds policy ${binding.policyName ?? '(none)'}, not ${p.name}`);
    else live.push(p.name);
  }
  for (const p of look.policies) {
    const other = p.guards[spec.team];
    if (p.problem !== undefined) waiting.push(`policy ${p.name}: annotation ${GUARDS_ANNOTATION} ${p.problem}`);
    else if (other !== undefined && other !== spec.digest) waiting.push(`policy ${p.name}: guards team ${spec.team}'s pools as another commit has them (digest ${other})`);
  }
  const done = live.length >= spec.parts;
  if (!done) waiting.unshift(`${live.length} of ${spec.parts} ${spec.parts === 1 ? 'policy' : 'policies'} live that guard team ${spec.team}'s pools as this commit has them (digest ${spec.digest}): Argo CD Application ${spec.application} delivers them`);
  return { done, live, waiting: done ? [] : waiting };
}

/**
 * The reads of a look, all GET: the tenancy policies by label, a page of
 * {@link POLICY_PAGE_SIZE} at a time, and a binding by name.
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-uris
 */
export function guardReads(spec: GuardSpec) {
  const base = '/apis/admissionregistration.k8s.io/v1';
  return {
    policies: {
      subject: 'policies', rule: 'list validatingadmissionpolicies.admissionregistration.k8s.io', list: true,
      path: `${base}/validatingadmissionpolicies?labelSelector=${encodeURIComponent(spec.policySelector)}&limit=${POLICY_PAGE_SIZE}`,
    },
    binding: (name: string): Read => ({ subject: `binding ${name}`, rule: `get validatingadmissionpolicybindings.admissionregistration.k8s.io ${name}`, path: `${base}/validatingadmissionpolicybindings/${named(name)}` }),
  };
}

/** One look: what the guard saw, or the reads the API server denied. */
async function lookOnce(spec: GuardSpec, api: Api, runtime: GateRuntime): Promise<GuardLook | { readonly denied: readonly Denial[] }> {
  const r = guardReads(spec);
  const deny = (x: Read, a: Exclude<Answer, { kind: 'retry' }>): Denial[] => (a.kind === 'denied' ? [{ read: x, status: a.status, message: a.message }] : []);
  const listed = await listAll(api, r.policies, runtime, policyFacts);
  if (listed.kind !== 'ok') {
    const denied = deny(r.policies, listed);
    // 404: no policy kind served at all (a cluster older than 1.30): nothing guards the team yet.
    return denied.length ? { denied } : { policies: [], bindings: {} };
  }
  const answers = await Promise.all(guarding(listed.items, spec).map(async (p) => {
    const x = r.binding(p.name);
    return [p.name, x, await read(api, x, runtime)] as const;
  }));
  const denied = answers.flatMap(([, x, a]) => deny(x, a));
  if (denied.length) return { denied };
  const bindings = Object.fromEntries(answers.map(([name, , a]) => [name, a.kind === 'ok' ? bindingFacts(a.body) : undefined]));
  return { policies: listed.items, bindings };
}

/**
 * The guard: looks every `pollSeconds` until {@link assessGuard} has said done at every look for
 * `settleSeconds` without a break, then says `done` and returns 0. It waits as long as its Job
 * lets it (the Job's `activeDeadlineSeconds` fails it, and with it the sync); it returns 1 only
 * when the API server denies its reads {@link DENIED_LOOKS} looks in a row.
 */
export async function runGuard(spec: GuardSpec, api: Api, runtime: GateRuntime): Promise<number> {
  const settleMs = spec.settleSeconds * 1000;
  runtime.out(`guard gate of team ${spec.team} on cluster ${spec.cluster}: waits for ${spec.parts} tenancy ${spec.parts === 1 ? 'policy' : 'policies'} (${spec.policySelector}) `
    + `whose ${GUARDS_ANNOTATION} maps ${spec.team} to ${spec.digest}, each with its binding; settle ${spec.settleSeconds}s, a look every ${spec.pollSeconds}s`);
  let since: number | undefined;
  let deniedLooks = 0;
  for (;;) {
    const started = runtime.now();
    const seen = await lookOnce(spec, api, runtime);
    let waiting: readonly string[];
    if ('denied' in seen) {
      deniedLooks++;
      if (deniedLooks >= DENIED_LOOKS) {
        const what = seen.denied.map((d) => `${d.read.rule} (${d.status}: ${d.message})`).join('; ');
        runtime.err(`error: the API server denied the guard's reads ${deniedLooks} looks in a row: ${what}: check that the ClusterRole ${GUARD_CLUSTER_ROLE} grants them to this Job's ServiceAccount`);
        return 1;
      }
      waiting = seen.denied.map((d) => `${d.read.subject}: ${d.status} (${deniedLooks}/${DENIED_LOOKS}): ${d.message}`);
    } else {
      deniedLooks = 0;
      const verdict = assessGuard(seen, spec);
      if (verdict.done) {
        since ??= started;
        const held = started - since;
        if (held >= settleMs) {
          runtime.out(`done: team ${spec.team}'s pools are guarded by ${verdict.live.join(', ')}; held ${Math.floor(held / 1000)}s`);
          return 0;
        }
        runtime.out(`waiting (settled ${Math.floor(held / 1000)}/${spec.settleSeconds}s): guarded by ${verdict.live.join(', ')}`);
        await runtime.sleep(spec.pollSeconds * 1000);
        continue;
      }
      waiting = verdict.waiting;
    }
    since = undefined;
    runtime.out(`waiting: ${joined(waiting)}`);
    await runtime.sleep(spec.pollSeconds * 1000);
  }
}

/**
 * What a guard gate waits for, as the model writes it into its hook Job's `GUARD` environment
 * variable (JSON): the contract between the generator and the guard program (src/gate/guard.ts),
 * and between the guard and the tenancy policy objects it waits for (docs/tenancy.md, "Delivery").
 */

/**
 * The annotation every ValidatingAdmissionPolicy of a cluster's tenancy set carries: a JSON
 * object that maps each team whose pools the policy holds to that team's guard digest
 * (`{"web":"3f2a…","ml":"9b1c…"}`), the digest of the team's guarded pools as the commit has
 * them (their names, labels, taints, whether dedicated; never who may use them).
 */
export const GUARDS_ANNOTATION = 'karpenter-gitops.io/guards';

/** The ClusterRole (and ServiceAccount, ClusterRoleBinding) of the guard gates; named in the message when the API server denies a read. */
export const GUARD_CLUSTER_ROLE = 'karpenter-gitops-guard-gate';

/** The environment variable that holds the {@link GuardSpec} as JSON. */
export const GUARD_ENV = 'GUARD';

/** The configuration of a guard gate (`GUARD`, JSON): a team's pools are created or changed only once their policy is live. */
export interface GuardSpec {
  /** The cluster's id, for the log. */
  readonly cluster: string;
  /** The team whose pools the guard holds. */
  readonly team: string;
  /** The team's guard digest in this commit: a policy guards the pools as they are here when its {@link GUARDS_ANNOTATION} maps the team to it. */
  readonly digest: string;
  /** How many live policies must carry the digest, each with its binding: the team's pools may be spread over several. */
  readonly parts: number;
  /** The Argo CD Application that delivers the policies (`<cluster>-policies`), for the log. */
  readonly application: string;
  /** The label selector of the tenancy policies (`app.kubernetes.io/managed-by=karpenter-gitops`). */
  readonly policySelector: string;
  /** Seconds the policies must have been live, without a break, before the guard passes (the API server's policy source picks a change up within about a second). */
  readonly settleSeconds: number;
  /** Seconds between two looks. */
  readonly pollSeconds: number;
}

/** One rule of the guard's RBAC (`rbac.authorization.k8s.io/v1` PolicyRule). */
export interface GuardRbacRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

/**
 * Everything the guard reads: it lists the tenancy policies (by label, a page at a time) and gets
 * the binding of each policy that guards its team. Nothing else: the guard only ever reads.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/rbac/#role-and-clusterrole
 */
export const GUARD_RBAC_RULES: readonly GuardRbacRule[] = [
  { apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingadmissionpolicies', 'validatingadmissionpolicybindings'], verbs: ['get', 'list'] },
];

/** A parsed {@link GuardSpec}, or every problem of the given text, one line each. */
export type ParsedGuardSpec = { readonly ok: true; readonly spec: GuardSpec } | { readonly ok: false; readonly problems: readonly string[] };

/** Whether a JSON value is an object (not null, not a list). */
export function isRecord(v: unknown): v is Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Reads `GUARD`: JSON of a {@link GuardSpec}. Every problem is reported, one line each
 * (`GUARD: parts: expected a whole number above 0, got 0`).
 */
export function parseGuardSpec(text: string | undefined): ParsedGuardSpec {
  if (text === undefined || text.trim() === '') return { ok: false, problems: [`${GUARD_ENV}: not set: the Job passes the guard's configuration as JSON in ${GUARD_ENV}`] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, problems: [`${GUARD_ENV}: not JSON: ${err instanceof Error ? err.message : String(err)}`] };
  }
  if (!isRecord(value)) return { ok: false, problems: [`${GUARD_ENV}: expected a JSON object, got ${JSON.stringify(value)}`] };
  const problems: string[] = [];
  const at = (key: string, want: string) => problems.push(`${GUARD_ENV}: ${key}: expected ${want}, got ${JSON.stringify(value[key]) ?? 'nothing'}`);
  const str = (key: string): string => {
    const v = value[key];
    if (typeof v === 'string' && v !== '') return v;
    at(key, 'a non-empty string');
    return '';
  };
  const seconds = (key: string): number => {
    const v = value[key];
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) return v;
    at(key, 'a number of seconds above 0');
    return 0;
  };
  const [cluster, team, digest, application, policySelector] = [str('cluster'), str('team'), str('digest'), str('application'), str('policySelector')];
  const parts = value.parts;
  if (typeof parts !== 'number' || !Number.isInteger(parts) || parts < 1) at('parts', 'a whole number above 0');
  const [settleSeconds, pollSeconds] = [seconds('settleSeconds'), seconds('pollSeconds')];
  if (problems.length || typeof parts !== 'number') return { ok: false, problems };
  return { ok: true, spec: { cluster, team, digest, parts, application, policySelector, settleSeconds, pollSeconds } };
}

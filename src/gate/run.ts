import type { Answer, Api } from './api';
import { assess, doneSummary, nodeClaimFacts, NODEPOOL_LABEL, Snapshot } from './assess';
import type { Deployment, EC2NodeClass, NodeClaim, NodeClaimFacts, NodeOverlay, NodePool, ObjectList } from './objects';
import { GATE_CLUSTER_ROLE, GateSpec } from './spec';

/** How the gate tells time, waits and speaks: the process's in the Job, simulated in tests. */
export interface GateRuntime {
  /** Milliseconds since some fixed point. */
  now(): number;
  sleep(ms: number): Promise<void>;
  /** A line on standard output. */
  out(line: string): void;
  /** A line on standard error. */
  err(line: string): void;
}

/** Looks in a row whose reads the API server denies (401, 403) before the gate fails. */
export const DENIED_LOOKS = 5;
/** The first wait before a read is asked again; it doubles up to {@link MAX_BACKOFF_MS}. */
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;
/** Waiting lines shown in one log line; the rest are counted. */
const SHOWN_LINES = 12;
/**
 * NodeClaims asked for per page of the list (`limit`). A NodeClaim as Karpenter writes it is
 * some 10 to 15 KB of JSON (up to 600 instance types in its requirements, its managed fields):
 * a page is about 1.5 MB, which the gate reads, parses and reduces to {@link NodeClaimFacts}
 * before it asks for the next; its memory is bounded by a page, not by the cluster
 * (measured in test/gate/memory.test.ts). kubectl and client-go's pager ask for 500.
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#retrieving-large-results-sets-in-chunks
 */
export const NODECLAIM_PAGE_SIZE = 100;

/** One read of a look: what it reads, in the words of RBAC, and its path. */
interface Read {
  /** `nodepool web`: the subject of its waiting line. */
  readonly subject: string;
  /** `get nodepools.karpenter.sh web`: what the ClusterRole must allow. */
  readonly rule: string;
  readonly path: string;
  /** A list read, a page at a time: its answer must have `items`. @default false */
  readonly list?: boolean;
}

const named = (name: string) => encodeURIComponent(name);

/**
 * The reads of a look, all GET.
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-uris
 */
export function reads(spec: GateSpec) {
  const pools = spec.nodePools.map((p) => p.name);
  return {
    deployment: {
      subject: 'karpenter',
      rule: `get deployments.apps ${spec.controller.deployment} in namespace ${spec.controller.namespace}`,
      path: `/apis/apps/v1/namespaces/${named(spec.controller.namespace)}/deployments/${named(spec.controller.deployment)}`,
    },
    nodePools: spec.nodePools.map((p) => ({ name: p.name, read: { subject: `nodepool ${p.name}`, rule: `get nodepools.karpenter.sh ${p.name}`, path: `/apis/karpenter.sh/v1/nodepools/${named(p.name)}` } })),
    nodeClasses: spec.nodeClasses.map((c) => ({ name: c.name, read: { subject: `ec2nodeclass ${c.name}`, rule: `get ec2nodeclasses.karpenter.k8s.aws ${c.name}`, path: `/apis/karpenter.k8s.aws/v1/ec2nodeclasses/${named(c.name)}` } })),
    nodeOverlays: spec.nodeOverlays.map((o) => ({ name: o.name, read: { subject: `nodeoverlay ${o.name}`, rule: `get nodeoverlays.karpenter.sh ${o.name}`, path: `/apis/karpenter.sh/v1alpha1/nodeoverlays/${named(o.name)}` } })),
    // A set-based selector: the NodeClaims of the revision's pools, a page of NODECLAIM_PAGE_SIZE at a time (nextPage).
    nodeClaims: pools.length
      ? { subject: 'nodeclaims', rule: 'list nodeclaims.karpenter.sh', list: true, path: `/apis/karpenter.sh/v1/nodeclaims?labelSelector=${encodeURIComponent(`${NODEPOOL_LABEL} in (${pools.join(',')})`)}&limit=${NODECLAIM_PAGE_SIZE}` }
      : undefined,
  };
}

/** A read the API server denied. */
interface Denial {
  readonly read: Read;
  readonly status: string;
  readonly message: string;
}

/** One look: a snapshot, or the reads the API server denied. */
type Look = { readonly snapshot: Snapshot } | { readonly denied: readonly Denial[] };

/**
 * The path of the page after the one that answered `token`: the same query with `continue`,
 * as the API server asks (the same parameters, only `continue` added).
 * @see https://github.com/kubernetes/apimachinery/blob/v0.34.9/pkg/apis/meta/v1/types.go#L375-L406 (ListOptions.limit, continue)
 */
function nextPage(read: Read, token: string): string {
  return `${read.path}&continue=${encodeURIComponent(token)}`;
}

/**
 * Reads one path until the API server gives an answer the gate can act on (200, 404, 401,
 * 403, and 410 for the next page of a list): a network error, 409, 429, 5xx or an unexpected
 * answer is logged and asked again, waiting longer each time (at least as long as
 * `Retry-After` says). It never gives up: the gate has no deadline.
 */
async function read(api: Api, r: Read, runtime: GateRuntime, path = r.path): Promise<Exclude<Answer, { kind: 'retry' }>> {
  let backoff = FIRST_BACKOFF_MS;
  for (let attempt = 1; ; attempt++) {
    let a = await api.get(path);
    // A list always has its items (`[]` when none): a list without them must not read as "no NodeClaim".
    if (r.list && a.kind === 'ok' && !Array.isArray((a.body as { items?: unknown }).items)) a = { kind: 'retry', reason: 'a list answer without items (unexpected)' };
    // Only a continue token expires; a 410 to anything else is the server's trouble, asked again.
    if (a.kind === 'expired' && path === r.path) a = { kind: 'retry', reason: `410 Gone (unexpected): ${a.message}` };
    if (a.kind !== 'retry') return a;
    const wait = Math.min(Math.max(backoff, (a.retryAfterSeconds ?? 0) * 1000), 2 * MAX_BACKOFF_MS);
    runtime.out(`GET ${path}: ${a.reason}; asking again in ${wait / 1000}s (attempt ${attempt})`);
    await runtime.sleep(wait);
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}

/** A whole list as the gate keeps it: the facts of every item, or why there are none. */
type Listed = { readonly kind: 'ok'; readonly facts: readonly NodeClaimFacts[] } | Exclude<Answer, { kind: 'ok' | 'retry' | 'expired' }>;

/**
 * Every NodeClaim of the pools, a page at a time: each page's items reduced to their
 * {@link NodeClaimFacts} before the next page is asked for, until a page has no `continue`.
 * A page may hold fewer items than asked (none, even) while more remain: only `continue` says.
 * When a `continue` token has expired (410), the list starts again from the first page
 * without it, as a client that needs a consistent list must; the pages read so far are
 * dropped, so every NodeClaim is counted once, at one resource version.
 * @see https://github.com/kubernetes/apimachinery/blob/v0.34.9/pkg/apis/meta/v1/types.go#L375-L406 (ListOptions.limit, continue: "it must restart their list without the continue field")
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.9/pkg/storage/etcd3/errors.go#L52-L89 (an expired continue token: 410 ResourceExpired)
 */
async function listNodeClaims(api: Api, r: Read, runtime: GateRuntime): Promise<Listed> {
  let facts: NodeClaimFacts[] = [];
  let path = r.path;
  let restarts = 0;
  for (;;) {
    const a = await read(api, r, runtime, path);
    if (a.kind === 'expired') {
      // At once the first time (a compaction between two pages); a server that keeps expiring them is not asked in a tight loop.
      const wait = restarts++ === 0 ? 0 : Math.min(FIRST_BACKOFF_MS * 2 ** (restarts - 2), MAX_BACKOFF_MS);
      runtime.out(`GET ${path}: 410 Gone: ${a.message}; listing again from the first page${wait ? ` in ${wait / 1000}s` : ''}`);
      if (wait) await runtime.sleep(wait);
      facts = [];
      path = r.path;
      continue;
    }
    if (a.kind !== 'ok') return a;
    const page = a.body as ObjectList<NodeClaim>;
    for (const item of page.items!) facts.push(nodeClaimFacts(item));
    const token = page.metadata?.continue;
    if (!token) return { kind: 'ok', facts };
    path = nextPage(r, token);
  }
}

/** Every read of a look at once; each answer a body, undefined for 404, or a denial. */
async function look(spec: GateSpec, api: Api, runtime: GateRuntime): Promise<Look> {
  const r = reads(spec);
  const denied: Denial[] = [];
  const deny = (x: Read, a: Exclude<Answer, { kind: 'retry' }>) => {
    if (a.kind === 'denied') denied.push({ read: x, status: a.status, message: a.message });
  };
  const body = async <T>(x: Read): Promise<T | undefined> => {
    const a = await read(api, x, runtime);
    deny(x, a);
    return a.kind === 'ok' ? (a.body as T) : undefined;
  };
  const byName = async <T>(list: readonly { name: string; read: Read }[]) =>
    Object.fromEntries(await Promise.all(list.map(async (x) => [x.name, await body<T>(x.read)] as const))) as Record<string, T | undefined>;
  const claims = async (x: Read | undefined): Promise<readonly NodeClaimFacts[] | undefined> => {
    if (!x) return [];
    const a = await listNodeClaims(api, x, runtime);
    if (a.kind === 'ok') return a.facts;
    deny(x, a);
    return undefined;
  };
  const [deployment, nodePools, nodeClasses, nodeOverlays, nodeClaims] = await Promise.all([
    body<Deployment>(r.deployment),
    byName<NodePool>(r.nodePools),
    byName<EC2NodeClass>(r.nodeClasses),
    byName<NodeOverlay>(r.nodeOverlays),
    claims(r.nodeClaims),
  ]);
  if (denied.length) return { denied };
  return { snapshot: { deployment, nodePools, nodeClasses, nodeOverlays, nodeClaims } };
}

/** `a; b; c; … and 4 more`. */
function joined(lines: readonly string[]): string {
  const rest = lines.length - SHOWN_LINES;
  return [...lines.slice(0, SHOWN_LINES), ...(rest > 0 ? [`… and ${rest} more`] : [])].join('; ');
}

/**
 * The gate: looks every `pollSeconds` until every condition of {@link assess} has held at
 * every look for `settleSeconds` without a break, then says `done` and returns 0. An unmet
 * look starts the settle time again. Drift is re-evaluated per NodeClaim every five minutes,
 * so a settle time of at least that long sees Karpenter's verdict on the current spec.
 * It has no deadline: it waits until Karpenter is done, however long. It returns 1 only when
 * the API server denies its reads {@link DENIED_LOOKS} looks in a row.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/nodeclaim/disruption/drift.go#L74 (RequeueAfter: 5 * time.Minute, not drifted)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/nodeclaim/disruption/drift.go#L82 (RequeueAfter: 5 * time.Minute, drifted)
 */
export async function runGate(spec: GateSpec, api: Api, runtime: GateRuntime): Promise<number> {
  const settleMs = spec.settleSeconds * 1000;
  const names = (list: readonly { name: string }[]) => (list.length ? list.map((x) => x.name).join(', ') : 'none');
  runtime.out(
    `drift gate of cluster ${spec.cluster}: karpenter ${spec.controller.chart} (${spec.controller.namespace}/${spec.controller.deployment}); `
    + `nodepools ${names(spec.nodePools)}; ec2nodeclasses ${names(spec.nodeClasses)}; nodeoverlays ${names(spec.nodeOverlays)}; `
    + `settle ${spec.settleSeconds}s, a look every ${spec.pollSeconds}s`,
  );
  let since: number | undefined;
  let deniedLooks = 0;
  for (;;) {
    const started = runtime.now();
    const seen = await look(spec, api, runtime);
    let waiting: readonly string[];
    if ('denied' in seen) {
      deniedLooks++;
      if (deniedLooks >= DENIED_LOOKS) {
        const what = seen.denied.map((d) => `${d.read.rule} (${d.status}: ${d.message})`).join('; ');
        runtime.err(`error: the API server denied the gate's reads ${deniedLooks} looks in a row: ${what}: check that the ClusterRole ${GATE_CLUSTER_ROLE} grants them to this Job's ServiceAccount`);
        return 1;
      }
      waiting = seen.denied.map((d) => `${d.read.subject}: ${d.status} (${deniedLooks}/${DENIED_LOOKS}): ${d.message}`);
    } else {
      deniedLooks = 0;
      const verdict = assess(seen.snapshot, spec);
      if (verdict.done) {
        since ??= started;
        const held = started - since;
        if (held >= settleMs) {
          runtime.out(`done: ${doneSummary(seen.snapshot, spec)}; held ${Math.floor(held / 1000)}s`);
          return 0;
        }
        runtime.out(`waiting (settled ${Math.floor(held / 1000)}/${spec.settleSeconds}s): every condition holds`);
        await runtime.sleep(spec.pollSeconds * 1000);
        continue;
      }
      waiting = verdict.waiting;
    }
    since = undefined;
    runtime.out(`waiting (settled 0/${spec.settleSeconds}s): ${joined(waiting)}`);
    await runtime.sleep(spec.pollSeconds * 1000);
  }
}

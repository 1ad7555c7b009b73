import type { Answer, Api } from './api';
import { assess, doneSummary, nodeClaimFacts, NODEPOOL_LABEL, Snapshot } from './assess';
import { DENIED_LOOKS, Denial, GateRuntime, joined, listAll, named, Read, read } from './look';
import type { Deployment, EC2NodeClass, NodeClaim, NodeClaimFacts, NodeOverlay, NodePool } from './objects';
import { GATE_CLUSTER_ROLE, GateSpec } from './spec';

export type { GateRuntime } from './look';
export { DENIED_LOOKS } from './look';

/**
 * NodeClaims asked for per page of the list (`limit`). A NodeClaim as Karpenter writes it is
 * some 10 to 15 KB of JSON (up to 600 instance types in its requirements, its managed fields):
 * a page is about 1.5 MB, which the gate reads, parses and reduces to {@link NodeClaimFacts}
 * before it asks for the next; its memory is bounded by a page, not by the cluster
 * (measured in test/gate/memory.test.ts). kubectl and client-go's pager ask for 500.
 * @see https://kubernetes.io/docs/reference/using-api/api-concepts/#retrieving-large-results-sets-in-chunks
 */
export const NODECLAIM_PAGE_SIZE = 100;

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
    // A set-based selector: the NodeClaims of the revision's pools, a page of NODECLAIM_PAGE_SIZE at a time (look.ts listAll).
    nodeClaims: pools.length
      ? { subject: 'nodeclaims', rule: 'list nodeclaims.karpenter.sh', list: true, path: `/apis/karpenter.sh/v1/nodeclaims?labelSelector=${encodeURIComponent(`${NODEPOOL_LABEL} in (${pools.join(',')})`)}&limit=${NODECLAIM_PAGE_SIZE}` }
      : undefined,
  };
}

/** One look: a snapshot, or the reads the API server denied. */
type Look = { readonly snapshot: Snapshot } | { readonly denied: readonly Denial[] };

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
    // Each page's NodeClaims reduced to their facts before the next is read: memory bounded by a page.
    const a = await listAll(api, x, runtime, (item) => nodeClaimFacts(item as NodeClaim));
    if (a.kind === 'ok') return a.items;
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

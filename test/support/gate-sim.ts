/**
 * The drift gate's pod in the rollout simulation: the program `node -e` runs in the Job of
 * `dist/<cluster>/drift-gate/gate.yaml`, reading its `GATE` environment variable (a GateSpec,
 * src/gate/spec.ts), looking at the API server every poll with the Job's ServiceAccount (the
 * reads go through the cluster's live RBAC objects, which the gate's Application delivers), and
 * exiting 0 once {@link assess} has said done, without a break, for `settleSeconds`. It looks
 * every `pollSeconds`, but at most once a simulated minute: the simulation's state changes once
 * a minute, so a second look in the same minute would read the same objects. A read that RBAC refuses
 * makes the program exit 1 (the Job then retries up to its `backoffLimit`).
 *
 * It reads what the program reads (src/gate/run.ts `reads`): each object of the spec by name,
 * and the NodeClaims by the program's own list request, its label selector and `limit`, a page
 * at a time through `continue` (kube-sim `listPage`), keeping of each NodeClaim what the program
 * keeps (`nodeClaimFacts`). And it runs in the memory the Job gives it: a pod that reads an
 * answer too large for its heap is killed (OOMKilled, a failed pod), by {@link heapNeededMiB}
 * and {@link heapBudgetMiB}, which test/gate/memory.test.ts checks against the real program.
 */
import type { GateSpec } from '../../src/gate/spec';
import { assess as realAssess, nodeClaimFacts, Snapshot } from '../../src/gate/assess';
import type { NodeClaim, NodeClaimFacts } from '../../src/gate/objects';
import { reads as programReads } from '../../src/gate/run';
import { Quantity, UNITS } from '../../src/quantity/quantity';
import { KubeApi, KubeObject, Live, PodProgram } from './kube-sim';

const MIB = 1024 * 1024;
/**
 * Heap the program needs to read an answer, per byte of its JSON: the text itself (one byte per
 * character) and the objects `JSON.parse` makes of it (about two bytes per byte of NodeClaims).
 * Measured with the real program under a 32 MiB old space: it reads the whole list of 600
 * NodeClaims of 14 KB in one answer (8.4 MB) and not 800 (11.2 MB); test/gate/memory.test.ts
 * holds the model to the program on both sides (a page of 100 and 200 whole fit, 3,000 whole do not).
 */
const HEAP_PER_ANSWER_BYTE = 3;
/** The program's own heap beside the answer it reads, in MiB (measured as above). */
const PROGRAM_HEAP_MIB = 4;
/** What node takes beside V8's old space, in MiB: about 50 resident with nothing read (measured as above, Node 20). */
const NODE_RESIDENT_MIB = 50;

/** MiB of heap the gate program needs to read one answer of `bytes` of JSON. */
export function heapNeededMiB(bytes: number): number {
  return PROGRAM_HEAP_MIB + HEAP_PER_ANSWER_BYTE * bytes / MIB;
}

/**
 * MiB of heap a gate container may fill: its `--max-old-space-size` (NODE_OPTIONS), and never
 * more than its memory limit leaves beside node itself. Without the flag V8's default old space
 * (a quarter of the cgroup limit, at least 256 MiB on 64-bit: src/model/stages.ts
 * driftGateNodeOptions) is above a small limit, and the kernel kills the container first.
 */
export function heapBudgetMiB(container: { readonly env?: readonly { readonly name: string; readonly value?: string }[]; readonly resources?: { readonly limits?: { readonly memory?: string } } }): number {
  const options = (container.env ?? []).find((e) => e.name === 'NODE_OPTIONS')?.value ?? '';
  const flag = /--max-old-space-size=(\d+)/.exec(options);
  const limit = container.resources?.limits?.memory;
  const left = limit === undefined ? Infinity : Number(Quantity.of(limit).to(UNITS.MiB, 'down')) - NODE_RESIDENT_MIB;
  return Math.min(flag ? Number(flag[1]) : Infinity, left);
}

/** What the gate reads each poll: the controller Deployment and every Karpenter object it checks. */
export interface GateSnapshot {
  /** `get deployments/<controller.deployment>` in `controller.namespace`; undefined when not found. */
  readonly deployment?: KubeObject;
  /** The objects of the spec that exist, each got by name. */
  readonly nodePools: readonly KubeObject[];
  readonly nodeClasses: readonly KubeObject[];
  readonly nodeOverlays: readonly KubeObject[];
  /** What the program keeps of each NodeClaim its list selects. */
  readonly nodeClaims: readonly NodeClaimFacts[];
}

/** The gate's decision on one snapshot. */
export interface GateVerdict {
  readonly done: boolean;
  /** What it still waits for, one line each (empty when done). */
  readonly waiting: string[];
}

/**
 * The gate's decision on one look: src/gate's own `assess` (the program the Job runs), given
 * the snapshot as the program reads it (objects by name; the NodeClaims its list selects).
 */
export function assess(snapshot: GateSnapshot, spec: GateSpec): GateVerdict {
  const byName = <T>(objects: readonly KubeObject[]) => Object.fromEntries(objects.map((o) => [o.metadata.name, o as unknown as T]));
  const verdict = realAssess({
    deployment: snapshot.deployment as unknown as Snapshot['deployment'],
    nodePools: byName(snapshot.nodePools),
    nodeClasses: byName(snapshot.nodeClasses),
    nodeOverlays: byName(snapshot.nodeOverlays),
    nodeClaims: snapshot.nodeClaims,
  }, spec);
  return { done: verdict.done, waiting: [...verdict.waiting] };
}

/** The gate's decision function: {@link assess}, or src/gate's when it lands. */
export type Assess = (snapshot: GateSnapshot, spec: GateSpec) => GateVerdict;

/** One look of a gate pod, kept when its verdict changes. */
export interface GateLook {
  readonly at: number;
  readonly cluster: string;
  readonly job: string;
  readonly verdict: GateVerdict;
}

interface JobManifest {
  readonly spec: { readonly template: { readonly spec: { readonly serviceAccountName?: string; readonly containers: readonly {
    readonly command?: readonly string[];
    readonly env?: readonly { readonly name: string; readonly value?: string }[];
    readonly resources?: { readonly limits?: { readonly memory?: string } };
  }[] } } };
}

/** A label selector of the gate's list, `key in (a,b)` (src/gate/run.ts reads); anything else is a bug of the simulation. */
function selectorOf(text: string): (labels: Readonly<Record<string, string>>) => boolean {
  const m = /^([^\s]+) in \(([^)]*)\)$/.exec(text);
  if (!m) throw new Error(`the simulated gate reads label selectors "key in (a,b)", not ${text}`);
  const values = new Set(m[2].split(','));
  return (labels) => labels[m[1]] !== undefined && values.has(labels[m[1]]);
}

/** Whether a Job is a drift gate: its container runs `node` with a `GATE` variable (the program from its ConfigMap). */
export function isGateJob(job: Live): boolean {
  const container = (job.applied as unknown as JobManifest).spec.template.spec.containers[0];
  return container?.command?.[0] === 'node' && (container.env ?? []).some((e) => e.name === 'GATE');
}

/**
 * The program of a gate Job's pod (a new one for each pod): reads the snapshot through RBAC,
 * asks `decide`, and exits 0 once it has said done for `settleSeconds` without a break.
 */
export function gateProgram(cluster: string, decide: Assess, looks: GateLook[]): PodProgram {
  let heldSince: number | undefined;
  let lastLook: number | undefined;
  let last: string | undefined;
  return (job: Live, api: KubeApi, now: number) => {
    const podSpec = (job.applied as unknown as JobManifest).spec.template.spec;
    const spec = JSON.parse(podSpec.containers[0].env!.find((e) => e.name === 'GATE')!.value!) as GateSpec;
    if (lastLook !== undefined && now - lastLook < spec.pollSeconds * 1000) return 'running';
    lastLook = now;
    const subject = { namespace: job.namespace!, name: podSpec.serviceAccountName ?? 'default' };
    // The reads of the gate program (src/gate/run.ts reads): a get of each object by name, one list of NodeClaims.
    const reads: [verb: string, group: string, resource: string, namespace?: string, name?: string][] = [
      ['get', 'apps', 'deployments', spec.controller.namespace, spec.controller.deployment],
      ...spec.nodePools.map((p): [string, string, string, undefined, string] => ['get', 'karpenter.sh', 'nodepools', undefined, p.name]),
      ...spec.nodeClasses.map((c): [string, string, string, undefined, string] => ['get', 'karpenter.k8s.aws', 'ec2nodeclasses', undefined, c.name]),
      ...spec.nodeOverlays.map((o): [string, string, string, undefined, string] => ['get', 'karpenter.sh', 'nodeoverlays', undefined, o.name]),
      ['list', 'karpenter.sh', 'nodeclaims'],
    ];
    const refused = reads.find(([verb, group, resource, namespace, name]) => !api.authorize(subject, verb, group, resource, namespace, name));
    if (refused) {
      looks.push({ at: now, cluster, job: job.name, verdict: { done: false, waiting: [`forbidden: ${refused[0]} ${refused[2]}.${refused[1]}`] } });
      return 'failed';
    }
    // The NodeClaims as the program lists them: its request's selector and limit, a page at a time, each page in the heap.
    const budget = heapBudgetMiB(podSpec.containers[0]);
    const request = programReads(spec).nodeClaims;
    const nodeClaims: NodeClaimFacts[] = [];
    if (request) {
      const query = new URL(request.path, 'https://kubernetes.default.svc').searchParams;
      const selected = selectorOf(query.get('labelSelector') ?? '');
      const limit = Number(query.get('limit') ?? 0);
      let token: string | undefined;
      do {
        const page = api.listPage('NodeClaim', { selected, limit, continue: token });
        const bytes = page.items.reduce((sum, l) => sum + api.jsonBytes(l), 0);
        if (heapNeededMiB(bytes) > budget) {
          looks.push({ at: now, cluster, job: job.name, verdict: { done: false, waiting: [`OOMKilled: a page of ${page.items.length} NodeClaims (${(bytes / MIB).toFixed(1)} MiB of JSON) needs ${heapNeededMiB(bytes).toFixed(0)} MiB of heap, the pod has ${budget} MiB`] } });
          return 'failed';
        }
        for (const l of page.items) nodeClaims.push(nodeClaimFacts(api.render(l) as NodeClaim));
        token = page.continue;
      } while (token !== undefined);
    }
    const deployment = api.get('Deployment', spec.controller.deployment, spec.controller.namespace);
    const got = (kind: string, names: readonly { name: string }[]) => names.flatMap((n) => {
      const live = api.get(kind, n.name);
      return live ? [api.render(live)] : [];
    });
    const verdict = decide({
      deployment: deployment && api.render(deployment),
      nodePools: got('NodePool', spec.nodePools), nodeClasses: got('EC2NodeClass', spec.nodeClasses), nodeOverlays: got('NodeOverlay', spec.nodeOverlays), nodeClaims,
    }, spec);
    const said = JSON.stringify(verdict);
    if (said !== last) looks.push({ at: now, cluster, job: job.name, verdict });
    last = said;
    if (!verdict.done) {
      heldSince = undefined;
      return 'running';
    }
    heldSince ??= now;
    return now - heldSince >= spec.settleSeconds * 1000 ? 'succeeded' : 'running';
  };
}

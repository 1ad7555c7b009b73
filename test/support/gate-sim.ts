/**
 * The drift gate's pod in the rollout simulation: the program `node -e` runs in the Job of
 * `dist/<cluster>/drift-gate/gate.yaml`, reading its `GATE` environment variable (a GateSpec,
 * src/gate/spec.ts), looking at the API server every poll with the Job's ServiceAccount (the
 * reads go through the cluster's live RBAC objects, which the gate's Application delivers), and
 * exiting 0 once {@link assess} has said done, without a break, for `settleSeconds`. It looks
 * every `pollSeconds`, but at most once a simulated minute: the simulation's state changes once
 * a minute, so a second look in the same minute would read the same objects. A read that RBAC refuses
 * makes the program exit 1 (the Job then retries up to its `backoffLimit`).
 */
import type { GateSpec } from '../../src/gate/spec';
import { assess as realAssess, Snapshot } from '../../src/gate/assess';
import { KubeApi, KubeObject, Live, PodProgram } from './kube-sim';

/** What the gate reads each poll: the controller Deployment and every Karpenter object it checks. */
export interface GateSnapshot {
  /** `get deployments/<controller.deployment>` in `controller.namespace`; undefined when not found. */
  readonly deployment?: KubeObject;
  readonly nodePools: readonly KubeObject[];
  readonly nodeClasses: readonly KubeObject[];
  readonly nodeOverlays: readonly KubeObject[];
  readonly nodeClaims: readonly KubeObject[];
}

/** The gate's decision on one snapshot. */
export interface GateVerdict {
  readonly done: boolean;
  /** What it still waits for, one line each (empty when done). */
  readonly waiting: string[];
}

/**
 * The gate's decision on one look: src/gate's own `assess` (the program the Job runs), given
 * the snapshot as the program reads it (objects by name; the NodeClaims of the pools).
 */
export function assess(snapshot: GateSnapshot, spec: GateSpec): GateVerdict {
  const byName = <T>(objects: readonly KubeObject[]) => Object.fromEntries(objects.map((o) => [o.metadata.name, o as unknown as T]));
  const pools = new Set(spec.nodePools.map((p) => p.name));
  const verdict = realAssess({
    deployment: snapshot.deployment as unknown as Snapshot['deployment'],
    nodePools: byName(snapshot.nodePools),
    nodeClasses: byName(snapshot.nodeClasses),
    nodeOverlays: byName(snapshot.nodeOverlays),
    nodeClaims: snapshot.nodeClaims.filter((c) => pools.has(c.metadata.labels?.['karpenter.sh/nodepool'] ?? '')) as unknown as Snapshot['nodeClaims'],
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
  readonly spec: { readonly template: { readonly spec: { readonly serviceAccountName?: string; readonly containers: readonly { readonly command?: readonly string[]; readonly env?: readonly { readonly name: string; readonly value?: string }[] }[] } } };
}

/** Whether a Job is a drift gate: its container runs `node -e` with a `GATE` variable. */
export function isGateJob(job: Live): boolean {
  const container = (job.applied as unknown as JobManifest).spec.template.spec.containers[0];
  return container?.command?.[0] === 'node' && container.command[1] === '-e' && (container.env ?? []).some((e) => e.name === 'GATE');
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
    const deployment = api.get('Deployment', spec.controller.deployment, spec.controller.namespace);
    const list = (kind: string) => api.list(kind).map((l) => api.render(l));
    const verdict = decide({
      deployment: deployment && api.render(deployment),
      nodePools: list('NodePool'), nodeClasses: list('EC2NodeClass'), nodeOverlays: list('NodeOverlay'), nodeClaims: list('NodeClaim'),
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

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
import { DIGEST_ANNOTATION, VALUES_DIGEST_ANNOTATION } from '../../src/gate/spec';
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

type Conditioned = KubeObject & { status?: { conditions?: { type: string; status: string; observedGeneration?: number }[]; observedGeneration?: number; replicas?: number; updatedReplicas?: number; availableReplicas?: number } };

// replaced by src/gate's assess() when it lands
/**
 * Whether Karpenter has finished with the revision `spec` describes, in this snapshot: the
 * controller Deployment runs `spec.controller.chart` with `valuesDigest`, rolled out and
 * available; every listed NodePool, EC2NodeClass and NodeOverlay carries its digest, Karpenter
 * observed its generation (`Ready` True at `observedGeneration` = `metadata.generation`) and
 * wrote its hash annotations; every NodeClaim of the NodePools carries its NodePool's and
 * EC2NodeClass's current hash (when the hash versions match) and none is `Drifted`.
 */
export function assess(snapshot: GateSnapshot, spec: GateSpec): GateVerdict {
  const waiting: string[] = [];
  const d = snapshot.deployment as Conditioned | undefined;
  const c = spec.controller;
  if (!d) waiting.push(`deployment ${c.namespace}/${c.deployment}: not found`);
  else {
    const chart = d.metadata.labels?.['helm.sh/chart'];
    const podAnnotations = ((d.spec as { template?: { metadata?: { annotations?: Record<string, string> } } }).template?.metadata?.annotations) ?? {};
    const replicas = (d.spec as { replicas?: number }).replicas ?? 1;
    const s = d.status ?? {};
    if (chart !== c.chart) waiting.push(`deployment ${c.deployment}: chart ${chart}, not ${c.chart}`);
    if (podAnnotations[VALUES_DIGEST_ANNOTATION] !== c.valuesDigest) waiting.push(`deployment ${c.deployment}: values ${podAnnotations[VALUES_DIGEST_ANNOTATION]}, not ${c.valuesDigest}`);
    const rolledOut = (s.observedGeneration ?? 0) >= (d.metadata.generation as number) && s.updatedReplicas === replicas && s.replicas === replicas && (s.availableReplicas ?? 0) >= replicas;
    if (!rolledOut) waiting.push(`deployment ${c.deployment}: not rolled out and available`);
  }
  const byName = (objects: readonly KubeObject[]) => new Map(objects.map((o) => [o.metadata.name, o as Conditioned]));
  const pools = byName(snapshot.nodePools);
  const classes = byName(snapshot.nodeClasses);
  const overlays = byName(snapshot.nodeOverlays);
  const hashes: Record<string, readonly string[]> = { NodePool: ['karpenter.sh/nodepool-hash', 'karpenter.sh/nodepool-hash-version'], EC2NodeClass: ['karpenter.k8s.aws/ec2nodeclass-hash', 'karpenter.k8s.aws/ec2nodeclass-hash-version'], NodeOverlay: [] };
  const check = (kind: string, listed: readonly { name: string; digest: string }[], live: Map<string, Conditioned>) => {
    for (const { name, digest } of listed) {
      const o = live.get(name);
      if (!o) { waiting.push(`${kind} ${name}: not found`); continue; }
      const annotations = o.metadata.annotations ?? {};
      if (annotations[DIGEST_ANNOTATION] !== digest) waiting.push(`${kind} ${name}: digest ${annotations[DIGEST_ANNOTATION]}, not ${digest}`);
      const ready = (o.status?.conditions ?? []).find((x) => x.type === 'Ready');
      if (!ready || ready.status !== 'True' || ready.observedGeneration !== o.metadata.generation) waiting.push(`${kind} ${name}: Ready not True at generation ${o.metadata.generation as number}`);
      for (const h of hashes[kind]) if (annotations[h] === undefined) waiting.push(`${kind} ${name}: no ${h}`);
    }
  };
  check('NodePool', spec.nodePools, pools);
  check('EC2NodeClass', spec.nodeClasses, classes);
  check('NodeOverlay', spec.nodeOverlays, overlays);
  const poolNames = new Set(spec.nodePools.map((p) => p.name));
  for (const nc of snapshot.nodeClaims as Conditioned[]) {
    const pool = pools.get(nc.metadata.labels?.['karpenter.sh/nodepool'] ?? '');
    if (!pool || !poolNames.has(pool.metadata.name)) continue;
    const a = nc.metadata.annotations ?? {};
    const p = pool.metadata.annotations ?? {};
    if (a['karpenter.sh/nodepool-hash-version'] === p['karpenter.sh/nodepool-hash-version'] && a['karpenter.sh/nodepool-hash'] !== p['karpenter.sh/nodepool-hash']) waiting.push(`NodeClaim ${nc.metadata.name}: not at NodePool ${pool.metadata.name}'s hash`);
    const nodeClass = classes.get((nc.spec as { nodeClassRef?: { name?: string } }).nodeClassRef?.name ?? '');
    const k = nodeClass?.metadata.annotations ?? {};
    if (nodeClass && a['karpenter.k8s.aws/ec2nodeclass-hash-version'] === k['karpenter.k8s.aws/ec2nodeclass-hash-version'] && a['karpenter.k8s.aws/ec2nodeclass-hash'] !== k['karpenter.k8s.aws/ec2nodeclass-hash']) waiting.push(`NodeClaim ${nc.metadata.name}: not at EC2NodeClass ${nodeClass.metadata.name}'s hash`);
    if ((nc.status?.conditions ?? []).some((x) => x.type === 'Drifted' && x.status === 'True')) waiting.push(`NodeClaim ${nc.metadata.name}: Drifted`);
  }
  return { done: waiting.length === 0, waiting };
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
    const reads: [verb: string, group: string, resource: string, namespace?: string, name?: string][] = [
      ['get', 'apps', 'deployments', spec.controller.namespace, spec.controller.deployment],
      ['list', 'karpenter.sh', 'nodepools'], ['list', 'karpenter.k8s.aws', 'ec2nodeclasses'],
      ['list', 'karpenter.sh', 'nodeoverlays'], ['list', 'karpenter.sh', 'nodeclaims'],
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

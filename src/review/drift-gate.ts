/**
 * The drift gate's Job in review (docs/windows.md): a Job's template cannot change, so a gate
 * that waits for something else is a new Job with a new name; the review pairs the old and the
 * new one of a cluster and says what changed between them.
 */
import { obj } from './body';
import type { ReviewContext } from './context';
import { Body, labelsOf, Resource } from './tree';

/** What a reviewer reads for each field of the gate's `GATE` spec that changed. */
const GATE_FIELDS: Readonly<Record<string, string>> = {
  controller: 'the controller it waits for',
  nodePools: 'the NodePools',
  nodeClasses: 'the EC2NodeClasses',
  nodeOverlays: 'the NodeOverlays',
  settleSeconds: 'how long it settles',
  pollSeconds: 'how often it looks',
};

/** The drift gate's Job of a cluster a later stage waits for (docs/windows.md). */
export function isDriftGate(r: Resource): boolean {
  return r.kind === 'Job' && labelsOf(r.body)['app.kubernetes.io/component'] === 'drift-gate';
}

/**
 * A new gate Job: a new name is a new gate, because it is named by everything in it. Argo CD
 * prunes the old one and creates it at once (its own Application, in the root's last wave: no
 * sync waits for it); it touches no node, and the next stage is promoted once it has seen
 * Karpenter finish with the revision.
 */
export function driftGateAdditionWhy(r: Resource, context: ReviewContext): string {
  const old = counterpartGate(r, context.before, context.after);
  const what = 'it touches no node and no sync waits for it; the next stage is promoted once it sees Karpenter finish with this revision';
  if (!old) return `a drift gate for cluster ${r.cluster}: ${what}`;
  const [a, b] = [gateOf(old), gateOf(r)];
  const changed = [
    a.image !== b.image ? `image ${a.image} -> ${b.image}` : undefined,
    ...Object.keys(GATE_FIELDS).filter((k) => JSON.stringify(a.spec[k]) !== JSON.stringify(b.spec[k])).map((k) => GATE_FIELDS[k]),
  ].filter((x): x is string => x !== undefined);
  return `replaces drift gate ${old.name} of cluster ${r.cluster} (${changed.join(', ') || 'its program'} changed): a new Job, never an edit of the old one (a Job's template cannot change); ${what}`;
}

/** A gate Job removed: replaced by the new one of its cluster, or the cluster gates no later stage. */
export function driftGateRemovalWhy(r: Resource, context: ReviewContext): string {
  const next = counterpartGate(r, context.after, context.before);
  return next ? `replaced by drift gate ${next.name} (see there): no node is touched` : `cluster ${r.cluster} no longer gates a later stage: no node is touched`;
}

/** A gate Job's image and what it waits for (its `GATE` environment variable). */
function gateOf(r: Resource): { image: string; spec: Record<string, unknown> } {
  const container = ((obj(obj(obj(r.body.spec).template).spec).containers as Body[] | undefined) ?? [])[0] ?? {};
  const env = ((container.env as { name: string; value?: string }[] | undefined) ?? []).find((e) => e.name === 'GATE');
  let spec: Record<string, unknown> = {};
  try {
    spec = JSON.parse(env?.value ?? '{}') as Record<string, unknown>;
  } catch {
    // A hand-edited gate: nothing to compare but its image.
  }
  return { image: String(container.image ?? ''), spec };
}

/** The other side's gate Job of the same cluster, when the change replaces one gate by another. */
function counterpartGate(r: Resource, side: ReadonlyMap<string, Resource>, other: ReadonlyMap<string, Resource>): Resource | undefined {
  return [...side.values()].find((x) => isDriftGate(x) && x.cluster === r.cluster && x.key !== r.key && !other.has(x.key));
}

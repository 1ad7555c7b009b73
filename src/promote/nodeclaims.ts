import { z } from 'zod';
import { nodeClaimFacts } from '../gate/assess';

/**
 * How far a cluster's nodes are replaced, from its NodeClaims (`kubectl get
 * nodeclaims.karpenter.sh -o json`), read as the drift gate reads them (gate/assess.ts
 * nodeClaimFacts): the NodePool of a NodeClaim is its label `karpenter.sh/nodepool`, and it is
 * drifted when its condition `Drifted` is `True`.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/nodeclaim/disruption/drift.go#L76-L82 (Drifted set True with the reason)
 */

/** Drifted and total NodeClaims of one NodePool. */
export interface PoolDrift {
  readonly pool: string;
  readonly drifted: number;
  readonly total: number;
}

/** Drifted and total NodeClaims of a cluster, and per NodePool (sorted by name). */
export interface DriftCount {
  readonly drifted: number;
  readonly total: number;
  readonly pools: readonly PoolDrift[];
}

const nodeClaim = z.object({
  metadata: z.object({
    name: z.string().optional(),
    deletionTimestamp: z.string().nullable().optional(),
    labels: z.record(z.string(), z.string()).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
  }).optional(),
  status: z.object({
    conditions: z.array(z.object({ type: z.string().optional(), status: z.string().optional(), reason: z.string().optional() })).nullable().optional(),
  }).optional(),
});

const nodeClaimList = z.object({ items: z.array(nodeClaim) });

/** The drift of one file of NodeClaims, or a problem naming the file, the item and the field. */
export function parseNodeClaims(from: string, json: unknown): { readonly drift?: DriftCount; readonly problems: readonly string[] } {
  const parsed = nodeClaimList.safeParse(json);
  if (!parsed.success) {
    return { problems: parsed.error.issues.map((i) => `${from}: ${i.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '') || '(the file)'}: ${i.message.toLowerCase()} (give kubectl get nodeclaims.karpenter.sh -o json)`) };
  }
  const pools = new Map<string, { drifted: number; total: number }>();
  for (const claim of parsed.data.items) {
    const { deletionTimestamp, ...meta } = claim.metadata ?? {};
    const facts = nodeClaimFacts({ metadata: { ...meta, ...(deletionTimestamp ? { deletionTimestamp } : {}) }, status: { conditions: claim.status?.conditions ?? [] } });
    const pool = facts.pool ?? '(no NodePool label)';
    const count = pools.get(pool) ?? { drifted: 0, total: 0 };
    pools.set(pool, { drifted: count.drifted + (facts.drifted ? 1 : 0), total: count.total + 1 });
  }
  const list = [...pools].map(([pool, c]) => ({ pool, ...c })).sort((a, b) => (a.pool < b.pool ? -1 : 1));
  return { drift: { drifted: list.reduce((n, p) => n + p.drifted, 0), total: list.reduce((n, p) => n + p.total, 0), pools: list }, problems: [] };
}

/** `12 of 40 nodes drifted: web 10/30, batch 2/10` (pools with a drifted node first, at most `max`). */
export function driftText(drift: DriftCount, max = 4): string {
  const pools = [...drift.pools].sort((a, b) => b.drifted - a.drifted || (a.pool < b.pool ? -1 : 1));
  const shown = pools.slice(0, max).map((p) => `${p.pool} ${p.drifted}/${p.total}`);
  const more = pools.length > max ? `, … and ${pools.length - max} more pools` : '';
  return `${drift.drifted} of ${drift.total} node${drift.total === 1 ? '' : 's'} drifted${shown.length ? `: ${shown.join(', ')}${more}` : ''}`;
}

/**
 * NodeOverlay semantics over the catalog: which instance types an overlay applies to, the
 * price and capacity Karpenter then sees for each type, and the equal-weight overlays that
 * conflict (Karpenter then applies neither of them to the type).
 *
 * Per type, overlays are taken by weight, highest first; the first that sets a price (or
 * priceAdjustment) sets the price, and for each extended resource the first that sets it
 * sets its capacity. Two overlays of the same weight that would both set the price of one
 * type (or the same capacity resource of it) conflict: Karpenter marks them not Ready and
 * applies neither.
 * @see https://karpenter.sh/docs/concepts/nodeoverlays/
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/nodeoverlay/controller.go
 */
import type { InstanceType } from './catalog';
import type { Matcher, MatchResult } from './match';
import type { NodeSelectorRequirement } from './requirements';
import { Quantity } from '../quantity/quantity';
import { inCatalogUnits } from '../quantity/resource-units';

/** A NodeOverlay's spec, as the config resolved it. */
export interface NodeOverlaySpec {
  /** The object's name. */
  readonly name: string;
  readonly requirements: readonly NodeSelectorRequirement[];
  /** A fixed on-demand price per hour, `"0.12"`. @default - the type's own */
  readonly price?: string;
  /** `"-28%"`, `"+10%"`, `"-0.05"`, `"+1.2"`. @default - the type's own price */
  readonly priceAdjustment?: string;
  /** Extended resources added to the types' capacity (`example.com/gpu-slice: "4"`). @default {} */
  readonly capacity?: Readonly<Record<string, string>>;
  /** Higher applies first; Karpenter reads no weight as 0. @default - 0 */
  readonly weight?: number;
}

/** The pattern of the NodeOverlay CRD's `spec.price`. */
export const OVERLAY_PRICE = /^\d+(\.\d+)?$/;
/** The pattern of the NodeOverlay CRD's `spec.priceAdjustment`. */
export const OVERLAY_PRICE_ADJUSTMENT = /^(([+-]{1}(\d*\.?\d+))|(\+{1}\d*\.?\d+%)|(^(-\d{1,2}(\.\d+)?%)$)|(-100%))$/;

/** A price after an overlay's `price` or `priceAdjustment`; never below 0. */
export function overlaidPrice(price: number, overlay: Pick<NodeOverlaySpec, 'price' | 'priceAdjustment'>): number {
  if (overlay.price !== undefined) return Number(overlay.price);
  const adj = overlay.priceAdjustment;
  if (adj === undefined) return price;
  const adjusted = adj.endsWith('%') ? price * (1 + Number(adj.slice(0, -1)) / 100) : price + Number(adj);
  return Math.max(0, adjusted);
}

/** Whether the overlay sets a price. */
function prices(o: NodeOverlaySpec): boolean {
  return o.price !== undefined || o.priceAdjustment !== undefined;
}

/** The names of the types each overlay applies to (requirements on labels no type carries, such as nodepool, filter nothing here). */
function appliesTo(overlays: readonly NodeOverlaySpec[], matcher: Matcher): Map<string, Set<string>> {
  return new Map(overlays.map((o) => [o.name, new Set(matcher.match(o.requirements).admitted.map((t) => t.name))]));
}

/**
 * The types as Karpenter sees them under the overlays: price replaced or adjusted, extended
 * resources added to allocatable (in the catalog's units). Types no overlay touches are returned as they are.
 */
export function applyOverlays(types: readonly InstanceType[], overlays: readonly NodeOverlaySpec[], matcher: Matcher): InstanceType[] {
  if (overlays.length === 0) return [...types];
  const byWeight = [...overlays].sort((a, b) => (b.weight ?? 0) - (a.weight ?? 0));
  const applies = appliesTo(byWeight, matcher);
  return types.map((t) => {
    const mine = byWeight.filter((o) => applies.get(o.name)?.has(t.name));
    if (mine.length === 0) return t;
    const pricing = mine.find(prices);
    const allocatable = new Map(t.allocatable);
    const set = new Set<string>();
    for (const o of mine) {
      for (const [resource, amount] of Object.entries(o.capacity ?? {})) {
        if (set.has(resource)) continue;
        set.add(resource);
        allocatable.set(resource, inCatalogUnits(resource, Quantity.of(amount), 'exact'));
      }
    }
    const price = t.price !== undefined && pricing ? overlaidPrice(t.price, pricing) : pricing?.price !== undefined ? Number(pricing.price) : t.price;
    return { ...t, allocatable, ...(price !== undefined ? { price } : {}) };
  });
}

/** {@link overlaidAdmitted}'s answers by matcher, match result and overlays. */
const overlaid = new WeakMap<Matcher, WeakMap<MatchResult, Map<string, readonly InstanceType[]>>>();

/**
 * {@link applyOverlays} over what a match result admits, computed once per matcher, result and
 * overlays (every field of them): a fleet's pools of one shape under the same overlays share the
 * answer, frozen, so no caller can change it under another. Held weakly by the matcher and the
 * result, it lives as long as they do.
 */
export function overlaidAdmitted(result: MatchResult, overlays: readonly NodeOverlaySpec[], matcher: Matcher): readonly InstanceType[] {
  let byResult = overlaid.get(matcher);
  if (!byResult) overlaid.set(matcher, byResult = new WeakMap());
  let byOverlays = byResult.get(result);
  if (!byOverlays) byResult.set(result, byOverlays = new Map());
  const key = JSON.stringify(overlays);
  let types = byOverlays.get(key);
  if (!types) byOverlays.set(key, types = Object.freeze(applyOverlays(result.admitted, overlays, matcher)));
  return types;
}

/** Two overlays of one weight that would both set the same thing of the same instance type. */
export interface OverlayConflict {
  readonly first: string;
  readonly second: string;
  /** `price`, or `capacity <resource>`. */
  readonly what: string;
  /** One instance type both apply to, for the message. */
  readonly example: string;
  readonly types: number;
}

/** The conflicting pairs among `overlays`, over `types`, in the order of the overlays. */
export function overlayConflicts(overlays: readonly NodeOverlaySpec[], matcher: Matcher): OverlayConflict[] {
  const applies = appliesTo(overlays, matcher);
  const out: OverlayConflict[] = [];
  overlays.forEach((a, i) => {
    for (const b of overlays.slice(i + 1)) {
      if ((a.weight ?? 0) !== (b.weight ?? 0)) continue;
      const both = [...(applies.get(a.name) ?? [])].filter((n) => applies.get(b.name)?.has(n));
      if (both.length === 0) continue;
      const what = [
        ...(prices(a) && prices(b) ? ['price'] : []),
        ...Object.keys(a.capacity ?? {}).filter((r) => Object.hasOwn(b.capacity ?? {}, r)).map((r) => `capacity ${r}`),
      ];
      for (const w of what) out.push({ first: a.name, second: b.name, what: w, example: both[0], types: both.length });
    }
  });
  return out;
}

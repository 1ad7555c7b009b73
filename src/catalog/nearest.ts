/**
 * Which real value a value no instance type has most likely meant, ranked by the catalog's own
 * attributes. First the values fewest typing edits away (a letter changed, added, dropped, or
 * two swapped); among those, the ones most like the values written beside it: in
 * `instanceFamilies: [m7l, c7i]` the families one edit from `m7l` are m7a, m7g and m7i, and
 * only m7i shares c7i's generation (7), suffix ("i") and cpu maker (intel), so m7i it is.
 * The attributes are read from the instance types' labels, never parsed from names: a family's
 * generation and category are its types' labels, and its suffix is what the family name adds
 * to them (`m7i-flex` is category m, generation 7, suffix "i-flex").
 * @see https://karpenter.sh/docs/reference/instance-types/ (the labels each instance type carries)
 * @see "Amazon EC2 instance type naming conventions" in the Amazon EC2 Instance Types guide (a family is its
 *   category, generation, processor family and capabilities; `c6i.large` is family c6i), as the EC2 API reference names it
 *   (PerformanceFactorReference.InstanceFamily)
 */
import type { InstanceType } from './catalog';

const FAMILY = 'karpenter.k8s.aws/instance-family';
const CATEGORY = 'karpenter.k8s.aws/instance-category';
const GENERATION = 'karpenter.k8s.aws/instance-generation';

/** An attribute two values can share, read from each instance type, and how a reader calls its value. */
interface Attribute {
  /** The label it is, if one: a value of that key shares it with no other value. @default - derived from labels */
  readonly label?: string;
  readonly of: (t: InstanceType) => string | undefined;
  readonly say: (value: string) => string;
}

/** The family name past its category and generation (`i` of m7i, `gd` of r8gd, empty for m5). */
function suffixOf(t: InstanceType): string | undefined {
  const [family, category, generation] = [t.labels.get(FAMILY), t.labels.get(CATEGORY), t.labels.get(GENERATION)];
  if (family === undefined || category === undefined || generation === undefined) return undefined;
  return family.startsWith(`${category}${generation}`) ? family.slice(category.length + generation.length) : undefined;
}

/**
 * What makes two values alike, in the order a reader weighs them: generation, suffix (the
 * processor and capabilities: i Intel, a AMD, g Graviton, d local NVMe, n network ...) and cpu
 * maker for families; family and size for instance types.
 */
const ATTRIBUTES: readonly Attribute[] = [
  labelled(GENERATION, (v) => `generation ${v}`),
  { of: suffixOf, say: (v) => (v === '' ? 'no suffix' : `suffix "${v}"`) },
  labelled('karpenter.k8s.aws/instance-cpu-manufacturer', (v) => `${v} cpu`),
  labelled(FAMILY, (v) => `family ${v}`),
  labelled('karpenter.k8s.aws/instance-size', (v) => `size ${v}`),
];

function labelled(label: string, say: (value: string) => string): Attribute {
  return { label, of: (t) => t.labels.get(label), say };
}

/** The values of a key a typo most likely meant. */
export interface Nearest {
  /** The likeliest, best first; several when nothing tells them apart. Empty when the key has no values. */
  readonly best: readonly string[];
  /** The value beside it that decided, and what the best shares with it. @default - no sibling decided */
  readonly like?: { readonly sibling: string; readonly shared: readonly string[] };
  /** Values as few edits away that the siblings ranked lower. */
  readonly alsoClose: readonly string[];
}

/** Ranks the values of each key against a set of instance types; each key's attributes are read once. */
export class NearestValues {
  private readonly profiles = new Map<string, ReadonlyMap<string, readonly (string | undefined)[]>>();

  public constructor(private readonly types: readonly InstanceType[]) {}

  /**
   * The values of `known` that `value` most likely meant, given `siblings` (the other values of
   * its requirement, each one some instance type has).
   */
  public rank(key: string, value: string, known: readonly string[], siblings: readonly string[]): Nearest {
    if (known.length === 0) return { best: [], alsoClose: [] };
    const given = value.toLowerCase();
    const distances = known.map((k) => editDistance(given, k.toLowerCase()));
    const least = Math.min(...distances);
    const close = known.filter((_, i) => distances[i] === least);
    const profiles = this.profilesOf(key);
    const likeness = close.map((c) => {
      let best: { sibling: string; shared: number[] } | undefined;
      // A value is not like itself: a typo of a listed value (c7ii beside c7i) is told by its closeness alone.
      for (const s of siblings.filter((x) => x !== c)) {
        const shared = sharedAttributes(key, profiles.get(c), profiles.get(s));
        if (!best || shared.length > best.shared.length) best = { sibling: s, shared };
      }
      return best ?? { sibling: '', shared: [] };
    });
    const top = Math.max(...likeness.map((l) => l.shared.length));
    const best = close.filter((_, i) => likeness[i].shared.length === top);
    const decided = best.length === 1 && close.length > 1 && top > 0;
    const winner = likeness[close.indexOf(best[0])];
    const profile = profiles.get(best[0]);
    return {
      best,
      ...(decided ? { like: { sibling: winner.sibling, shared: winner.shared.map((a) => ATTRIBUTES[a].say(profile?.[a] ?? '')) } } : {}),
      alsoClose: close.filter((c) => !best.includes(c)),
    };
  }

  /** Per value of `key`, each attribute all the types with that value share (undefined where they differ). */
  private profilesOf(key: string): ReadonlyMap<string, readonly (string | undefined)[]> {
    let profiles = this.profiles.get(key);
    if (!profiles) {
      const seen = new Map<string, (string | undefined)[]>();
      for (const t of this.types) {
        const v = t.labels.get(key);
        if (v === undefined) continue;
        const mine = ATTRIBUTES.map((a) => a.of(t));
        const so = seen.get(v);
        if (!so) seen.set(v, mine);
        else mine.forEach((m, i) => { if (so[i] !== m) so[i] = undefined; });
      }
      this.profiles.set(key, profiles = seen);
    }
    return profiles;
  }
}

/** The indexes of the attributes two values of `key` share (not `key` itself: two values never share it). */
function sharedAttributes(key: string, a: readonly (string | undefined)[] | undefined, b: readonly (string | undefined)[] | undefined): number[] {
  if (!a || !b) return [];
  return ATTRIBUTES.flatMap((attribute, i) => (attribute.label !== key && a[i] !== undefined && a[i] === b[i] ? [i] : []));
}

/**
 * Edits from `a` to `b`: a character changed, added or dropped, or two neighbours swapped
 * (`r8dg` is one edit from `r8gd`), each counting one (the optimal string alignment distance).
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

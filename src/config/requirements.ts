import type { PoolSettings, SourcedRequirement } from './platform';
import { normalizeKey } from '../catalog/requirements';

type Bounds = { readonly gt?: number; readonly gte?: number; readonly lt?: number; readonly lte?: number };
type ListField = 'arch' | 'capacityTypes' | 'instanceTypes' | 'instanceFamilies' | 'instanceCategories' | 'zones';
type BoundsField = 'instanceGeneration' | 'instanceCpu' | 'instanceMemoryMiB';

/**
 * The one table of pool fields that set a requirement, in the order the NodePool lists
 * them: the label each sets, and whether it is a list (`In`) or integer bounds
 * (`Gt`/`Gte`/`Lt`/`Lte`). Both the NodePool's requirements and the check that a
 * `requirements` entry does not repeat a field read it.
 */
export const REQUIREMENT_FIELDS: readonly ({ readonly field: ListField; readonly key: string; readonly kind: 'list' } | { readonly field: BoundsField; readonly key: string; readonly kind: 'bounds' })[] = [
  { field: 'arch', key: 'kubernetes.io/arch', kind: 'list' },
  { field: 'capacityTypes', key: 'karpenter.sh/capacity-type', kind: 'list' },
  { field: 'instanceTypes', key: 'node.kubernetes.io/instance-type', kind: 'list' },
  { field: 'instanceFamilies', key: 'karpenter.k8s.aws/instance-family', kind: 'list' },
  { field: 'instanceCategories', key: 'karpenter.k8s.aws/instance-category', kind: 'list' },
  { field: 'instanceGeneration', key: 'karpenter.k8s.aws/instance-generation', kind: 'bounds' },
  { field: 'instanceCpu', key: 'karpenter.k8s.aws/instance-cpu', kind: 'bounds' },
  { field: 'instanceMemoryMiB', key: 'karpenter.k8s.aws/instance-memory', kind: 'bounds' },
  { field: 'zones', key: 'topology.kubernetes.io/zone', kind: 'list' },
];

const FIELD_OF_KEY: ReadonlyMap<string, ListField | BoundsField> = new Map(REQUIREMENT_FIELDS.map((f) => [f.key, f.field]));

/** The pool field that sets the requirement on `key` (an aliased key read as Karpenter reads it), if any. */
export function fieldOfRequirementKey(key: string): ListField | BoundsField | undefined {
  return FIELD_OF_KEY.get(normalizeKey(key));
}

/**
 * The requirements of a pool's NodePool, in order: the ones its fields imply (arch and
 * capacity types always, but on an adopted pool; instance types, families, categories, bounds and zones when set),
 * then its own `requirements` as written. Each names the field it comes from, so a problem
 * about it (100 at most, none admitting an instance type) points at that field.
 */
export function poolRequirements(s: PoolSettings): SourcedRequirement[] {
  const out: SourcedRequirement[] = [];
  for (const f of REQUIREMENT_FIELDS) {
    if (f.kind === 'list') {
      const values = s[f.field];
      // An adopted pool has no built-in arch or capacity types: an empty list sets nothing.
      if (values && values.length > 0) out.push({ requirement: { key: f.key, operator: 'In', values }, field: [f.field] });
      continue;
    }
    const b: Bounds | undefined = s[f.field];
    if (!b) continue;
    for (const [op, bound, v] of [['Gt', 'gt', b.gt], ['Gte', 'gte', b.gte], ['Lt', 'lt', b.lt], ['Lte', 'lte', b.lte]] as const) {
      if (v !== undefined) out.push({ requirement: { key: f.key, operator: op, values: [String(v)] }, field: [f.field, bound] });
    }
  }
  s.requirements.forEach((requirement, i) => out.push({ requirement, field: ['requirements', i] }));
  return out;
}

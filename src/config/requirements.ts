import type { PoolSettings, SourcedRequirement } from './platform';

type Bounds = { readonly gt?: number; readonly gte?: number; readonly lt?: number; readonly lte?: number };

/**
 * The requirements of a pool's NodePool, in order: the ones its fields imply (arch and
 * capacity types always; instance types, families, categories, bounds and zones when set),
 * then its own `requirements` as written. Each names the field it comes from, so a problem
 * about it (100 at most, none admitting an instance type) points at that field.
 */
export function poolRequirements(s: PoolSettings): SourcedRequirement[] {
  const out: SourcedRequirement[] = [
    { requirement: { key: 'kubernetes.io/arch', operator: 'In', values: s.arch }, field: ['arch'] },
    { requirement: { key: 'karpenter.sh/capacity-type', operator: 'In', values: s.capacityTypes }, field: ['capacityTypes'] },
  ];
  const inList = (key: string, field: 'instanceTypes' | 'instanceFamilies' | 'instanceCategories' | 'zones') => {
    const values = s[field];
    if (values) out.push({ requirement: { key, operator: 'In', values }, field: [field] });
  };
  const bounded = (key: string, field: 'instanceGeneration' | 'instanceCpu' | 'instanceMemoryMiB') => {
    const b: Bounds | undefined = s[field];
    if (!b) return;
    for (const [op, bound, v] of [['Gt', 'gt', b.gt], ['Gte', 'gte', b.gte], ['Lt', 'lt', b.lt], ['Lte', 'lte', b.lte]] as const) {
      if (v !== undefined) out.push({ requirement: { key, operator: op, values: [String(v)] }, field: [field, bound] });
    }
  };
  inList('node.kubernetes.io/instance-type', 'instanceTypes');
  inList('karpenter.k8s.aws/instance-family', 'instanceFamilies');
  inList('karpenter.k8s.aws/instance-category', 'instanceCategories');
  bounded('karpenter.k8s.aws/instance-generation', 'instanceGeneration');
  bounded('karpenter.k8s.aws/instance-cpu', 'instanceCpu');
  bounded('karpenter.k8s.aws/instance-memory', 'instanceMemoryMiB');
  inList('topology.kubernetes.io/zone', 'zones');
  s.requirements.forEach((requirement, i) => out.push({ requirement, field: ['requirements', i] }));
  return out;
}

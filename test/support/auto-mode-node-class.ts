/**
 * A model of what the API server accepts for an EKS Auto Mode NodeClass (`eks.amazonaws.com/v1`
 * NodeClass), written from AWS's documentation, NOT from this tool's output: AWS publishes no CRD
 * for it, so each rule below is the user guide's, cited.
 * @see https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html
 *   - role: "Required: Name of IAM Role for Nodes" (a name, not an ARN)
 *   - subnetSelectorTerms, securityGroupSelectorTerms: "Required", terms by tags or id (security groups also by name)
 *   - snatPolicy: Random (default) | Disabled; networkPolicy: DefaultAllow (default) | DefaultDeny;
 *     networkPolicyEventLogs: Disabled (default) | Enabled
 *   - ephemeralStorage: size 80Gi by default (1-59000Gi, 1-64000G, 1-58Ti or 1-64T), iops 3000 (3000-16000),
 *     throughput 125 (125-1000), kmsKeyID
 *   - tags: not kubernetes.io/cluster/*, karpenter.sh/provisioner-name, karpenter.sh/nodepool,
 *     karpenter.sh/nodeclaim, karpenter.sh/managed-by, eks.amazonaws.com/nodeclass
 *   - "do not name a custom NodeClass default" (the built-in one)
 * @see https://github.com/awslabs/cdk-eks-blueprints/blob/05d3dbd0a462409bf002c989750d0de13bf83af2/lib/cluster-providers/types.ts#L161-L281 (the same fields, typed)
 */
const SPEC_FIELDS = new Set(['role', 'instanceProfile', 'subnetSelectorTerms', 'securityGroupSelectorTerms', 'podSubnetSelectorTerms', 'podSecurityGroupSelectorTerms',
  'capacityReservationSelectorTerms', 'snatPolicy', 'networkPolicy', 'networkPolicyEventLogs', 'ephemeralStorage', 'advancedNetworking', 'advancedSecurity', 'certificateBundles', 'tags']);
const RESERVED_TAG = /^(kubernetes\.io\/cluster\/|karpenter\.sh\/(provisioner-name|nodepool|nodeclaim|managed-by)$|eks\.amazonaws\.com\/nodeclass$)/;

/** What the API server would refuse in an Auto Mode NodeClass, each a sentence; [] when it takes it. */
export function autoModeNodeClassProblems(obj: { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown }; spec?: Record<string, unknown> }): string[] {
  const out: string[] = [];
  if (obj.apiVersion !== 'eks.amazonaws.com/v1' || obj.kind !== 'NodeClass') out.push('not an eks.amazonaws.com/v1 NodeClass');
  if (obj.metadata?.name === 'default') out.push('a custom NodeClass may not be named default');
  const spec = obj.spec ?? {};
  for (const key of Object.keys(spec)) if (!SPEC_FIELDS.has(key)) out.push(`spec.${key}: unknown field`);
  if ((spec.role === undefined) === (spec.instanceProfile === undefined)) out.push('spec: give role or instanceProfile');
  if (typeof spec.role === 'string' && spec.role.startsWith('arn:')) out.push('spec.role: a role name, not an ARN');
  for (const terms of ['subnetSelectorTerms', 'securityGroupSelectorTerms']) {
    const list = spec[terms];
    if (!Array.isArray(list) || list.length === 0) out.push(`spec.${terms}: required`);
    else for (const t of list as Record<string, unknown>[]) if (Object.keys(t).length === 0 || Object.keys(t).some((k) => !['tags', 'id', ...(terms === 'securityGroupSelectorTerms' ? ['name'] : [])].includes(k))) out.push(`spec.${terms}: a term is tags, id${terms === 'securityGroupSelectorTerms' ? ' or name' : ''}`);
  }
  const oneOf = (field: string, values: readonly string[]) => {
    if (spec[field] !== undefined && !values.includes(String(spec[field]))) out.push(`spec.${field}: one of ${values.join(', ')}`);
  };
  oneOf('snatPolicy', ['Random', 'Disabled']);
  oneOf('networkPolicy', ['DefaultAllow', 'DefaultDeny']);
  oneOf('networkPolicyEventLogs', ['Disabled', 'Enabled']);
  const storage = (spec.ephemeralStorage ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(storage)) if (!['size', 'iops', 'throughput', 'kmsKeyID'].includes(key)) out.push(`spec.ephemeralStorage.${key}: unknown field`);
  if (storage.size !== undefined && !/^\d+(Gi|G|Ti|T)$/.test(String(storage.size))) out.push('spec.ephemeralStorage.size: a quantity in Gi, G, Ti or T');
  if (storage.iops !== undefined && !(Number(storage.iops) >= 3000 && Number(storage.iops) <= 16000)) out.push('spec.ephemeralStorage.iops: 3000-16000');
  if (storage.throughput !== undefined && !(Number(storage.throughput) >= 125 && Number(storage.throughput) <= 1000)) out.push('spec.ephemeralStorage.throughput: 125-1000');
  for (const key of Object.keys((spec.tags ?? {}) as object)) if (RESERVED_TAG.test(key)) out.push(`spec.tags.${key}: reserved`);
  return out;
}

/** The fields the API server fills in when they are missing (the documented defaults): a NodeClass that sets them all cannot drift under Argo CD. */
export function autoModeNodeClassDefaulted(obj: { spec?: Record<string, unknown> }): unknown {
  const spec = obj.spec ?? {};
  const storage = (spec.ephemeralStorage ?? {}) as Record<string, unknown>;
  return {
    ...obj,
    spec: {
      snatPolicy: 'Random', networkPolicy: 'DefaultAllow', networkPolicyEventLogs: 'Disabled', ...spec,
      ephemeralStorage: { size: '80Gi', iops: 3000, throughput: 125, ...storage },
    },
  };
}

import { suggest } from '../../input/issues';

// The keys Kubernetes and the Karpenter v1.14.1 CRDs accept (labels, requirements, taints,
// tags, resources): each rule as the code that checks it, and beside it the JSON Schema
// keywords that tell an editor the same (src/config/json-schema.ts).

/** A DNS subdomain, the optional prefix of a qualified name (`example.com`). */
const DNS_SUBDOMAIN = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';
/** The name part of a qualified name. */
const NAME = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
/** Label or taint key: optional DNS-subdomain prefix, then a name. */
export const QUALIFIED_NAME = new RegExp(`^(${DNS_SUBDOMAIN}(\\/))?${NAME}$`);
/** A resource name with a domain (`nvidia.com/gpu`): a qualified name whose prefix is not optional. */
export const DOMAIN_RESOURCE = `^${DNS_SUBDOMAIN}/${NAME}$`;
const HUGEPAGES = /^hugepages-[0-9]+(Ki|Mi|Gi)$/;

/** Resource names without a domain that Kubernetes and Karpenter know; others need one (`nvidia.com/gpu`). */
export const STANDARD_RESOURCES = ['cpu', 'memory', 'ephemeral-storage', 'pods', 'nodes'] as const;
/** The standard resources a container requests. */
export const CONTAINER_RESOURCES = ['cpu', 'memory', 'ephemeral-storage'] as const;

/**
 * Why a resource name is wrong, or undefined: a standard name (`cpu`, `memory`, `hugepages-2Mi`,
 * and, where `standard` allows, `pods`, `nodes`) or a domain-qualified extended resource.
 * A misspelt `cpus` would otherwise be a limit nothing ever reaches.
 */
export function resourceNameProblem(name: string, standard: readonly string[] = STANDARD_RESOURCES): string | undefined {
  if (name.includes('/')) {
    return QUALIFIED_NAME.test(name) ? undefined : `"${name}" is not a resource name: use domain/name, e.g. nvidia.com/gpu`;
  }
  if (standard.includes(name) || HUGEPAGES.test(name)) return undefined;
  const best = suggest(name, standard);
  return `unknown resource "${name}"${best ? ` (did you mean "${best}"?)` : ''} (allowed: ${standard.join(', ')}, hugepages-<size>, or domain/name such as nvidia.com/gpu)`;
}

/** {@link resourceNameProblem} for editors: the names it accepts, as one pattern. */
export function resourceNamePattern(standard: readonly string[] = STANDARD_RESOURCES): string {
  return `^(${[...standard, HUGEPAGES.source.slice(1, -1), DOMAIN_RESOURCE.slice(1, -1)].join('|')})$`;
}

/** Label keys the NodePool CRD accepts in the karpenter.k8s.aws domain. */
const AWS_WELL_KNOWN_LABELS: ReadonlySet<string> = new Set([
  'karpenter.k8s.aws/instance-tenancy', 'karpenter.k8s.aws/capacity-reservation-type',
  'karpenter.k8s.aws/capacity-reservation-id', 'karpenter.k8s.aws/capacity-reservation-interruptible',
  'karpenter.k8s.aws/ec2nodeclass', 'karpenter.k8s.aws/instance-encryption-in-transit-supported',
  'karpenter.k8s.aws/instance-category', 'karpenter.k8s.aws/instance-hypervisor',
  'karpenter.k8s.aws/instance-family', 'karpenter.k8s.aws/instance-generation',
  'karpenter.k8s.aws/instance-local-nvme', 'karpenter.k8s.aws/instance-size',
  'karpenter.k8s.aws/instance-cpu', 'karpenter.k8s.aws/instance-cpu-manufacturer',
  'karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz', 'karpenter.k8s.aws/instance-memory',
  'karpenter.k8s.aws/instance-ebs-bandwidth', 'karpenter.k8s.aws/instance-network-bandwidth',
  'karpenter.k8s.aws/instance-gpu-name', 'karpenter.k8s.aws/instance-gpu-manufacturer',
  'karpenter.k8s.aws/instance-gpu-count', 'karpenter.k8s.aws/instance-gpu-memory',
  'karpenter.k8s.aws/instance-accelerator-name', 'karpenter.k8s.aws/instance-accelerator-manufacturer',
  'karpenter.k8s.aws/instance-accelerator-count', 'karpenter.k8s.aws/instance-capability-flex',
  'karpenter.k8s.aws/placement-group-id', 'karpenter.k8s.aws/placement-group-partition',
]);

/** The domain of a key: what comes before its first `/` (all of it without one). */
const domainOf = (key: string): string => /^([^/]+)/.exec(key)?.[1] ?? '';

/** A key whose domain ({@link domainOf}) ends in `domain`, for editors. */
const inDomain = (domain: string) => ({ pattern: `^[^/]*${domain.replace(/\./g, '\\.')}(/|$)` });

/**
 * Why the NodePool CRD would reject a label or requirement key, or undefined if it accepts it.
 * Mirrors the CRD's `x-kubernetes-validations` on labels and requirement keys.
 */
export function restrictedLabelKey(key: string): string | undefined {
  const domain = domainOf(key);
  if (key === 'karpenter.sh/nodepool') return 'label "karpenter.sh/nodepool" is restricted (Karpenter sets it)';
  if (key === 'kubernetes.io/hostname') return 'label "kubernetes.io/hostname" is restricted';
  if (domain.endsWith('karpenter.sh') && key !== 'karpenter.sh/capacity-type') {
    return 'label domain "karpenter.sh" is restricted (only karpenter.sh/capacity-type may be used)';
  }
  if (domain.endsWith('karpenter.k8s.aws') && !AWS_WELL_KNOWN_LABELS.has(key)) {
    return 'label domain "karpenter.k8s.aws" is restricted to its well-known labels (see karpenter.sh/docs/reference/instance-types)';
  }
  return undefined;
}

/** {@link restrictedLabelKey} for editors. */
export const RESTRICTED_LABEL_KEY = {
  allOf: [
    { not: { enum: ['karpenter.sh/nodepool', 'kubernetes.io/hostname'] } },
    { if: inDomain('karpenter.sh'), then: { const: 'karpenter.sh/capacity-type' } },
    { if: inDomain('karpenter.k8s.aws'), then: { enum: [...AWS_WELL_KNOWN_LABELS] } },
  ],
};

/** Keys of karpenter.k8s.aws the NodeOverlay CRD accepts in requirements (fewer than the NodePool's). */
const OVERLAY_AWS_LABELS = new Set([...AWS_WELL_KNOWN_LABELS].filter((k) => !/instance-tenancy|capacity-reservation|placement-group/.test(k)));

/**
 * Why the NodeOverlay CRD would reject a requirement key, or undefined: like a NodePool's, but
 * `karpenter.sh/nodepool` is allowed (an overlay may pick pools) and fewer AWS labels are.
 */
export function restrictedOverlayKey(key: string): string | undefined {
  const domain = domainOf(key);
  if (key === 'kubernetes.io/hostname') return 'label "kubernetes.io/hostname" is restricted';
  if (domain.endsWith('karpenter.sh') && key !== 'karpenter.sh/capacity-type' && key !== 'karpenter.sh/nodepool') {
    return 'label domain "karpenter.sh" is restricted (only karpenter.sh/capacity-type and karpenter.sh/nodepool may be used)';
  }
  if (domain.endsWith('karpenter.k8s.aws') && !OVERLAY_AWS_LABELS.has(key)) {
    return 'label domain "karpenter.k8s.aws" is restricted to its well-known instance labels in a NodeOverlay';
  }
  return undefined;
}

/** {@link restrictedOverlayKey} for editors. */
export const RESTRICTED_OVERLAY_KEY = {
  allOf: [
    { not: { const: 'kubernetes.io/hostname' } },
    { if: inDomain('karpenter.sh'), then: { enum: ['karpenter.sh/capacity-type', 'karpenter.sh/nodepool'] } },
    { if: inDomain('karpenter.k8s.aws'), then: { enum: [...OVERLAY_AWS_LABELS] } },
  ],
};

/** Tag keys Karpenter sets on the instances it launches. */
const KARPENTER_TAG_KEYS = ['eks:eks-cluster-name', 'karpenter.sh/nodepool', 'karpenter.sh/nodeclaim', 'karpenter.k8s.aws/ec2nodeclass'];
const CLUSTER_TAG = /^kubernetes\.io\/cluster/;

/**
 * Why the EC2NodeClass CRD would reject a tag key, or undefined if it accepts it.
 * Mirrors the CRD's `spec.tags` validations.
 */
export function restrictedTagKey(key: string): string | undefined {
  if (key === '') return 'empty tag keys are not supported';
  if (KARPENTER_TAG_KEYS.includes(key) || CLUSTER_TAG.test(key)) return `tag key "${key}" is restricted (Karpenter sets it)`;
  return undefined;
}

/** {@link restrictedTagKey} for editors, with the tag keys `also` refused (the generator's own). */
export function restrictedTagKeyRule(also: readonly string[]): Record<string, unknown> {
  return { minLength: 1, not: { anyOf: [{ enum: [...KARPENTER_TAG_KEYS, ...also] }, { pattern: CLUSTER_TAG.source }] } };
}

/**
 * What a pod asks of a node's allocatable: its effective requests, computed the way
 * the scheduler and Karpenter do, after the API server's defaulting.
 */
import type { ResourceAmounts } from '../catalog/match';

/** A container's resources, in the catalog's units (see quantity.ts). */
export interface ContainerResources {
  /** @default {} */
  readonly requests?: ResourceAmounts;
  /** @default {} */
  readonly limits?: ResourceAmounts;
  /** `Always` makes an init container a sidecar that runs beside the containers. @default - a plain init container */
  readonly restartPolicy?: string;
}

/** The parts of a pod spec that decide its requests. */
export interface PodResources {
  readonly containers: readonly ContainerResources[];
  /** @default [] */
  readonly initContainers?: readonly ContainerResources[];
  /** Pod-level resources (`spec.resources`). @default - none */
  readonly pod?: ContainerResources;
  /** RuntimeClass overhead (`spec.overhead`). @default {} */
  readonly overhead?: ResourceAmounts;
}

/**
 * The pod's effective requests, plus `pods: 1` as Karpenter adds it:
 *
 * 1. a container (or init container) with limits but no request for a resource
 *    requests its limit (the API server's defaulting of a Pod);
 * 2. the containers' requests add up; each sidecar (an init container with
 *    `restartPolicy: Always`) adds to them too, and a plain init container needs its
 *    own requests plus those of the sidecars started before it; the pod needs the
 *    larger of the two, resource by resource (KEP-753);
 * 3. pod-level requests of cpu, memory and hugepages replace the containers' sum;
 *    pod-level limits without a request default it to the containers' requests, or
 *    to the limit when no container requests that resource (KEP-2837);
 * 4. the RuntimeClass overhead is added.
 *
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/utils/resources/resources.go (RequestsForPods, Ceiling)
 * @see https://github.com/kubernetes/component-helpers/blob/v0.35.0/resource/helpers.go (PodRequests, AggregateContainerRequests)
 * @see https://github.com/kubernetes/kubernetes/blob/v1.35.0/pkg/apis/core/v1/defaults.go (SetDefaults_Pod, defaultPodRequests)
 */
export function podRequests(spec: PodResources): Record<string, number> {
  const reqs: Record<string, number> = {};
  for (const c of spec.containers) add(reqs, effective(c));
  const sidecars: Record<string, number> = {};
  const init: Record<string, number> = {};
  for (const c of spec.initContainers ?? []) {
    const own = effective(c);
    let use: Record<string, number>;
    if (c.restartPolicy === 'Always') {
      add(reqs, own);
      add(sidecars, own);
      use = { ...sidecars };
    } else {
      use = { ...own };
      add(use, sidecars);
    }
    max(init, use);
  }
  max(reqs, init);
  for (const [resource, amount] of Object.entries(podLevelRequests(spec.pod, reqs))) reqs[resource] = amount;
  add(reqs, spec.overhead ?? {});
  reqs.pods = (reqs.pods ?? 0) + 1;
  return reqs;
}

/** Pod-level requests after defaulting, for the resources pod-level resources support. */
function podLevelRequests(pod: ContainerResources | undefined, containers: ResourceAmounts): Record<string, number> {
  const out: Record<string, number> = {};
  const supported = (r: string) => r === 'cpu' || r === 'memory' || r.startsWith('hugepages-');
  for (const [resource, amount] of Object.entries(pod?.limits ?? {})) {
    // Hugepages cannot be overcommitted: their pod-level request defaults to the limit alone.
    if (supported(resource)) out[resource] = resource.startsWith('hugepages-') ? amount : containers[resource] ?? amount;
  }
  for (const [resource, amount] of Object.entries(pod?.requests ?? {})) {
    if (supported(resource)) out[resource] = amount;
  }
  return out;
}

/** A container's requests with its limits filling the gaps. */
function effective(c: ContainerResources): Record<string, number> {
  return { ...c.limits, ...c.requests };
}

function add(into: Record<string, number>, from: ResourceAmounts): void {
  for (const [resource, amount] of Object.entries(from)) into[resource] = (into[resource] ?? 0) + amount;
}

function max(into: Record<string, number>, from: ResourceAmounts): void {
  for (const [resource, amount] of Object.entries(from)) into[resource] = Math.max(into[resource] ?? 0, amount);
}

/**
 * A Kubernetes manifest (one or more YAML documents) as the workloads whose pods
 * `fit` places: what each pod tolerates, selects and requests. Other objects are
 * kept as skipped.
 */
import { z } from 'zod';
import type { ResourceAmounts } from '../catalog/match';
import type { NodeSelectorRequirement } from '../catalog/requirements';
import { InputOptions } from '../input/input-file';
import { describeValue, zodProblems } from '../input/issues';
import { FieldPath, InputError, Problem } from '../input/problems';
import { SourceFile } from '../input/source';
import { isPlainMap, userMap } from '../input/user-map';
import { Quantity } from '../quantity/quantity';
import { inCatalogUnits } from '../quantity/resource-units';
import { ContainerResources, podRequests } from './requests';
import { daemonSetTolerations, Toleration } from './tolerations';

/** The kinds whose pods `fit` places. */
export const WORKLOAD_KINDS = ['Pod', 'Deployment', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'] as const;

/** A kind of {@link WORKLOAD_KINDS}. */
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

/** The API group of each workload kind (`""` is the core group): a `Job` of another group is someone else's kind. */
const GROUP: Readonly<Record<WorkloadKind, string>> = {
  Pod: '', Deployment: 'apps', StatefulSet: 'apps', DaemonSet: 'apps', Job: 'batch', CronJob: 'batch',
};

/** Where each kind keeps the spec of its pods. */
const POD_SPEC: Readonly<Record<WorkloadKind, FieldPath>> = {
  Pod: ['spec'],
  Deployment: ['spec', 'template', 'spec'],
  StatefulSet: ['spec', 'template', 'spec'],
  DaemonSet: ['spec', 'template', 'spec'],
  Job: ['spec', 'template', 'spec'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
};

/** Largest manifest accepted, as for platform.yaml. */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

/** One term of a required node affinity: its expressions must all hold. */
export interface NodeSelectorTerm {
  readonly matchExpressions: readonly NodeSelectorRequirement[];
  /** Requirements on node fields (`metadata.name`). @default [] */
  readonly matchFields?: readonly NodeSelectorRequirement[];
}

/** What decides where a workload's pods can run. */
export interface PodConstraints {
  /** `spec.nodeName`: the pod is bound to that node, bypassing scheduling. @default - none */
  readonly nodeName?: string;
  /** `spec.nodeSelector`. @default {} */
  readonly nodeSelector: Readonly<Record<string, string>>;
  /**
   * `requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`: one of them must hold.
   * @default - no required node affinity
   */
  readonly nodeSelectorTerms?: readonly NodeSelectorTerm[];
  /** The pod's tolerations, with those the DaemonSet controller adds to a DaemonSet's pods. */
  readonly tolerations: readonly Toleration[];
  /** Effective requests in the catalog's units, `pods: 1` included (see {@link podRequests}). */
  readonly requests: ResourceAmounts;
}

/** A Pod, or an object that makes pods from a template. */
export interface Workload {
  readonly kind: WorkloadKind;
  /** `metadata.namespace`. @default "default" */
  readonly namespace: string;
  /** `metadata.name` (or `generateName`). */
  readonly name: string;
  readonly pod: PodConstraints;
  /** A Pod whose controller (its ownerReference with `controller: true`) is an `apps/v1` DaemonSet. @default false */
  readonly ownedByDaemonSet?: boolean;
  /** The object as written (what the API server's admission, and so the tenancy policies, read). */
  readonly object: Readonly<Record<string, unknown>>;
}

/** An object of the manifest that is not a workload. */
export interface SkippedObject {
  readonly apiVersion: string;
  readonly kind: string;
  /** @default "default" */
  readonly namespace: string;
  /** @default "" */
  readonly name: string;
}

/** The objects of a manifest, in file order. */
export interface Manifest {
  readonly workloads: readonly Workload[];
  readonly skipped: readonly SkippedObject[];
}

/**
 * Reads a manifest file. It is held to the rules of the config files (a regular
 * UTF-8 file of plain YAML data, at most {@link MAX_MANIFEST_BYTES}) but may be
 * anywhere: the user names it. Throws an {@link InputError} with every problem
 * found: unreadable, invalid YAML, or a field `fit` reads that the API server would reject.
 */
export function readManifest(path: string, displayPath: string): Manifest {
  const options: InputOptions = { maxBytes: MAX_MANIFEST_BYTES };
  const { manifest, problems } = manifestOf(SourceFile.readDocuments(path, options, displayPath));
  if (problems.length) throw new InputError(problems);
  return manifest;
}

/** The workloads and skipped objects of parsed documents, and the problems found in them. */
export function manifestOf(documents: readonly SourceFile[]): { manifest: Manifest; problems: Problem[] } {
  const workloads: Workload[] = [];
  const skipped: SkippedObject[] = [];
  const problems: Problem[] = documents.flatMap((d) => d.problems);
  for (const source of documents) {
    if (source.problems.length === 0) readObject(source, source.value, [], { workloads, skipped, problems });
  }
  return { manifest: { workloads, skipped }, problems };
}

// --- what is read, and checked as the API server would --------------------------------

const quantity = z.unknown().transform((input, ctx): Quantity => {
  if (typeof input !== 'string' && typeof input !== 'number') {
    ctx.issues.push({ code: 'custom', input, message: `expected a quantity such as 500m, 2 or 1Gi, got ${describeValue(input)}` });
    return z.NEVER;
  }
  const parsed = Quantity.parse(input);
  const problem = typeof parsed === 'string' ? parsed
    : parsed.negative ? `${JSON.stringify(String(input))} is negative: requests and limits are at least 0` : undefined;
  if (problem !== undefined || typeof parsed === 'string') {
    ctx.issues.push({ code: 'custom', input, message: problem ?? '' });
    return z.NEVER;
  }
  return parsed;
});

const resourceList = userMap(z.string().min(1), quantity);
const resourceRequirements = z.looseObject({ requests: resourceList.nullish(), limits: resourceList.nullish() });
const container = z.looseObject({ resources: resourceRequirements.nullish(), restartPolicy: z.string().nullish() });

/** @see https://github.com/kubernetes/kubernetes/blob/v1.35.0/pkg/apis/core/validation/validation.go (validateTolerations) */
const toleration = z.looseObject({
  key: z.string().nullish(),
  operator: z.enum(['', 'Exists', 'Equal', 'Lt', 'Gt']).nullish(),
  value: z.string().nullish(),
  effect: z.enum(['', 'NoSchedule', 'PreferNoSchedule', 'NoExecute']).nullish(),
}).superRefine((t, ctx) => {
  if (!t.key && t.operator !== 'Exists') ctx.addIssue({ code: 'custom', path: ['operator'], message: 'a toleration without a key must use operator Exists' });
  if (t.operator === 'Exists' && t.value) ctx.addIssue({ code: 'custom', path: ['value'], message: 'a toleration with operator Exists takes no value' });
});

/** @see https://github.com/kubernetes/kubernetes/blob/v1.35.0/pkg/apis/core/validation/validation.go (validateNodeSelectorRequirement) */
const nodeSelectorRequirement = z.looseObject({
  key: z.string().min(1),
  operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt']),
  values: z.array(z.string()).nullish(),
}).superRefine((r, ctx) => {
  const n = r.values?.length ?? 0;
  if ((r.operator === 'In' || r.operator === 'NotIn') && n === 0) ctx.addIssue({ code: 'custom', path: ['values'], message: `operator ${r.operator} needs at least one value` });
  if ((r.operator === 'Exists' || r.operator === 'DoesNotExist') && n > 0) ctx.addIssue({ code: 'custom', path: ['values'], message: `operator ${r.operator} takes no values` });
  if ((r.operator === 'Gt' || r.operator === 'Lt') && (n !== 1 || !/^-?[0-9]+$/.test(r.values?.[0] ?? ''))) {
    ctx.addIssue({ code: 'custom', path: ['values'], message: `operator ${r.operator} needs exactly one integer value` });
  }
});

const nodeSelectorTerm = z.looseObject({ matchExpressions: z.array(nodeSelectorRequirement).nullish(), matchFields: z.array(nodeSelectorRequirement).nullish() });

const podSpec = z.looseObject({
  nodeName: z.string().nullish(),
  hostNetwork: z.boolean().nullish(),
  nodeSelector: userMap(z.string().min(1), z.string()).nullish(),
  tolerations: z.array(toleration).nullish(),
  affinity: z.looseObject({
    nodeAffinity: z.looseObject({
      requiredDuringSchedulingIgnoredDuringExecution: z.looseObject({ nodeSelectorTerms: z.array(nodeSelectorTerm) }).nullish(),
    }).nullish(),
  }).nullish(),
  containers: z.array(container).min(1),
  initContainers: z.array(container).nullish(),
  overhead: resourceList.nullish(),
  resources: resourceRequirements.nullish(),
});

const object = z.looseObject({
  apiVersion: z.string().min(1),
  kind: z.string().min(1),
  metadata: z.looseObject({
    name: z.string().nullish(),
    generateName: z.string().nullish(),
    namespace: z.string().nullish(),
    ownerReferences: z.array(z.looseObject({ apiVersion: z.unknown(), kind: z.unknown(), controller: z.unknown() })).nullish(),
  }).nullish(),
  items: z.array(z.unknown()).nullish(),
});

/** What reading a manifest collects. */
interface Found {
  readonly workloads: Workload[];
  readonly skipped: SkippedObject[];
  readonly problems: Problem[];
}

/** Reads one object (at `at` in the document): a List's items one by one, a workload, or a skipped object. */
function readObject(source: SourceFile, data: unknown, at: FieldPath, found: Found): void {
  const { workloads, skipped, problems } = found;
  const value = valueAt(data, at);
  if (!isPlainMap(value)) {
    problems.push(source.problem(at, `expected a Kubernetes object (a map with apiVersion and kind), got ${describeValue(value)}`));
    return;
  }
  const parsed = object.safeParse(value);
  if (!parsed.success) {
    problems.push(...located(source, data, at, parsed.error.issues));
    return;
  }
  const { apiVersion, kind, metadata, items } = parsed.data;
  if (kind.endsWith('List') && Array.isArray(items)) {
    items.forEach((_, i) => readObject(source, data, [...at, 'items', i], found));
    return;
  }
  const namespace = metadata?.namespace || 'default';
  const name = metadata?.name || metadata?.generateName || '';
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const workloadKind = WORKLOAD_KINDS.find((k) => k === kind && GROUP[k] === group);
  if (!workloadKind) {
    skipped.push({ apiVersion, kind, namespace, name });
    return;
  }
  if (!name) {
    problems.push(source.problem([...at, 'metadata', 'name'], 'required field is missing (expected a string)'));
    return;
  }
  const pod = readPod(source, data, [...at, ...POD_SPEC[workloadKind]], workloadKind === 'DaemonSet', problems);
  const ownedByDaemonSet = workloadKind === 'Pod'
    && (metadata?.ownerReferences ?? []).some((r) => r.apiVersion === 'apps/v1' && r.kind === 'DaemonSet' && r.controller === true);
  if (pod) workloads.push({ kind: workloadKind, namespace, name, pod, ...(ownedByDaemonSet ? { ownedByDaemonSet } : {}), object: isPlainMap(data) ? { ...data, metadata: { ...metadata, namespace } } : {} });
}

/** The constraints of the pod spec at `at`, or undefined after adding its problems. */
function readPod(source: SourceFile, data: unknown, at: FieldPath, daemonSet: boolean, problems: Problem[]): PodConstraints | undefined {
  const value = valueAt(data, at);
  if (!isPlainMap(value)) {
    problems.push(source.problem(at, value === undefined ? 'required field is missing (expected the pod spec, a map)' : `expected the pod spec (a map), got ${describeValue(value)}`));
    return undefined;
  }
  const parsed = podSpec.safeParse(value);
  if (!parsed.success) {
    problems.push(...located(source, data, at, parsed.error.issues));
    return undefined;
  }
  const spec = parsed.data;
  const resources = (r: z.output<typeof container>): ContainerResources => ({
    requests: amounts(r.resources?.requests), limits: amounts(r.resources?.limits), restartPolicy: r.restartPolicy ?? undefined,
  });
  const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  const requirement = (e: z.output<typeof nodeSelectorRequirement>): NodeSelectorRequirement => ({ key: e.key, operator: e.operator, values: e.values ?? [] });
  const terms = required?.nodeSelectorTerms.map((t): NodeSelectorTerm => ({
    matchExpressions: (t.matchExpressions ?? []).map(requirement),
    matchFields: (t.matchFields ?? []).map(requirement),
  }));
  const tolerations: Toleration[] = (spec.tolerations ?? []).map((t) => ({
    key: t.key ?? '', operator: t.operator ?? '', value: t.value ?? '', effect: t.effect ?? '',
  }));
  return {
    ...(spec.nodeName ? { nodeName: spec.nodeName } : {}),
    nodeSelector: { ...spec.nodeSelector },
    // An empty list is no required affinity (the API server rejects it; Karpenter ignores it).
    ...(terms && terms.length > 0 ? { nodeSelectorTerms: terms } : {}),
    tolerations: daemonSet ? [...tolerations, ...daemonSetTolerations(spec.hostNetwork ?? false)] : tolerations,
    requests: podRequests({
      containers: spec.containers.map(resources),
      initContainers: (spec.initContainers ?? []).map(resources),
      pod: spec.resources ? resources({ resources: spec.resources }) : undefined,
      overhead: amounts(spec.overhead),
    }),
  };
}

/** A resource list in the catalog's units. */
function amounts(list: Readonly<Record<string, Quantity>> | null | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [resource, q] of Object.entries(list ?? {})) out[resource] = inCatalogUnits(resource, q, resource === 'cpu' ? 'up' : 'exact');
  return out;
}

/** zod issues of the value at `at`, located in the document. */
function located(source: SourceFile, data: unknown, at: FieldPath, issues: readonly z.core.$ZodIssue[]): Problem[] {
  const moved = issues.map((issue) => ({ ...issue, path: [...at, ...issue.path] }));
  return zodProblems(source, z.unknown(), data, moved as z.core.$ZodIssue[]);
}

function valueAt(data: unknown, path: FieldPath): unknown {
  let v = data;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[seg];
  }
  return v;
}



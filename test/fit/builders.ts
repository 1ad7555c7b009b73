/**
 * Small builders for the fit tests: workloads as plain objects (written to YAML the way
 * a manifest holds them), and their pods read back through the manifest reader.
 */
import { stringify } from 'yaml';
import { formatProblem } from '../../src/input/problems';
import { SourceFile } from '../../src/input/source';
import { catalogMatcher, Matcher } from '../../src/catalog/match';
import type { Cluster, Pool } from '../../src/config/platform';
import { manifestOf, PodConstraints, Workload, WorkloadKind } from '../../src/fit/manifest';
import { placePod } from '../../src/fit/placement';
import { poolPlan } from '../../src/model/plan';

/** A plain JSON-like map. */
export type Plain = { [key: string]: unknown };

/** A container with `resources`. @default requests of 100m cpu and 128Mi memory */
export function aContainer(resources: Plain = { requests: { cpu: '100m', memory: '128Mi' } }, extra: Plain = {}): Plain {
  return { name: 'app', image: 'public.ecr.aws/docker/library/nginx:1.27', resources, ...extra };
}

/** A pod spec of one {@link aContainer}; `overrides` replace its top-level fields. */
export function aPodSpec(overrides: Plain = {}): Plain {
  return { containers: [aContainer()], ...overrides };
}

const API_VERSION: Readonly<Record<WorkloadKind, string>> = {
  Pod: 'v1', Deployment: 'apps/v1', StatefulSet: 'apps/v1', DaemonSet: 'apps/v1', Job: 'batch/v1', CronJob: 'batch/v1',
};

/** A workload of `kind` whose pods have `spec`. @default a Deployment named app, in no namespace */
export function aWorkload(kind: WorkloadKind = 'Deployment', spec: Plain = aPodSpec(), metadata: Plain = { name: 'app' }): Plain {
  const template = { metadata: { labels: { app: String(metadata.name) } }, spec };
  const body: Record<WorkloadKind, Plain> = {
    Pod: spec,
    Deployment: { replicas: 2, selector: { matchLabels: { app: String(metadata.name) } }, template },
    StatefulSet: { serviceName: String(metadata.name), selector: { matchLabels: { app: String(metadata.name) } }, template },
    DaemonSet: { selector: { matchLabels: { app: String(metadata.name) } }, template },
    Job: { template: { ...template, spec: { restartPolicy: 'Never', ...spec } } },
    CronJob: { schedule: '0 3 * * *', jobTemplate: { spec: { template: { ...template, spec: { restartPolicy: 'OnFailure', ...spec } } } } },
  };
  return { apiVersion: API_VERSION[kind], kind, metadata, spec: body[kind] };
}

/** A Service, which fit skips. */
export function aService(name = 'app', namespace?: string): Plain {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, ...(namespace ? { namespace } : {}) }, spec: { ports: [{ port: 80 }] } };
}

/** A node selector requirement: `expr('kubernetes.io/arch', 'In', 'arm64')`. */
export function expr(key: string, operator: string, ...values: string[]): Plain {
  return values.length > 0 ? { key, operator, values } : { key, operator };
}

/** An `affinity` whose required node affinity has one term per list of expressions. */
export function requiring(...terms: Plain[][]): Plain {
  return { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms.map((matchExpressions) => ({ matchExpressions })) } } };
}

/** Objects as one manifest: YAML documents separated by `---`. */
export function manifest(...objects: Plain[]): string {
  return objects.map((o) => stringify(o)).join('---\n');
}

/** The problems of a manifest's text, formatted, as `app.yaml`. */
export function manifestProblems(text: string): string[] {
  return manifestOf(SourceFile.parseDocuments(text, 'app.yaml')).problems.map(formatProblem);
}

/** What the manifest reader makes of a workload's pods (a Deployment's unless `kind` is given). */
export function podOf(spec: Plain = aPodSpec(), kind: WorkloadKind = 'Deployment'): PodConstraints {
  const { manifest: read, problems } = manifestOf(SourceFile.parseDocuments(manifest(aWorkload(kind, spec)), 'app.yaml'));
  if (problems.length > 0) throw new Error(problems.map(formatProblem).join('\n'));
  return read.workloads[0].pod;
}

/** Where a pod fits on `pool` of `cluster`, as fit sees the pool: its plan (poolPlan: models, and admitted types after the cluster's overlays). */
export function placeOn(pod: PodConstraints, pool: Pool, cluster: Cluster, matcher: Matcher = catalogMatcher()): ReturnType<typeof placePod> {
  return placePod(pod, poolPlan(cluster, pool), cluster, matcher);
}

/** A workload as the manifest reader makes it (its pods' constraints and the object as written). */
export function readWorkload(kind: WorkloadKind = 'Deployment', spec: Plain = aPodSpec(), metadata: Plain = { name: 'app' }): Workload {
  const { manifest: read, problems } = manifestOf(SourceFile.parseDocuments(manifest(aWorkload(kind, spec, metadata)), 'app.yaml'));
  if (problems.length > 0) throw new Error(problems.map(formatProblem).join('\n'));
  return read.workloads[0];
}

import type { Cluster, Destination, Platform } from '../config/platform';

/** Where the Karpenter Helm charts live (an OCI registry; Argo CD takes it without `oci://`). */
export const KARPENTER_CHART_REPO = 'public.ecr.aws/karpenter';
/** Namespace of the smoke-test Deployments. */
export const SMOKE_TEST_NAMESPACE = 'karpenter-smoke-tests';

/** The sync waves, in order: each waits for the previous to be healthy. */
export const WAVES = { crds: 0, controller: 1, nodePools: 2, smokeTests: 3 } as const;

/** A Helm chart source. */
export interface ChartSource {
  readonly repoURL: string;
  readonly chart: string;
  readonly targetRevision: string;
  readonly helm: { readonly releaseName: string; readonly skipCrds?: boolean; readonly valueFiles?: readonly string[] };
}

/** A git source: a folder, or a `ref` other sources read files from. */
export interface GitSource {
  readonly repoURL: string;
  readonly targetRevision: string;
  readonly path?: string;
  readonly ref?: string;
}

/** One Argo CD Application, derived from the platform; the construct only renders it. */
export interface ApplicationModel {
  /** File name under `dist/<cluster>/apps/` (or `argocd/` for the root), without `.yaml`. */
  readonly file: string;
  /** Application name: starts with the cluster id, unique across clusters. */
  readonly name: string;
  readonly namespace: string;
  readonly project: string;
  /** Sync wave. @default - none (the root) */
  readonly wave?: number;
  readonly sources: readonly (ChartSource | GitSource)[];
  readonly destination: Destination & { readonly namespace: string };
  /** Automated sync with prune and self-heal. @default false - manual sync */
  readonly automated: boolean;
  /** Prune during automated sync. */
  readonly prune: boolean;
  readonly syncOptions: readonly string[];
  /** Retry failed syncs with backoff. */
  readonly retry: boolean;
  /** Use server-side diff (removes false drift from defaulted fields). */
  readonly serverSideDiff: boolean;
}

/** The Applications of one cluster, in wave order. */
export function clusterApplications(platform: Platform, cluster: Cluster): ApplicationModel[] {
  const { gitops, karpenter } = platform;
  const base = {
    namespace: gitops.argocdNamespace,
    project: gitops.project,
    retry: true,
    serverSideDiff: true,
  };
  const git = { repoURL: gitops.repoURL, targetRevision: gitops.targetRevision };
  const at = (namespace: string) => ({ ...cluster.destination, namespace });
  const apps: ApplicationModel[] = [
    {
      ...base,
      file: 'karpenter-crd',
      name: `${cluster.id}-karpenter-crd`,
      wave: WAVES.crds,
      sources: [{ repoURL: KARPENTER_CHART_REPO, chart: 'karpenter-crd', targetRevision: karpenter.version, helm: { releaseName: 'karpenter-crd' } }],
      destination: at(karpenter.namespace),
      automated: true,
      // Never prune CRDs: deleting one deletes every NodePool and EC2NodeClass with it.
      prune: false,
      // The CRDs exceed the 256 KiB last-applied annotation of client-side apply.
      syncOptions: ['ServerSideApply=true', ...createNamespace(karpenter.namespace)],
    },
    {
      ...base,
      file: 'karpenter',
      name: `${cluster.id}-karpenter`,
      wave: WAVES.controller,
      sources: [
        {
          repoURL: KARPENTER_CHART_REPO, chart: 'karpenter', targetRevision: karpenter.version,
          helm: { releaseName: 'karpenter', skipCrds: true, valueFiles: [`$values/dist/${cluster.id}/karpenter/values.yaml`] },
        },
        { ...git, ref: 'values' },
      ],
      destination: at(karpenter.namespace),
      automated: true,
      prune: true,
      syncOptions: createNamespace(karpenter.namespace),
    },
    {
      ...base,
      file: 'karpenter-nodepools',
      name: `${cluster.id}-karpenter-nodepools`,
      wave: WAVES.nodePools,
      sources: [{ ...git, path: `dist/${cluster.id}/nodepools` }],
      destination: at(karpenter.namespace),
      // Prune stays on: each NodePool and EC2NodeClass carries Prune=confirm/Delete=confirm.
      automated: true,
      prune: true,
      syncOptions: [],
    },
  ];
  if (cluster.smokeTests) {
    apps.push({
      ...base,
      file: 'karpenter-smoke-tests',
      name: `${cluster.id}-karpenter-smoke-tests`,
      wave: WAVES.smokeTests,
      sources: [{ ...git, path: `dist/${cluster.id}/smoke-tests` }],
      destination: at(SMOKE_TEST_NAMESPACE),
      // Never auto-synced: a person scales a smoke test up to watch Karpenter launch a node.
      automated: false,
      prune: false,
      retry: false,
      syncOptions: [],
    });
  }
  return apps;
}

/** The root Application (app of apps) of a cluster: it syncs `dist/<cluster>/apps` into Argo CD's namespace. */
export function rootApplication(platform: Platform, cluster: Cluster): ApplicationModel {
  const { gitops } = platform;
  return {
    file: cluster.id,
    name: `${cluster.id}-karpenter-root`,
    namespace: gitops.argocdNamespace,
    project: gitops.project,
    sources: [{ repoURL: gitops.repoURL, targetRevision: gitops.targetRevision, path: `dist/${cluster.id}/apps` }],
    // The child Applications live in Argo CD's own cluster, whatever cluster they deploy to.
    destination: { server: 'https://kubernetes.default.svc', namespace: gitops.argocdNamespace },
    automated: true,
    prune: true,
    syncOptions: [],
    retry: true,
    serverSideDiff: false,
  };
}

function createNamespace(namespace: string): string[] {
  return namespace === 'kube-system' ? [] : ['CreateNamespace=true'];
}

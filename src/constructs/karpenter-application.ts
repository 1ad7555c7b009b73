import { Construct } from 'constructs';
import * as argo from '../../imports/argoproj.io';
import { ApplicationModel, ChartSource, GitSource } from '../model/applications';
import { MANAGED_BY } from '../model/node-pool';
import { WAITS_FOR_ANNOTATION } from '../model/stages';

/** Properties of a {@link KarpenterApplication}. */
export interface KarpenterApplicationProps {
  /** The Application to render. */
  readonly app: ApplicationModel;
}

/** Argo CD's resources finalizer: deleting the Application deletes what it deployed. */
export const RESOURCES_FINALIZER = 'resources-finalizer.argocd.argoproj.io';

/**
 * An Argo CD Application of the Karpenter delivery: sync wave, sources, sync
 * policy and, unless orphaned, the resources finalizer (deleting the Application
 * deletes what it deployed, still subject to each object's `Delete=confirm`).
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/sync-waves/
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/multiple_sources/
 */
export class KarpenterApplication extends Construct {
  /** The Application object. */
  public readonly application: argo.Application;

  public constructor(scope: Construct, id: string, props: KarpenterApplicationProps) {
    super(scope, id);
    const a = props.app;
    const annotations: Record<string, string> = {};
    if (a.wave !== undefined) annotations['argocd.argoproj.io/sync-wave'] = String(a.wave);
    if (a.serverSideDiff) annotations['argocd.argoproj.io/compare-options'] = 'ServerSideDiff=true';
    if (a.waitsFor !== undefined) annotations[WAITS_FOR_ANNOTATION] = a.waitsFor;
    const [single] = a.sources;
    this.application = new argo.Application(this, 'Application', {
      metadata: {
        name: a.name,
        namespace: a.namespace,
        labels: { 'app.kubernetes.io/managed-by': MANAGED_BY },
        annotations,
        finalizers: a.finalizer ? [RESOURCES_FINALIZER] : undefined,
      },
      spec: {
        project: a.project,
        destination: {
          server: 'server' in a.destination ? a.destination.server : undefined,
          name: 'name' in a.destination ? a.destination.name : undefined,
          namespace: a.destination.namespace,
        },
        // One source is written as `source`, several as `sources` (the multi-source form).
        source: a.sources.length === 1 ? source(single) : undefined,
        sources: a.sources.length > 1 ? a.sources.map(source) : undefined,
        syncPolicy: {
          automated: a.automated ? { enabled: true, prune: a.prune, selfHeal: true } : undefined,
          syncOptions: a.syncOptions.length ? [...a.syncOptions] : undefined,
          retry: a.retry
            ? { limit: 5, backoff: { duration: '10s', factor: 2, maxDuration: '3m' } }
            : undefined,
        },
      },
    });
  }
}

function source(s: ChartSource | GitSource): argo.ApplicationSpecSources {
  if ('chart' in s) {
    return {
      repoUrl: s.repoURL,
      chart: s.chart,
      targetRevision: s.targetRevision,
      helm: {
        releaseName: s.helm.releaseName,
        skipCrds: s.helm.skipCrds,
        valueFiles: s.helm.valueFiles && [...s.helm.valueFiles],
      },
    };
  }
  return { repoUrl: s.repoURL, targetRevision: s.targetRevision, path: s.path, ref: s.ref, directory: s.include ? { include: s.include } : undefined };
}

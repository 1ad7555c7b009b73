import { Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-31';
import { Construct } from 'constructs';
import { KARPENTER_CHART_REPO } from '../model/applications';
import { MANAGED_BY } from '../model/node-pool';

/** Properties of a {@link HelmRepositoryChart}. */
export interface HelmRepositoryChartProps {
  /** Argo CD's namespace. */
  readonly namespace: string;
}

/**
 * `argocd/helm-repository.yaml`: Argo CD's declaration of the public OCI registry that
 * serves the Karpenter charts. The Applications name it without `oci://`, as a Helm
 * repository; without this declaration (`enableOCI`), Argo CD would look for a Helm
 * `index.yaml` there and fail. It holds no credentials: the registry is public.
 * @see https://argo-cd.readthedocs.io/en/stable/operator-manual/declarative-setup/#helm
 */
export class HelmRepositoryChart extends Chart {
  public constructor(scope: Construct, id: string, props: HelmRepositoryChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new kplus.Secret(this, 'Repository', {
      metadata: {
        name: 'karpenter-helm-oci',
        namespace: props.namespace,
        labels: { 'argocd.argoproj.io/secret-type': 'repository', 'app.kubernetes.io/managed-by': MANAGED_BY },
        annotations: { 'argocd.argoproj.io/sync-wave': '-1' },
      },
      stringData: { name: 'karpenter', url: KARPENTER_CHART_REPO, type: 'helm', enableOCI: 'true' },
    });
  }
}

import { Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-31';
import { Construct } from 'constructs';
import { APPLICATION_HEALTH_LUA } from '../model/application-health';

/** Properties of an {@link ArgoCdHealthChart}. */
export interface ArgoCdHealthChartProps {
  /** Argo CD's namespace. */
  readonly namespace: string;
}

/**
 * `argocd/argocd-cm-patch.yaml`: merged into Argo CD's `argocd-cm` ConfigMap once per Argo CD
 * installation: the Application health check that makes sync waves across Applications wait.
 */
export class ArgoCdHealthChart extends Chart {
  public constructor(scope: Construct, id: string, props: ArgoCdHealthChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new kplus.ConfigMap(this, 'ArgoCdCm', {
      metadata: { name: 'argocd-cm', namespace: props.namespace, labels: { 'app.kubernetes.io/part-of': 'argocd' } },
      data: { 'resource.customizations.health.argoproj.io_Application': APPLICATION_HEALTH_LUA },
    });
  }
}

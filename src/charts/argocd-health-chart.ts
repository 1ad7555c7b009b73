import { Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-31';
import { Construct } from 'constructs';
import { APPLICATION_HEALTH_LUA, APPLICATION_HEALTH_OPEN_LIBS_KEY, CAPACITY_BUFFER_HEALTH_LUA, NODE_OVERLAY_HEALTH_LUA } from '../model/application-health';

/** Properties of an {@link ArgoCdHealthChart}. */
export interface ArgoCdHealthChartProps {
  /** Argo CD's namespace. */
  readonly namespace: string;
}

/**
 * `argocd/argocd-cm-patch.yaml`: merged into Argo CD's `argocd-cm` ConfigMap once per Argo CD
 * installation: the Application health check that makes sync waves across Applications wait
 * (with Lua's standard libraries: it reads Argo CD's messages; why that is safe:
 * {@link APPLICATION_HEALTH_LUA}), and the health of NodeOverlays and CapacityBuffers from their
 * status conditions (Argo CD's sandbox: no useOpenLibs key).
 */
export class ArgoCdHealthChart extends Chart {
  public constructor(scope: Construct, id: string, props: ArgoCdHealthChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new kplus.ConfigMap(this, 'ArgoCdCm', {
      metadata: { name: 'argocd-cm', namespace: props.namespace, labels: { 'app.kubernetes.io/part-of': 'argocd' } },
      data: {
        'resource.customizations.health.argoproj.io_Application': APPLICATION_HEALTH_LUA,
        [APPLICATION_HEALTH_OPEN_LIBS_KEY]: 'true',
        // Argo CD knows neither: without these a broken overlay or buffer would show Healthy.
        'resource.customizations.health.karpenter.sh_NodeOverlay': NODE_OVERLAY_HEALTH_LUA,
        'resource.customizations.health.autoscaling.x-k8s.io_CapacityBuffer': CAPACITY_BUFFER_HEALTH_LUA,
      },
    });
  }
}

import { Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-31';
import { Construct } from 'constructs';

/** Properties of an {@link ArgoCdHealthChart}. */
export interface ArgoCdHealthChartProps {
  /** Argo CD's namespace. */
  readonly namespace: string;
}

/**
 * The health check Argo CD needs to wait on Applications: since Argo CD 1.8 an
 * Application has no health of its own, so sync waves across Applications of an
 * app of apps do not wait without it.
 * @see https://argo-cd.readthedocs.io/en/stable/operator-manual/health/#argocd-app
 */
export const APPLICATION_HEALTH_LUA = `hs = {}
hs.status = "Progressing"
hs.message = ""
if obj.status ~= nil then
  if obj.status.health ~= nil then
    hs.status = obj.status.health.status
    if obj.status.health.message ~= nil then
      hs.message = obj.status.health.message
    end
  end
end
return hs
`;

/** `argocd/argocd-cm-patch.yaml`: merged into Argo CD's `argocd-cm` ConfigMap at bootstrap. */
export class ArgoCdHealthChart extends Chart {
  public constructor(scope: Construct, id: string, props: ArgoCdHealthChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new kplus.ConfigMap(this, 'ArgoCdCm', {
      metadata: { name: 'argocd-cm', namespace: props.namespace, labels: { 'app.kubernetes.io/part-of': 'argocd' } },
      data: { 'resource.customizations.health.argoproj.io_Application': APPLICATION_HEALTH_LUA },
    });
  }
}

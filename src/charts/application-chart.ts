import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { KarpenterApplication } from '../constructs/karpenter-application';
import { ApplicationModel } from '../model/applications';

/** Properties of an {@link ApplicationChart}. */
export interface ApplicationChartProps {
  /** The Application the file holds. */
  readonly app: ApplicationModel;
}

/** `dist/<cluster>/apps/<app>.yaml` and `argocd/<cluster>.yaml`: one Argo CD Application. */
export class ApplicationChart extends Chart {
  public constructor(scope: Construct, id: string, props: ApplicationChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new KarpenterApplication(this, 'App', { app: props.app });
  }
}

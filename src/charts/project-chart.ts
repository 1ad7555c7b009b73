import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { KarpenterProject } from '../constructs/karpenter-project';
import { ProjectModel } from '../model/applications';

/** Properties of a {@link ProjectChart}. */
export interface ProjectChartProps {
  /** The AppProject the file holds. */
  readonly project: ProjectModel;
}

/** `argocd/project.yaml`: the AppProject, when `gitops.project` is not `default`. */
export class ProjectChart extends Chart {
  public constructor(scope: Construct, id: string, props: ProjectChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new KarpenterProject(this, 'Project', { project: props.project });
  }
}

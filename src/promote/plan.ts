import type { Platform } from '../config/platform';
import { stageRef } from '../model/stages';

/** What the promote workflow needs to build its jobs (`npm run promote -- plan --format json`). */
export interface PromotionPlan {
  /** The version of this data's shape (2: `reads`, and the instances' runners). */
  readonly version: 2;
  /** Where Argo CD's Applications are (`gitops.argocdNamespace`). */
  readonly argocdNamespace: string;
  /**
   * The Argo CD instances to read (`gitops.argocd`), each with the clusters it deploys.
   * @default [] - the fleet's one Argo CD, read with the ARGOCD_KUBECONFIG secret
   */
  readonly instances: readonly { readonly name: string; readonly eksCluster: string; readonly region: string; readonly roleArn: string; readonly runner?: readonly string[]; readonly clusters: readonly string[] }[];
  /** The read jobs of the workflow: one per instance, or one for the fleet's only Argo CD; never none (see {@link ReadLeg}). */
  readonly reads: readonly ReadLeg[];
  /** Every stage that is promoted (2 and later), in order. */
  readonly stages: readonly {
    readonly stage: number;
    /** Its ref, `<gitops.stageRefPrefix>N`. */
    readonly ref: string;
    /** The ref of the stage before, whose commit it is promoted to; none for stage 2, which follows the main branch. */
    readonly follows?: string;
    readonly soakMinutes: number;
    /** The GitHub environment its push runs in. @default - none */
    readonly environment?: string;
    readonly clusters: readonly string[];
  }[];
}

/**
 * One leg of the promote workflow's `read` matrix. There is always at least one: a job whose matrix
 * is empty fails, and a job skipped by its `if:` skips, through `success()`, every job below it
 * in the `needs` chain (docs/windows.md, The workflow). `kubeconfig`: the fleet's only Argo CD,
 * read with the ARGOCD_KUBECONFIG secret; otherwise the instance's OIDC role.
 */
export interface ReadLeg {
  /** The instance's name (`argocd` for the fleet's only one): the artifact is `applications-<name>`. */
  readonly name: string;
  readonly kubeconfig: boolean;
  /** Where its Applications are (`gitops.argocdNamespace`). */
  readonly namespace: string;
  readonly eksCluster: string;
  readonly region: string;
  readonly roleArn: string;
  /** The job's runs-on as JSON (`["self-hosted","vpc-eu"]`), or '' for the workflow's default (KARPENTER_GITOPS_RUNNER, else ubuntu-latest). */
  readonly runsOn: string;
}

/** The name of the read leg (and artifact) of the fleet's only Argo CD, without `gitops.argocd`. */
export const SINGLE_INSTANCE = 'argocd';

/** The read legs of a platform: one per `gitops.argocd` instance, else one for the only Argo CD. */
export function readLegs(platform: Platform): ReadLeg[] {
  const instances = platform.gitops.argocdInstances ?? [];
  const namespace = platform.gitops.argocdNamespace;
  if (instances.length === 0) return [{ name: SINGLE_INSTANCE, kubeconfig: true, namespace, eksCluster: '', region: '', roleArn: '', runsOn: '' }];
  return instances.map((i) => ({
    name: i.name, kubeconfig: false, namespace, eksCluster: i.eksCluster, region: i.region, roleArn: i.roleArn,
    runsOn: i.runner === undefined ? '' : JSON.stringify(i.runner.length === 1 ? i.runner[0] : i.runner),
  }));
}

/** The promote workflow's plan of a platform: its Argo CD instances and stages (see {@link PromotionPlan}). */
export function promotionPlan(platform: Platform): PromotionPlan {
  const stages = [...new Set(platform.clusters.map((c) => c.stage).filter((s): s is number => s !== undefined && s >= 2))].sort((a, b) => a - b);
  return {
    version: 2,
    argocdNamespace: platform.gitops.argocdNamespace,
    reads: readLegs(platform),
    instances: (platform.gitops.argocdInstances ?? []).map((i) => ({
      name: i.name, eksCluster: i.eksCluster, region: i.region, roleArn: i.roleArn, ...(i.runner !== undefined ? { runner: i.runner } : {}),
      clusters: platform.clusters.filter((c) => c.argocd === i.name).map((c) => c.id),
    })),
    stages: stages.map((stage) => {
      const policy = platform.gitops.stages?.find((s) => s.stage === stage);
      return {
        stage, ref: stageRef(platform, stage),
        ...(stage > 2 ? { follows: stageRef(platform, stage - 1) } : {}),
        soakMinutes: policy?.soakMinutes ?? 0,
        ...(policy?.environment !== undefined ? { environment: policy.environment } : {}),
        clusters: platform.clusters.filter((c) => c.stage === stage).map((c) => c.id),
      };
    }),
  };
}

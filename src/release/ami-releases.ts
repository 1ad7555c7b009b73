/**
 * When EKS AMIs for each Kubernetes minor version first (and, for AL2, last) exist. Karpenter
 * resolves a pinned alias such as `al2023@v20250505` through the SSM parameter of that release
 * *for the cluster's Kubernetes version*; a release published before EKS supported the version
 * has no such parameter, so the EC2NodeClass never becomes Ready and its pools launch nothing.
 *
 * Hand-maintained: add a row when EKS releases a Kubernetes version (the first AMI release
 * that lists it in its "AMI Details" section, and the first Bottlerocket release with its
 * `aws-k8s-1.xx` variants). An unknown newer version is not an error: the check is skipped
 * with a warning.
 * @see https://github.com/awslabs/amazon-eks-ami/blob/main/CHANGELOG.md (AL2023 and AL2 releases, the Kubernetes versions each builds)
 * @see https://github.com/bottlerocket-os/bottlerocket/blob/develop/CHANGELOG.md (the release that adds each aws-k8s variant;
 *   tracking issues #4137 for 1.31 in v1.22.0, #4318 for 1.32 in v1.30.0, #4477 for 1.33 in v1.39.0, #4620 for 1.34 in v1.47.0, PR #4737 for 1.35 in v1.53.0)
 * @see https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html (EKS release dates)
 * @see https://karpenter.sh/docs/concepts/nodeclasses/#specamiselectorterms (alias resolution through SSM)
 */
export interface KubernetesAmis {
  /** The month EKS made the version generally available (YYYY-MM). */
  readonly eksRelease: string;
  /** The first EKS AL2023 AMI release (`vYYYYMMDD`) built for it. */
  readonly al2023: string;
  /** The first EKS AL2 AMI release built for it. @default - EKS builds no AL2 AMIs for it */
  readonly al2?: string;
  /** The first Bottlerocket release (`vX.Y.Z`) with its `aws-k8s` variants. */
  readonly bottlerocket: string;
}

/** Per Kubernetes minor version, oldest first. */
export const KUBERNETES_AMIS: Readonly<Record<string, KubernetesAmis>> = {
  '1.30': { eksRelease: '2024-05', al2023: 'v20240514', al2: 'v20240514', bottlerocket: 'v1.20.0' },
  '1.31': { eksRelease: '2024-09', al2023: 'v20240917', al2: 'v20240917', bottlerocket: 'v1.22.0' },
  '1.32': { eksRelease: '2025-01', al2023: 'v20241225', al2: 'v20241225', bottlerocket: 'v1.30.0' },
  '1.33': { eksRelease: '2025-05', al2023: 'v20250519', bottlerocket: 'v1.39.0' },
  '1.34': { eksRelease: '2025-10', al2023: 'v20250915', bottlerocket: 'v1.47.0' },
  '1.35': { eksRelease: '2026-01', al2023: 'v20260114', bottlerocket: 'v1.53.0' },
  '1.36': { eksRelease: '2026-06', al2023: 'v20260610', bottlerocket: 'v1.61.0' },
};

/**
 * The last EKS AL2 AMI release: AL2 AMIs ended with Kubernetes 1.32 and with the end of
 * AL2 support for EKS on 2025-11-26.
 * @see https://docs.aws.amazon.com/eks/latest/userguide/eks-ami-deprecation-faqs.html
 */
export const LAST_AL2_RELEASE = 'v20251209';

/** The newest Kubernetes version EKS builds AL2 AMIs for. */
export const LAST_AL2_KUBERNETES = '1.32';

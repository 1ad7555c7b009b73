################################################################################
# Karpenter AWS prerequisites for one EKS cluster.
#
# Everything the generator needs is exposed in outputs.tf; run
#   terraform output -json > ../config/terraform/<cluster>.json
# after apply (see README.md).
################################################################################

data "aws_partition" "current" {}

# The control plane's Kubernetes version: the generator checks AMI pins and Karpenter's
# compatibility against it (output cluster_version).
data "aws_eks_cluster" "this" {
  name = var.cluster_name
}

# The cluster's region: the generator checks that every pool's zones are in it (output region).
data "aws_region" "current" {}

locals {
  # "oidc.eks.<region>.amazonaws.com/id/<id>" - the prefix of the IRSA condition keys.
  irsa_oidc_issuer = var.enable_irsa && var.irsa_oidc_provider_arn != null ? element(split(":oidc-provider/", var.irsa_oidc_provider_arn), 1) : null
}

# terraform-aws-modules/eks v21 dropped native IRSA support from the karpenter
# sub-module (enable_irsa / irsa_oidc_provider_arn / irsa_namespace_service_accounts
# were removed, see docs/UPGRADE-21.0.md). The opt-in IRSA path adds the web
# identity trust through the module's `iam_role_source_assume_policy_documents`;
# the module keeps its own Pod Identity statement in the trust policy either way.
data "aws_iam_policy_document" "controller_irsa_assume_role" {
  count = var.enable_irsa ? 1 : 0

  statement {
    sid     = "IRSA"
    effect  = "Allow"
    actions = ["sts:AssumeRoleWithWebIdentity"]

    principals {
      type        = "Federated"
      identifiers = [var.irsa_oidc_provider_arn]
    }

    condition {
      test     = "StringEquals"
      variable = "${local.irsa_oidc_issuer}:sub"
      values   = ["system:serviceaccount:${var.namespace}:${var.service_account}"]
    }

    condition {
      test     = "StringEquals"
      variable = "${local.irsa_oidc_issuer}:aud"
      values   = ["sts.amazonaws.com"]
    }
  }

  lifecycle {
    precondition {
      condition     = var.irsa_oidc_provider_arn != null
      error_message = "enable_irsa = true requires irsa_oidc_provider_arn (the cluster's IAM OIDC provider ARN)."
    }
  }
}

module "karpenter" {
  source  = "terraform-aws-modules/eks/aws//modules/karpenter"
  version = "~> 21.0"

  cluster_name = var.cluster_name
  region       = var.region

  # Controller identity: EKS Pod Identity (the v21 default) unless IRSA is opted into.
  # Pod Identity requires the eks-pod-identity-agent add-on on the cluster.
  create_pod_identity_association         = !var.enable_irsa
  namespace                               = var.namespace
  service_account                         = var.service_account
  iam_role_source_assume_policy_documents = data.aws_iam_policy_document.controller_irsa_assume_role[*].json

  # Node IAM role (EC2NodeClass.spec.role). The module attaches
  # AmazonEKSWorkerNodePolicy, AmazonEC2ContainerRegistryPullOnly and the CNI
  # policy, and creates an EC2_LINUX access entry so the nodes can join.
  node_iam_role_additional_policies = {
    AmazonSSMManagedInstanceCore = "arn:${data.aws_partition.current.partition}:iam::aws:policy/AmazonSSMManagedInstanceCore"
  }

  # SQS interruption queue + EventBridge rules (module default, stated explicitly
  # because the generator wires the queue name into the Karpenter settings).
  enable_spot_termination = true

  tags = var.tags
}

# EC2 Spot needs the AWSServiceRoleForEC2Spot service-linked role before Karpenter
# can launch spot capacity. It is account-wide and can exist only once, hence the
# toggle (set create_spot_service_linked_role = false for every further cluster in
# the same account, or import the existing role).
resource "aws_iam_service_linked_role" "spot" {
  count = var.create_spot_service_linked_role ? 1 : 0

  aws_service_name = "spot.amazonaws.com"
  description      = "EC2 Spot service-linked role (required by Karpenter spot capacity)"
}

# Karpenter 1.15's awsFeatureGates.rebootForRepair makes node repair reboot a node in place, which
# "Requires the ec2:RebootInstances permission" (charts/karpenter/values.yaml at v1.15.0). Scoped as
# Karpenter's own controller policy scopes ec2:TerminateInstances (statement AllowScopedDeletion of
# website/content/en/v1.15/getting-started/getting-started-with-karpenter/cloudformation.yaml):
# instances of this cluster (kubernetes.io/cluster/<name> = owned) that a NodePool launched.
data "aws_iam_policy_document" "reboot_for_repair" {
  count = var.enable_reboot_for_repair ? 1 : 0

  statement {
    sid       = "AllowScopedRebootForRepair"
    effect    = "Allow"
    actions   = ["ec2:RebootInstances"]
    resources = ["arn:${data.aws_partition.current.partition}:ec2:${data.aws_region.current.region}:*:instance/*"]

    condition {
      test     = "StringEquals"
      variable = "aws:ResourceTag/kubernetes.io/cluster/${var.cluster_name}"
      values   = ["owned"]
    }

    condition {
      test     = "StringLike"
      variable = "aws:ResourceTag/karpenter.sh/nodepool"
      values   = ["*"]
    }
  }
}

resource "aws_iam_role_policy" "reboot_for_repair" {
  count = var.enable_reboot_for_repair ? 1 : 0

  name   = "KarpenterRebootForRepair"
  role   = module.karpenter.iam_role_name
  policy = data.aws_iam_policy_document.reboot_for_repair[0].json
}

# EKS Auto Mode (compute: autoMode or both, docs/auto-mode.md): the generator's NodeClasses name the
# Karpenter node role (output auto_mode_node_role_name), and "If you manually specify a Node IAM role
# in a NodeClass, you need to create an Access Entry" of type EC2 with the AmazonEKSAutoNodePolicy
# access policy, cluster-wide (https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html,
# "Create node class access entry"; type EC2 "for EKS Auto Mode":
# https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateAccessEntry.html). Auto Mode itself
# (compute_config, storage and load balancing on aws_eks_cluster) is the cluster's own Terraform.
resource "aws_eks_access_entry" "auto_mode_node" {
  count = var.enable_auto_mode_node_access ? 1 : 0

  cluster_name  = var.cluster_name
  principal_arn = module.karpenter.node_iam_role_arn
  type          = "EC2"
  tags          = var.tags
}

resource "aws_eks_access_policy_association" "auto_mode_node" {
  count = var.enable_auto_mode_node_access ? 1 : 0

  cluster_name  = var.cluster_name
  principal_arn = module.karpenter.node_iam_role_arn
  policy_arn    = "arn:${data.aws_partition.current.partition}:eks::aws:cluster-access-policy/AmazonEKSAutoNodePolicy"

  access_scope {
    type = "cluster"
  }

  depends_on = [aws_eks_access_entry.auto_mode_node]
}

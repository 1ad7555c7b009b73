################################################################################
# Contract with the karpenter-gitops generator (src/config/terraform.ts,
# TERRAFORM_OUTPUTS). Add, rename or remove an output only together with the
# loader; test/terraform/outputs.test.ts enforces that both sides agree.
#
# Optional outputs evaluate to null when they do not apply. Terraform does not
# store null root-module outputs, so they are simply missing from
# `terraform output -json`; the loader treats missing and null alike as "absent".
################################################################################

output "cluster_name" {
  description = "Name of the EKS cluster (required by the generator)."
  value       = var.cluster_name
}

output "karpenter_node_role_name" {
  description = "Name (not ARN) of the IAM role for Karpenter-launched nodes; used as EC2NodeClass.spec.role (required by the generator)."
  value       = module.karpenter.node_iam_role_name
}

output "karpenter_interruption_queue_name" {
  description = "Name (not URL or ARN) of the SQS queue receiving spot interruption, rebalance, health and state-change events; Karpenter's settings.interruptionQueue (optional)."
  value       = module.karpenter.queue_name
}

output "karpenter_controller_role_arn" {
  description = "ARN of the Karpenter controller IAM role, emitted only when enable_irsa = true so the generator adds the eks.amazonaws.com/role-arn ServiceAccount annotation. Absent (null) with EKS Pod Identity, the default (optional)."
  value       = var.enable_irsa ? module.karpenter.iam_role_arn : null
}

output "cluster_endpoint" {
  description = "EKS API server endpoint; emitted only when var.cluster_endpoint is set (optional)."
  value       = var.cluster_endpoint
}

output "karpenter_pod_identity_namespace" {
  description = "Namespace of the EKS Pod Identity association of the controller role; the generator checks it against karpenter.namespace. Absent (null) with IRSA (optional)."
  value       = var.enable_irsa ? null : var.namespace
}

output "karpenter_pod_identity_service_account" {
  description = "ServiceAccount of the EKS Pod Identity association; the generator checks it against the chart's ServiceAccount name. Absent (null) with IRSA (optional)."
  value       = var.enable_irsa ? null : var.service_account
}

output "cluster_version" {
  description = "Kubernetes minor version of the control plane (e.g. \"1.34\"), as the EKS module's cluster_version output gives it; the generator checks AMI pins and Karpenter's compatibility matrix against it. Re-export the outputs after every control-plane upgrade (optional)."
  value       = data.aws_eks_cluster.this.version
}

output "region" {
  description = "AWS region of the cluster (e.g. \"eu-west-1\"); the generator checks that every pool's zones are zones of it. Without it the region is read from cluster_endpoint (optional)."
  value       = data.aws_region.current.region
}

output "karpenter_can_reboot_instances" {
  description = "Whether the controller role may call ec2:RebootInstances (enable_reboot_for_repair); the generator refuses Karpenter 1.15's awsFeatureGates.rebootForRepair unless it is true (optional)."
  value       = var.enable_reboot_for_repair
}

output "auto_mode_node_role_name" {
  description = "The node role the generator's EKS Auto Mode NodeClasses name (spec.role), once it has its EC2 access entry (enable_auto_mode_node_access); absent otherwise, and the NodeClasses name karpenter_node_role_name (optional)."
  value       = var.enable_auto_mode_node_access ? module.karpenter.node_iam_role_name : null
}

output "auto_mode_node_pools" {
  description = "EKS Auto Mode's built-in pools the cluster has on (compute_config.node_pools: system, general-purpose); the generator refuses compute: both without system (the controller is pinned there) and warns of general-purpose during the move (optional)."
  value       = try(data.aws_eks_cluster.this.compute_config[0].node_pools, null)
}

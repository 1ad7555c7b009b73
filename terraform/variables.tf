variable "cluster_name" {
  description = "Name of the existing EKS cluster Karpenter will manage nodes for. Emitted as the `cluster_name` output."
  type        = string

  validation {
    condition     = length(trimspace(var.cluster_name)) > 0
    error_message = "cluster_name must be a non-empty string."
  }
}

variable "cluster_endpoint" {
  description = "EKS API server endpoint (e.g. module.eks.cluster_endpoint or `aws eks describe-cluster --query cluster.endpoint`). Optional: when null the `cluster_endpoint` output is omitted."
  type        = string
  default     = null

  validation {
    condition     = var.cluster_endpoint == null || can(regex("^https://", var.cluster_endpoint))
    error_message = "cluster_endpoint must be an https:// URL, or null."
  }
}

variable "region" {
  description = "AWS region of the cluster. Defaults to the region from the environment / AWS profile."
  type        = string
  default     = null
}

variable "namespace" {
  description = "Kubernetes namespace the Karpenter controller runs in (used for the Pod Identity association, or the IRSA trust condition)."
  type        = string
  default     = "kube-system"
}

variable "service_account" {
  description = "Name of the Karpenter controller ServiceAccount (used for the Pod Identity association, or the IRSA trust condition)."
  type        = string
  default     = "karpenter"
}

variable "create_spot_service_linked_role" {
  description = "Create the account-wide AWSServiceRoleForEC2Spot service-linked role (spot.amazonaws.com). It exists at most once per AWS account: set to false for every cluster after the first one in an account, or if the role already exists."
  type        = bool
  default     = true
}

variable "enable_irsa" {
  description = "Use IAM Roles for Service Accounts instead of EKS Pod Identity (the default). When true, no Pod Identity association is created, the controller role trusts the cluster's OIDC provider, and `karpenter_controller_role_arn` is emitted so the generator annotates the ServiceAccount with eks.amazonaws.com/role-arn."
  type        = bool
  default     = false
}

variable "irsa_oidc_provider_arn" {
  description = "ARN of the cluster's IAM OIDC provider (arn:aws:iam::<account>:oidc-provider/oidc.eks.<region>.amazonaws.com/id/<id>). Required when enable_irsa = true; ignored otherwise."
  type        = string
  default     = null

  validation {
    condition     = var.irsa_oidc_provider_arn == null || can(regex(":oidc-provider/.+", var.irsa_oidc_provider_arn))
    error_message = "irsa_oidc_provider_arn must be an IAM OIDC provider ARN (containing ':oidc-provider/'), or null."
  }
}

variable "enable_reboot_for_repair" {
  description = "Grant the controller role ec2:RebootInstances on this cluster's Karpenter instances, which Karpenter 1.15's settings.awsFeatureGates.rebootForRepair needs (node repair reboots a node in place for reboot-clearable GPU faults). Emitted as karpenter_can_reboot_instances; the generator refuses rebootForRepair on a cluster whose outputs do not say true."
  type        = bool
  default     = false
}

variable "tags" {
  description = "Tags added to every AWS resource created by this module."
  type        = map(string)
  default     = {}
}

variable "enable_auto_mode_node_access" {
  description = "The cluster runs (or moves to) EKS Auto Mode with the generator's own NodeClasses (compute: autoMode or both): give the Karpenter node role an EKS access entry of type EC2 with AmazonEKSAutoNodePolicy, which a custom NodeClass's role needs. Emitted as auto_mode_node_role_name. Leave false when Auto Mode's built-in pools already use this role (EKS made the entry itself: a second one fails)."
  type        = bool
  default     = false
}

terraform {
  # terraform-aws-modules/eks v21 requires Terraform >= 1.5.7
  # (docs/UPGRADE-21.0.md: "Terraform v1.5.7 is now minimum supported version").
  required_version = ">= 1.5.7"

  required_providers {
    aws = {
      source = "hashicorp/aws"
      # v21.0.0 requires AWS provider >= 6.0 (docs/UPGRADE-21.0.md). Later 21.x
      # releases raise the module's own floor (>= 6.15 at the time of writing);
      # Terraform intersects this constraint with the module's, so `terraform init`
      # always selects a provider the resolved module version accepts.
      version = ">= 6.0"
    }
  }
}

provider "aws" {
  # null falls back to AWS_REGION / AWS_DEFAULT_REGION / the shared config profile.
  region = var.region
}

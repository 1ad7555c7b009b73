/**
 * Live objects as `kubectl get ... -o yaml` prints them (the API server's defaults applied, as
 * crd-validator's model of it applies them) and a small fleet to adopt them into.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { aTerraform, Plain, Project, writeProject } from '../builders';
import { defaulted } from '../support/crd-validator';

/** Terraform outputs of cluster `name`: its node role named after it. */
export const outputsOf = (name: string): Plain => aTerraform({ cluster_name: name, karpenter_node_role_name: `KarpenterNodeRole-${name}`, karpenter_interruption_queue_name: name, cluster_version: '1.34' });

/** A fleet of one cluster `c1` on Karpenter `version`, running team web. */
export function aFleet(version = '1.14.1'): Project {
  return writeProject({
    config: { gitops: { repoURL: 'https://github.com/acme/platform-gitops.git' }, karpenter: { version }, clusters: { c1: { terraformOutputs: 'terraform/c1.json' } }, defaults: { ami: { alias: 'al2023@v20260409' } }, teams: { web: {} } },
    terraform: { c1: outputsOf('c1') },
  });
}

/** A NodePool as stored: `spec` and `template.spec` merged over a minimal valid one, then the CRD's defaults. */
export function aLiveNodePool(name: string, spec: Plain = {}, templateSpec: Plain = {}, release = '1.14.1'): Plain {
  const { template, ...rest } = spec as { template?: Plain };
  return defaulted({
    apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name },
    spec: {
      ...rest,
      template: { ...template, spec: { nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' }, requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }], ...templateSpec } },
    },
  }, release) as Plain;
}

/** An EC2NodeClass as stored, of cluster c1, `spec` merged over a minimal valid one, then the CRD's defaults. */
export function aLiveNodeClass(spec: Plain = {}, name = 'default', release = '1.14.1'): Plain {
  return defaulted({
    apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name },
    spec: {
      amiSelectorTerms: [{ alias: 'al2023@v20260409' }], role: 'KarpenterNodeRole-c1',
      securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'c1' } }], subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'c1' } }], ...spec,
    },
  }, release) as Plain;
}

/** Writes `items` as a kubectl `List` into the project's folder; returns its path. */
export function writeExport(project: Project, items: readonly Plain[], file = 'live.yaml'): string {
  const path = join(project.dir, file);
  writeFileSync(path, stringify({ apiVersion: 'v1', kind: 'List', items }));
  return path;
}

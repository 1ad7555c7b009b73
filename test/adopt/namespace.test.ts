/**
 * The namespace adoption writes (issue 43, contract 9.2; src/adopt/adopt.ts): the running
 * release's namespace is written on the cluster only where the config would put Karpenter
 * elsewhere, and where the config puts it is what the config resolves for that cluster (the
 * fleet's, a group's or its own, src/config/settings.ts), never a second guess at it.
 */
import { join } from 'node:path';
import { parse } from 'yaml';
import { adoptConfig } from '../../src/adopt/adopt';
import { MAX_EXPORT_BYTES, readLiveExport } from '../../src/adopt/live';
import { loadPlatform } from '../../src/config/load';
import { platformSchema } from '../../src/config/schema';
import { SourceFile } from '../../src/input/source';
import { aConfig, aTerraform, removeProjects, writeProject } from '../builders';

afterAll(removeProjects);

/** The export of a Karpenter 1.14.1 cluster prod-eu-01 (test/fixtures/adoption, as test/adopt/adopt.test.ts adopts it). */
const LIVE = join(__dirname, '..', 'fixtures', 'adoption', 'live-1.14.1.yaml');

/** Cluster demo, and prod-eu-01 in group prod, which runs Karpenter in namespace karpenter. */
const project = writeProject({
  config: aConfig({
    karpenter: { version: '1.14.1' },
    defaults: { ami: { alias: 'al2023@v20260409' } },
    clusters: { 'prod-eu-01': { terraformOutputs: 'terraform/prod-eu-01.json', labels: { env: 'prod' } } },
    groups: { prod: { match: { labels: { env: 'prod' } }, karpenter: { namespace: 'karpenter' } } },
  }),
  terraform: {
    demo: aTerraform(),
    'prod-eu-01': aTerraform({
      cluster_name: 'prod-eu-01', karpenter_node_role_name: 'KarpenterNodeRole-prod-eu-01', karpenter_interruption_queue_name: 'Karpenter-prod-eu-01',
      karpenter_controller_role_arn: 'arn:aws:iam::111122223333:role/KarpenterController-prod-eu-01', cluster_version: '1.34',
    }),
  },
});
const file = platformSchema.parse(parse(project.configText));
const terraform = loadPlatform(project.configPath).platform.clusters.find((c) => c.id === 'prod-eu-01')?.terraform;
const { live } = readLiveExport(SourceFile.readDocuments(LIVE, { maxBytes: MAX_EXPORT_BYTES }, 'live.yaml'), 'live.yaml');

/** The config adoption writes for prod-eu-01 when its release runs in `namespace`. */
function adopted(namespace: string): string {
  if (!terraform || !live) throw new Error('prod-eu-01 or the export did not load');
  return adoptConfig(project.configText, file, terraform, { clusterId: 'prod-eu-01', live, namespace, team: 'platform' }).text;
}
const namespaceOf = (text: string, cluster: string) => loadPlatform(project.configPath, { configText: text }).platform.clusters.find((c) => c.id === cluster)?.karpenter.namespace;

it('writes no namespace when the release runs where the cluster\'s group puts Karpenter', () => {
  const text = adopted('karpenter');
  expect(parse(text).clusters['prod-eu-01'].karpenter).toBeUndefined();
  expect(namespaceOf(text, 'prod-eu-01')).toBe('karpenter');
});

it('writes the cluster\'s namespace when the release runs in kube-system, the fleet\'s default, which the group overrides', () => {
  const text = adopted('kube-system');
  expect(parse(text).clusters['prod-eu-01'].karpenter).toEqual({ namespace: 'kube-system' });
  expect(namespaceOf(text, 'prod-eu-01')).toBe('kube-system');
  expect(namespaceOf(text, 'demo')).toBe('kube-system');
});

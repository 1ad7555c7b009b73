/**
 * Releases per cluster (contract 6.2): a fleet with prod on Karpenter 1.13.1 and staging on
 * 1.14.1, each generated and validated for its own release; what a release lacks is an error
 * naming cluster, version and field, at the field; a release before 1.0, or older than the
 * oldest vendored one, is an error at the version.
 */
import { parseAllDocuments } from 'yaml';
import { loadPlatform } from '../../src/config/load';
import { release, vendoredVersions } from '../../src/release/release';
import { synthesize } from '../../src/synth';
import { aConfig, aTerraform, positionOf, removeProjects, writeProject } from '../builders';
import { validateFor } from '../support/crd-validator';
import { problemsOf } from '../config/helpers';

afterAll(removeProjects);

/** prod on 1.13.1 (its own `karpenter`), staging on the top-level 1.14.1; `prod` and `top` add fields. */
function fleet(prod: Record<string, unknown> = {}, top: Record<string, unknown> = {}) {
  return {
    config: aConfig({
      clusters: {
        demo: undefined,
        prod: { terraformOutputs: 'terraform/prod.json', karpenter: { version: '1.13.1' }, ...prod },
        staging: { terraformOutputs: 'terraform/staging.json' },
      },
      ...top,
    }),
    terraform: { prod: aTerraform({ cluster_name: 'prod' }), staging: aTerraform({ cluster_name: 'staging' }) },
  };
}

describe('what a release accepts', () => {
  it('vendors 1.13.1 beside 1.14.1, and answers for each', () => {
    expect(vendoredVersions()).toEqual(expect.arrayContaining(['1.13.1', '1.14.1']));
    expect(release('1.13.1')?.consolidationPolicies).toEqual(['WhenEmpty', 'WhenEmptyOrUnderutilized']);
    expect(release('1.14.1')?.consolidationPolicies).toContain('Balanced');
    expect(release('1.13.1')?.featureGates).not.toContain('capacityBuffer');
    expect(release('1.14.1')?.featureGates).toContain('capacityBuffer');
    expect(release('1.13.4')?.version).toBe('1.13.1');
    expect(release('1.12.0')).toBeUndefined();
  });
});

describe('a fleet on two releases', () => {
  it('generates each cluster for its own release, valid against its own CRDs', () => {
    const { platform } = loadPlatform(writeProject(fleet()).configPath);
    const files = synthesize(platform);
    for (const [cluster, version] of [['prod', '1.13.1'], ['staging', '1.14.1']]) {
      const pools = [...files].filter(([path]) => path.startsWith(`dist/${cluster}/nodepools/`));
      expect(pools.length).toBeGreaterThan(0);
      for (const [, text] of pools) {
        for (const doc of parseAllDocuments(text)) expect(validateFor(version, doc.toJS())).toEqual([]);
      }
    }
  });

  it('fails when a cluster on 1.13.1 gets consolidationPolicy Balanced (new in 1.14), at the field, naming cluster, version and field', () => {
    const input = fleet({}, { defaults: { disruption: { consolidationPolicy: 'Balanced' } } });
    const text = writeProject(input).configText;
    expect(problemsOf(input)).toEqual([expect.stringMatching(new RegExp(
      `platform\\.yaml:${positionOf(text, 'Balanced')}: defaults\\.disruption\\.consolidationPolicy: cluster prod runs Karpenter 1\\.13\\.1, whose NodePool CRD does not accept consolidationPolicy Balanced \\(allowed: WhenEmpty, WhenEmptyOrUnderutilized\\)`))]);
  });

  it('accepts Balanced on the cluster that runs 1.14.1', () => {
    const input = fleet({}, { clusters: { demo: undefined, prod: { terraformOutputs: 'terraform/prod.json', karpenter: { version: '1.13.1' } },
      staging: { terraformOutputs: 'terraform/staging.json', overrides: { disruption: { consolidationPolicy: 'Balanced' } } } } });
    const { platform } = loadPlatform(writeProject(input).configPath);
    expect(platform.clusters.find((c) => c.id === 'staging')?.pools[0].settings.disruption.consolidationPolicy).toBe('Balanced');
  });

  it('fails when a cluster on 1.13.1 enables a feature gate of 1.14 (capacityBuffer), at the gate', () => {
    expect(problemsOf(fleet({ karpenter: { version: '1.13.1', controller: { featureGates: { capacityBuffer: true } } } }))).toEqual([expect.stringMatching(
      /clusters\.prod\.karpenter\.controller\.featureGates\.capacityBuffer: cluster prod runs Karpenter 1\.13\.1, which has no feature gate capacityBuffer/)]);
  });

  it('fails when a cluster runs Karpenter 0.37.0, which serves no karpenter.sh/v1 API, at the version', () => {
    const input = fleet({ karpenter: { version: '0.37.0' }, kubernetesVersion: '1.30' });
    const text = writeProject(input).configText;
    expect(problemsOf(input)).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(
      `platform\\.yaml:${positionOf(text, '0.37.0')}: clusters\\.prod\\.karpenter\\.version: cluster prod: Karpenter 0\\.37\\.0 serves no karpenter\\.sh/v1 API`))]));
  });

  it('fails when a cluster runs a release older than the oldest vendored one, at the version', () => {
    expect(problemsOf(fleet({ karpenter: { version: '1.12.0' } }))).toEqual([expect.stringMatching(
      /clusters\.prod\.karpenter\.version: cluster prod: Karpenter 1\.12\.0 is older than the oldest vendored release, 1\.13\.1/)]);
  });
});

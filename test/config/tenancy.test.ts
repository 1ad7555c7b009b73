/**
 * `teams.<team>.namespaces` and `tenancy` (issue 22, contract section 6.6): what the loader
 * accepts, where it points when it does not, the warning for a team left open, and a
 * two-cluster fleet where a team runs on one cluster only, its policies evaluated per cluster.
 */
import { synthesize } from '../../src/synth';
import { aConfig, aTerraform, positionOf, removeProjects, writeProject } from '../builders';
import { aFleetConfig } from '../review/fleet';
import { admitAll, PolicyPair } from '../support/admission-policy';
import { aDeploymentPod } from '../support/pods';
import { renderedPolicy } from '../model/tenancy-facts';
import { load, problemsOf, warningsOf } from './helpers';

afterAll(removeProjects);

const withTeams = (teams: Record<string, unknown>, rest: Record<string, unknown> = {}) => ({ config: aConfig({ teams, ...rest }) });

describe('teams.<team>.namespaces', () => {
  it('gives each of the team\'s pools its namespaces, in every cluster', () => {
    const { platform } = load(withTeams({ web: { namespaces: ['web', 'web-jobs'], pools: { batch: {} } } }));
    expect(platform.clusters[0].pools.map((p) => [p.name, p.namespaces])).toEqual([['web', ['web', 'web-jobs']], ['web-batch', ['web', 'web-jobs']]]);
  });

  it('fails when a namespace is not a DNS-1123 label, at its line', () => {
    const input = withTeams({ web: { namespaces: ['web', 'Web_Jobs'] } });
    const { configText } = writeProject(input);
    expect(problemsOf(input)).toEqual([expect.stringMatching(new RegExp(
      `platform\\.yaml:${positionOf(configText, 'Web_Jobs')}: teams\\.web\\.namespaces\\[1\\]: "Web_Jobs": must be a DNS-1123 label`,
    ))]);
  });

  it('fails when a namespace is listed twice', () => {
    expect(problemsOf(withTeams({ web: { namespaces: ['web', 'web'] } }))).toEqual([expect.stringMatching(/teams\.web\.namespaces: each namespace may appear once$/)]);
  });

  it('fails when the list is empty (no namespace at all would lock the team out)', () => {
    expect(problemsOf(withTeams({ web: { namespaces: [] } }))).toEqual([expect.stringMatching(/teams\.web\.namespaces: list at least one namespace/)]);
  });

  it('fails when a cluster sets namespaces for a team (they belong to the team)', () => {
    expect(problemsOf({ config: aConfig({ clusters: { demo: { terraformOutputs: 'terraform/demo.json', teams: { web: { namespaces: ['web'] } } } } }) }))
      .toEqual([expect.stringMatching(/clusters\.demo\.teams\.web\.namespaces: unknown (key|field)/)]);
  });

  it('fails when tenancy.action is not Deny, Warn or Audit', () => {
    expect(problemsOf(withTeams({ web: { namespaces: ['web'] } }, { tenancy: { action: 'Block' } })))
      .toEqual([expect.stringMatching(/tenancy\.action: .*Deny.*Warn.*Audit/)]);
  });

  it('takes a cluster\'s tenancy.action over the top-level one', () => {
    const { platform } = load({
      config: aConfig({ tenancy: { action: 'Audit' }, clusters: { demo: { terraformOutputs: 'terraform/demo.json', tenancy: { action: 'Warn' } } }, teams: { web: { namespaces: ['web'] } } }),
    });
    expect(platform.clusters[0].tenancyAction).toBe('Warn');
  });

  it('warns, at the team, for each team without namespaces once another team has them', () => {
    const input = withTeams({ web: { namespaces: ['web'] }, ml: {}, data: null });
    const { configText } = writeProject(input);
    expect(warningsOf(input)).toEqual([
      expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(configText, 'ml:')}: teams\\.ml: team ml has no namespaces: pods of any namespace may use its pools`)),
      expect.stringMatching(/teams\.data: team data has no namespaces/),
    ]);
  });

  it('does not warn while no team lists namespaces (the policy is not in use)', () => {
    expect(warningsOf(withTeams({ web: {}, ml: {} }))).toEqual([]);
  });

  it('takes tenancy.exemptNamespaces, a cluster\'s over the top-level one', () => {
    const { platform } = load({
      config: aConfig({
        tenancy: { exemptNamespaces: ['monitoring'] },
        clusters: { demo: { terraformOutputs: 'terraform/demo.json' }, edge: { terraformOutputs: 'terraform/edge.json', tenancy: { exemptNamespaces: ['logging'] } } },
        teams: { web: { namespaces: ['web'] } },
      }),
      terraform: { demo: aTerraform({ cluster_name: 'demo' }), edge: aTerraform({ cluster_name: 'edge' }) },
    });
    expect(platform.clusters.map((c) => [c.id, c.tenancyExemptNamespaces])).toEqual([['demo', ['monitoring']], ['edge', ['logging']]]);
  });

  it('fails when karpenter.namespace is default: the policy never looks at it, and anyone\'s pods run there', () => {
    const input = withTeams({ web: { namespaces: ['web'] } }, { karpenter: { version: '1.14.1', namespace: 'default' } });
    const { configText } = writeProject(input);
    expect(problemsOf(input)).toEqual([expect.stringMatching(new RegExp(
      `platform\\.yaml:${positionOf(configText, 'default')}: karpenter\\.namespace: is default: the tenancy policy never looks at Karpenter's namespace`,
    ))]);
  });

  it('fails when a cluster runs Karpenter in a team\'s namespace, at the cluster\'s field', () => {
    const input = { config: aConfig({ clusters: { demo: { terraformOutputs: 'terraform/demo.json', karpenter: { namespace: 'web' } } }, teams: { web: { namespaces: ['web'] } } }) };
    expect(problemsOf(input)).toEqual(expect.arrayContaining([expect.stringMatching(/clusters\.demo\.karpenter\.namespace: is also team web's namespace \(teams\.<team>\.namespaces\): the tenancy policy never looks at Karpenter's namespace/)]));
  });

  it('fails when an exempt namespace is a team\'s, or default, each at its entry', () => {
    const input = withTeams({ web: { namespaces: ['web'] } }, { tenancy: { exemptNamespaces: ['monitoring', 'web', 'default'] } });
    expect(problemsOf(input)).toEqual([
      expect.stringMatching(/tenancy\.exemptNamespaces\[1\]: is also team web's namespace \(teams\.<team>\.namespaces\): a namespace is either exempt .* or a team's/),
      expect.stringMatching(/tenancy\.exemptNamespaces\[2\]: is default, where anyone's pods run/),
    ]);
  });

  it('fails when a team lists kube-system, which the policy never looks at', () => {
    expect(problemsOf(withTeams({ web: { namespaces: ['web', 'kube-system'] } }))).toEqual([expect.stringMatching(/teams\.web\.namespaces\[1\]: is kube-system, which the tenancy policy never looks at/)]);
  });

  it('accepts karpenter.namespace default while no team lists namespaces (there is no policy to escape)', () => {
    expect(load(withTeams({ web: {} }, { karpenter: { version: '1.14.1', namespace: 'default' } })).platform.clusters[0].karpenter.namespace).toBe('default');
  });

  it('fails when the cluster\'s Kubernetes is older than 1.30 (no admissionregistration.k8s.io/v1 policies)', () => {
    const input = { config: aConfig({ clusters: { demo: { terraformOutputs: 'terraform/demo.json', kubernetesVersion: '1.29' } }, teams: { web: { namespaces: ['web'] } } }) };
    expect(problemsOf(input)).toEqual(expect.arrayContaining([
      expect.stringMatching(/teams\.web\.namespaces: cluster demo runs Kubernetes 1\.29, .* needs 1\.30 or later/),
    ]));
  });
});

describe('tenancy settings a group sets (issue 43): one source of each, so a group sets nothing a cluster may not', () => {
  /** Clusters demo and edge, both in group prod with `group`'s fields; team web in namespace web; `rest` merged in. */
  const inGroup = (group: Record<string, unknown>, rest: Record<string, unknown> = {}) => ({
    config: aConfig({
      clusters: { demo: { terraformOutputs: 'terraform/demo.json' }, edge: { terraformOutputs: 'terraform/edge.json' } },
      groups: { prod: { match: { clusters: ['demo', 'edge'] }, ...group } },
      teams: { web: { namespaces: ['web'] } },
      ...rest,
    }),
    terraform: { demo: aTerraform({ cluster_name: 'demo' }), edge: aTerraform({ cluster_name: 'edge' }) },
  });
  /** `line:col` of the value of the `nth` `key: value` in a config's text. */
  const valueAt = (text: string, key: string, value: string, nth = 1) => {
    const [line, col] = positionOf(text, `${key}: ${value}`, nth).split(':').map(Number);
    return `${line}:${col + key.length + 2}`;
  };

  it('fails when a group sets karpenter.namespace default, at the group\'s line, once for all its clusters', () => {
    const input = inGroup({ karpenter: { namespace: 'default' } });
    const { configText } = writeProject(input);
    expect(problemsOf(input)).toEqual([expect.stringMatching(new RegExp(
      `platform\\.yaml:${valueAt(configText, 'namespace', 'default')}: groups\\.prod\\.karpenter\\.namespace: is default: the tenancy policy never looks at Karpenter's namespace, `
      + 'and default is where anyone\'s pods run',
    ))]);
  });

  it('fails when a group runs Karpenter in a team\'s namespace, at the group\'s field', () => {
    const input = inGroup({ karpenter: { namespace: 'web' } });
    const { configText } = writeProject(input);
    expect(problemsOf(input)).toEqual([expect.stringMatching(new RegExp(
      `platform\\.yaml:${valueAt(configText, 'namespace', 'web')}: groups\\.prod\\.karpenter\\.namespace: is also team web's namespace \\(teams\\.<team>\\.namespaces\\): `
      + 'the tenancy policy never looks at Karpenter\'s namespace',
    ))]);
  });

  it('fails when a group exempts default or a team\'s namespace, each at its entry in the group', () => {
    expect(problemsOf(inGroup({ tenancy: { exemptNamespaces: ['monitoring', 'web', 'default'] } }))).toEqual([
      expect.stringMatching(/groups\.prod\.tenancy\.exemptNamespaces\[1\]: is also team web's namespace \(teams\.<team>\.namespaces\): a namespace is either exempt .* or a team's/),
      expect.stringMatching(/groups\.prod\.tenancy\.exemptNamespaces\[2\]: is default, where anyone's pods run/),
    ]);
  });

  it('fails at a later group\'s namespace over an earlier group\'s, and not at the earlier one\'s, which no cluster runs', () => {
    const input = inGroup({ karpenter: { namespace: 'karpenter' } }, { groups: {
      prod: { match: { clusters: ['demo', 'edge'] }, karpenter: { namespace: 'karpenter' } },
      edge: { match: { clusters: ['edge'] }, karpenter: { namespace: 'default' } },
    } });
    expect(problemsOf(input)).toEqual([expect.stringMatching(/groups\.edge\.karpenter\.namespace: is default: /)]);
  });

  it('accepts a group\'s default where every cluster of the group runs Karpenter in a namespace of its own', () => {
    const input = inGroup({ karpenter: { namespace: 'default' } }, {
      clusters: { demo: { terraformOutputs: 'terraform/demo.json', karpenter: { namespace: 'karpenter' } }, edge: { terraformOutputs: 'terraform/edge.json', karpenter: { namespace: 'kube-system' } } },
    });
    expect(load(input).platform.clusters.map((c) => [c.id, c.karpenter.namespace])).toEqual([['demo', 'karpenter'], ['edge', 'kube-system']]);
  });

  it('gives the group\'s Karpenter namespace and exempt namespaces to its clusters\' policies', () => {
    const { platform } = load(inGroup({ karpenter: { namespace: 'platform' }, tenancy: { exemptNamespaces: ['monitoring'] } }));
    expect(platform.clusters.map((c) => [c.id, c.karpenter.namespace, c.tenancyExemptNamespaces])).toEqual([['demo', 'platform', ['monitoring']], ['edge', 'platform', ['monitoring']]]);
  });
});

describe('a two-cluster fleet where team ml runs on prod only', () => {
  const config = aFleetConfig(['prod', 'staging'], {
    clusters: { staging: { teams: ['web'] } },
    teams: {
      web: { namespaces: ['web'], limits: { cpu: '10' } },
      ml: { namespaces: ['ml'], defaultPool: false, pools: { gpu: { instanceFamilies: ['g5', 'g6'], taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }], smokeTest: { resources: { 'nvidia.com/gpu': 1 } } } } },
    },
  });
  const project = writeProject({ config, terraform: { prod: aTerraform({ cluster_name: 'prod' }), staging: aTerraform({ cluster_name: 'staging' }) } });
  const { platform } = load({ config, terraform: { prod: aTerraform({ cluster_name: 'prod' }), staging: aTerraform({ cluster_name: 'staging' }) } });
  const files = synthesize(platform);
  const policyOf = (cluster: string): PolicyPair[] => renderedPolicy(files, cluster);
  const borrowsMl = aDeploymentPod({
    tolerations: [{ key: 'dedicated', value: 'ml', effect: 'NoSchedule' }, { key: 'nvidia.com/gpu', operator: 'Exists' }], nodeSelector: { 'karpenter.sh/nodepool': 'ml-gpu' },
  });

  it('has a policy per cluster, each with the pools that cluster runs', () => {
    expect(project.configText).toContain('namespaces');
    expect(JSON.stringify(policyOf('prod'))).toContain('ml-gpu');
    expect(JSON.stringify(policyOf('staging'))).not.toContain('ml-gpu');
  });

  it('fails on prod when web\'s pod borrows ml\'s GPU pool', () => {
    const decision = admitAll(policyOf('prod'), { operation: 'CREATE', namespace: 'web', object: borrowsMl });
    expect(decision.message).toMatch(/namespace web may not use team ml's pool ml-gpu \(the pod tolerates its taint dedicated=ml:NoSchedule\): only pods of namespaces ml, karpenter-smoke-tests may$/);
  });

  it('admits the same pod on staging, where no pool of ml exists to guard (it stays Pending there)', () => {
    expect(admitAll(policyOf('staging'), { operation: 'CREATE', namespace: 'web', object: borrowsMl }).outcome).not.toBe('refused');
  });

  it('admits ml\'s own pod on prod', () => {
    expect(admitAll(policyOf('prod'), { operation: 'CREATE', namespace: 'ml', object: borrowsMl }).outcome).not.toBe('refused');
  });
});

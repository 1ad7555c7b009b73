/**
 * The dry run of every pool against Karpenter's instance-type catalog (contract 5.3): a pool
 * that could never launch a node fails synth at the field that causes it, with the exact message.
 */
import { aConfig, positionOf, removeProjects, writeProject } from '../builders';
import { load, problemsOf, warningsOf } from './helpers';
import { parse } from 'yaml';
import { loadPlatform } from '../../src/config/load';
import { synthesize } from '../../src/synth';
import { fleetPlan } from '../../src/model/plan';
import { InputError, formatProblem } from '../../src/input/problems';

afterAll(removeProjects);

const withWeb = (web: Record<string, unknown>) => ({ config: aConfig({ teams: { web } }) });

/** The problem lines of a config, each with `<line>:<col>` where `needle` first occurs in the config text. */
function locatedProblems(web: Record<string, unknown>): { problems: string[]; at: (needle: string, nth?: number) => string } {
  const project = writeProject(withWeb(web));
  let problems: string[] = [];
  try {
    loadPlatform(project.configPath);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    problems = err.problems.map(formatProblem);
  }
  return { problems, at: (needle, nth = 1) => positionOf(project.configText, needle, nth) };
}

describe('pools that can never launch a node', () => {
  it('fails at a family that no instance type has, naming the closest real ones when nothing tells them apart', () => {
    const { problems, at } = locatedProblems({ instanceFamilies: ['g6x'] });
    expect(problems).toEqual([expect.stringMatching(new RegExp(
      `platform\\.yaml:${at('g6x')}: teams\\.web\\.instanceFamilies\\[0\\]: no instance type has karpenter\\.k8s\\.aws/instance-family=g6x \\(did you mean "g6", "g6e" or "g6f"\\?\\)$`,
    ))]);
  });

  it('fails at a family that no instance type has even when the others match, suggesting the one like its sibling: m7l beside c7i is m7i', () => {
    const { problems, at } = locatedProblems({ instanceFamilies: ['m7l', 'c7i'] });
    expect(problems).toEqual([expect.stringMatching(new RegExp(
      `platform\\.yaml:${at('m7l')}: teams\\.web\\.instanceFamilies\\[0\\]: no instance type has karpenter\\.k8s\\.aws/instance-family=m7l `
      + '\\(did you mean "m7i"\\? it shares generation 7, suffix "i" and intel cpu with c7i beside it, which m7a and m7g do not\\)$',
    ))]);
  });

  it.each([
    ['an instance type', { instanceTypes: ['m5.large', 'm5.xlargee'] }, /teams\.web\.instanceTypes\[1\]: no instance type has node\.kubernetes\.io\/instance-type=m5\.xlargee \(did you mean "m5\.xlarge"\?\)$/],
    ['a category', { instanceCategories: ['c', 'mm'] }, /teams\.web\.instanceCategories\[1\]: no instance type has karpenter\.k8s\.aws\/instance-category=mm \(did you mean "im" or "m"\?\)$/],
    ['a family with a doubled letter', { instanceFamilies: ['c7ii', 'm7i'] }, /teams\.web\.instanceFamilies\[0\]: no instance type has karpenter\.k8s\.aws\/instance-family=c7ii \(did you mean "c7i"\?\)$/],
    ['a family with two letters swapped (its sibling tells r8g from r8gd)', { arch: ['arm64'], instanceFamilies: ['r8dg', 'm8g'] },
      /teams\.web\.instanceFamilies\[0\]: no instance type has karpenter\.k8s\.aws\/instance-family=r8dg \(did you mean "r8g"\? it shares generation 8, suffix "g" and aws cpu with m8g beside it, which r8gd does not\)$/],
    ['a size in requirements', { requirements: [{ key: 'karpenter.k8s.aws/instance-size', operator: 'In', values: ['large', 'xlargee'] }] },
      /teams\.web\.requirements\[0\]\.values\[1\]: no instance type has karpenter\.k8s\.aws\/instance-size=xlargee \(did you mean "xlarge"\?\)$/],
    ['a family a NotIn excludes (it would exclude nothing)', { requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'NotIn', values: ['t3aa'] }] },
      /teams\.web\.requirements\[0\]\.values\[0\]: no instance type has karpenter\.k8s\.aws\/instance-family=t3aa \(did you mean "t3a"\?\)$/],
  ])('fails at %s no instance type has, with the ranked suggestion', (_what, web, re) => {
    expect(problemsOf(withWeb(web))).toEqual([expect.stringMatching(re)]);
  });

  it('accepts a real family that reads like a typo (r8gd: r8g with local NVMe)', () => {
    expect(load(withWeb({ arch: ['arm64'], instanceFamilies: ['r8gd'] })).platform.clusters[0].pools[0].settings.instanceFamilies).toEqual(['r8gd']);
  });

  it('says a conflict the typo alone makes once, at the typo; a conflict the suggestion would not fix is its own error', () => {
    // c7i is no category m: the pool admits nothing, but with m7i for m7l it would.
    expect(problemsOf(withWeb({ instanceFamilies: ['m7l', 'c7i'], instanceCategories: ['m'] }))).toEqual([
      expect.stringMatching(/teams\.web\.instanceFamilies\[0\]: no instance type has karpenter\.k8s\.aws\/instance-family=m7l/),
    ]);
    expect(problemsOf(withWeb({ instanceFamilies: ['m7l', 'c7i'], instanceCategories: ['r'] }))).toEqual([
      expect.stringMatching(/teams\.web\.instanceFamilies\[0\]: no instance type has karpenter\.k8s\.aws\/instance-family=m7l/),
      expect.stringMatching(/teams\.web\.instanceCategories: pool web can never launch a node: instanceFamilies and instanceCategories conflict: /),
    ]);
  });

  it('runs in the same run as a problem of another field of the pool (a kubelet field the release refuses)', () => {
    expect(problemsOf(withWeb({ instanceFamilies: ['m7l', 'c7i'], kubelet: { shutdownGracePeriod: '30s' } }))).toEqual([
      expect.stringMatching(/teams\.web\.instanceFamilies\[0\]: no instance type has karpenter\.k8s\.aws\/instance-family=m7l \(did you mean "m7i"\?/),
      expect.stringMatching(/teams\.web\.kubelet\.shutdownGracePeriod: unknown key "shutdownGracePeriod": cluster demo runs Karpenter 1\.14\.1/),
    ]);
  });

  it('fails at an instance type written where a family belongs, naming its family', () => {
    const { problems } = locatedProblems({ instanceFamilies: ['p5.48xlarge'] });
    expect(problems).toEqual([expect.stringMatching(
      /teams\.web\.instanceFamilies\[0\]: "p5\.48xlarge" is an instance type, not a karpenter\.k8s\.aws\/instance-family; its karpenter\.k8s\.aws\/instance-family is "p5"$/,
    )]);
  });

  it('fails naming the two fields that conflict: an arm64-only instance type with arch amd64', () => {
    const { problems, at } = locatedProblems({ arch: ['amd64'], instanceTypes: ['m7g.large'] });
    expect(problems).toEqual([expect.stringMatching(new RegExp(
      `platform\\.yaml:${at('m7g.large').split(':')[0]}:\\d+: teams\\.web\\.instanceTypes: pool web can never launch a node: arch and instanceTypes conflict: `
      + 'kubernetes\\.io/arch In \\[amd64\\] and node\\.kubernetes\\.io/instance-type In \\[m7g\\.large\\] together admit no instance type: m7g\\.large has kubernetes\\.io/arch=arm64$',
    ))]);
  });

  it('fails when bounds leave no instance type', () => {
    expect(problemsOf(withWeb({ instanceGeneration: { gt: 40 } }))).toEqual([expect.stringMatching(
      /teams\.web\.instanceGeneration\.gt: pool web can never launch a node: karpenter\.k8s\.aws\/instance-generation Gt \[40\] admits no instance type/,
    )]);
  });

  it('fails when a requirement on a label the instance types lack admits nothing (In needs the label)', () => {
    expect(problemsOf(withWeb({ instanceFamilies: ['m7i'], requirements: [{ key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'Exists' }] }))).toEqual([
      expect.stringMatching(/teams\.web\.requirements\[0\]: pool web can never launch a node: .*instance-gpu-count/),
    ]);
  });

  it('fails at minValues when the admitted types cannot show that many values', () => {
    const { problems } = locatedProblems({
      instanceTypes: ['c7i.large'],
      requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['c7i', 'm7i'], minValues: 2 }],
    });
    expect(problems).toEqual([expect.stringMatching(
      /teams\.web\.requirements\[0\]\.minValues: pool web can never launch a node: karpenter\.k8s\.aws\/instance-family In \[c7i, m7i\] needs 2 distinct karpenter\.k8s\.aws\/instance-family values among the admitted instance types, they have 1 \(c7i\)$/,
    )]);
  });

  it('fails when the smoke test requests more than any admitted type can give a pod', () => {
    const { problems, at } = locatedProblems({ instanceTypes: ['m7i.large'], smokeTest: { cpu: '4' } });
    expect(problems).toEqual([expect.stringMatching(new RegExp(
      `platform\\.yaml:${at('"4"')}: teams\\.web\\.smokeTest\\.cpu: pool web's smoke test requests 4 cpu, more than any instance type the pool admits can give a pod \\(at most 1930m on m7i\\.large\\): it would stay Pending$`,
    ))]);
  });

  it('fails when a GPU pool\'s smoke test requests no GPU', () => {
    expect(problemsOf(withWeb({ instanceFamilies: ['g5'] }))).toEqual([expect.stringMatching(
      /teams\.web: pool web admits only accelerator instance types, but its smoke test requests none, so it would not show that pods can get one: set smokeTest\.resources: \{ nvidia\.com\/gpu: 1 \}$/,
    )]);
  });

  it('accepts a GPU pool whose smoke test requests a GPU, and puts the GPU in the Deployment', () => {
    const { platform } = load(withWeb({ instanceFamilies: ['g5'], smokeTest: { resources: { 'nvidia.com/gpu': 1 } } }));
    expect(fleetPlan(platform).clusters[0].pools[0].facts.admitted.length).toBe(8);
    const deployment = parse(synthesize(platform).get('dist/demo/smoke-tests/web.yaml') ?? '');
    expect(deployment.spec.template.spec.containers[0].resources.limits).toEqual({ memory: '1024Mi', 'nvidia.com/gpu': 1 });
  });
});

describe('warnings of the dry run', () => {
  it('warns when no limit of a pool bounds it (the plan\'s ceiling is unbounded)', () => {
    expect(warningsOf({ config: aConfig({ defaults: { limits: undefined }, teams: { web: { instanceFamilies: ['m7i'] } } }) })).toEqual([expect.stringMatching(
      /teams\.web: pool web has no limit that bounds it: Karpenter may launch nodes without bound \(\d+ instance types, up to \$\d+\.\d\d\/hour each, ceiling at us-east-1 on-demand list price after NodeOverlays\); set limits: \{ cpu: \.\.\., memory: \.\.\. \} or limits\.nodes$/,
    )]);
  });

  it('does not warn about a pool bounded by limits.nodes alone, or a static pool: their ceiling is bounded (as explain says)', () => {
    expect(warningsOf({ config: aConfig({ defaults: { limits: undefined }, teams: { web: { instanceFamilies: ['m7i'], limits: { nodes: '4' } } } }) })).toEqual([]);
    expect(warningsOf({ config: aConfig({ defaults: { limits: undefined }, teams: { web: { instanceFamilies: ['m7i'], replicas: 2 } } }) })).toEqual([]);
  });

  it('warns when a spot pool has few instance types to choose from, and says why that matters', () => {
    expect(warningsOf(withWeb({ capacityTypes: ['spot'], instanceTypes: ['m7i.large', 'm7i.xlarge'] }))).toEqual([expect.stringMatching(
      /teams\.web\.capacityTypes: pool web uses spot with only 2 instance type\(s\) to choose from: spot capacity of few types runs out and is interrupted more often, and single-node spot-to-spot consolidation needs 15; allow at least 10/,
    )]);
  });

  it('warns when a spot pool has fewer than 15 instance types: single-node spot-to-spot consolidation needs 15', () => {
    const { platform, warnings } = load(withWeb({ capacityTypes: ['spot'], instanceFamilies: ['m7i'] }));
    const count = fleetPlan(platform).clusters[0].pools[0].facts.admitted.length;
    expect(count).toBeGreaterThanOrEqual(10);
    expect(count).toBeLessThan(15);
    expect(warnings.map(formatProblem)).toEqual([expect.stringMatching(new RegExp(
      `teams\\.web\\.capacityTypes: pool web uses spot with ${count} instance types: single-node spot-to-spot consolidation needs at least 15 \\(SpotToSpotConsolidation\\)`,
    ))]);
  });

  it('leaves keys that are not instance-type labels to the cluster: zones and custom labels filter nothing', () => {
    const { platform } = load(withWeb({ zones: ['ap-northeast-2z'], requirements: [{ key: 'example.com/rack', operator: 'In', values: ['r1'] }] }));
    expect(fleetPlan(platform).clusters[0].pools[0].facts.admitted.length).toBeGreaterThan(500);
  });
});

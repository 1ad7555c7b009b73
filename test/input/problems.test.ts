/**
 * One line per problem however many clusters share it (src/input/problems.ts collapseShared).
 */
import { aboutCluster, collapseShared, formatProblem, InputError, Problem } from '../../src/input/problems';

const at = (message: string, cluster?: string, line = 4): Problem => ({
  file: 'config/platform.yaml', line, col: 12, path: 'karpenter.version', message, ...(cluster !== undefined ? { cluster } : {}),
});
const runs = (id: string) => at(`cluster ${id} runs Karpenter 0.37.0: upgrade it first (clusters.${id}.karpenter.version)`, id);

describe('collapseShared', () => {
  it('prints a problem the clusters share once, with the count and the first three, the message the first\'s', () => {
    expect(collapseShared(['prod-eu-01', 'prod-us-01', 'prod-ap-01', 'prod-eu-02', 'prod-us-02'].map(runs)).map(formatProblem)).toEqual([
      'config/platform.yaml:4:12: karpenter.version: on 5 clusters (prod-eu-01, prod-us-01, prod-ap-01 and 2 more), as on the first: '
        + 'cluster prod-eu-01 runs Karpenter 0.37.0: upgrade it first (clusters.prod-eu-01.karpenter.version)',
    ]);
    expect(collapseShared(['a', 'b'].map(runs))[0].message).toMatch(/^on 2 clusters \(a and b\), as on the first: cluster a runs/);
  });

  it('keeps the problems a shared line stands for, one per cluster, for synth --verbose', () => {
    const [line] = collapseShared(['prod-eu-01', 'prod-us-01', 'prod-ap-01'].map(runs));
    expect(line.grouped?.map(formatProblem)).toEqual(['prod-eu-01', 'prod-us-01', 'prod-ap-01'].map((c) => formatProblem(runs(c))));
    expect(collapseShared([runs('a')])[0].grouped).toBeUndefined();
  });

  it('keeps apart what differs in more than the cluster, or is at another place', () => {
    expect(collapseShared([runs('a'), at('cluster b runs Karpenter 0.36.0: upgrade it first (clusters.b.karpenter.version)', 'b'), { ...runs('c'), line: 9 }])).toHaveLength(3);
  });

  it('reads the cluster as a whole word only: cluster prod is not in prod-eu-01', () => {
    const prod = at('cluster prod-eu-01 runs Karpenter 0.37.0', 'prod');
    expect(aboutCluster(prod, 'prod')).toBe(prod);
    expect(collapseShared([prod, at('cluster prod-eu-01 runs Karpenter 0.37.0', 'dev')]).map((p) => p.message)).toEqual(['cluster prod-eu-01 runs Karpenter 0.37.0']);
  });

  it('prints the same problem twice once, and one about no cluster as it is', () => {
    const plain = at('unknown window "x"');
    expect(collapseShared([plain, plain, runs('a'), runs('a')])).toEqual([plain, runs('a')]);
  });

  it('is what an InputError carries and counts', () => {
    expect(new InputError(['a', 'b', 'c'].map(runs)).problems).toHaveLength(1);
  });
});

import { classify, resourcesOf } from '../../src/review/changes';
import { COMMENT_MARKER, markdownReport, terminalReport } from '../../src/review/report';
import { renderYaml } from '../../src/output/render';

const pool = (name: string, weight?: number) => ({
  apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name, labels: { team: name } },
  spec: { ...(weight ? { weight } : {}), template: { spec: { nodeClassRef: { name } } } },
});
const files = (...pools: object[]) => new Map(pools.map((p) => [`dist/demo/nodepools/${(p as { metadata: { name: string } }).metadata.name}.yaml`, renderYaml([p])]));

describe('reports', () => {
  const changes = classify(resourcesOf(files(pool('web'), pool('ml'))), resourcesOf(files(pool('web', 10))));

  it('renders markdown for a sticky PR comment: marker, counts, one table per risk, loudest first', () => {
    const md = markdownReport(changes, 'origin/main');
    expect(md.startsWith(`${COMMENT_MARKER}\n`)).toBe(true);
    expect(md.indexOf('DESTRUCTIVE')).toBeLessThan(md.indexOf('CAPACITY'));
    expect(md).toMatchSnapshot();
  });

  it('renders a terminal report naming the resource, cluster and fields', () => {
    const text = terminalReport(changes, 'HEAD');
    expect(text).toMatch(/^karpenter-gitops diff: HEAD -> working tree$/m);
    expect(text).toMatch(/NodePool ml \(cluster demo\) removed: every node of the pool drains/);
    expect(text).toMatch(/spec\.weight: \(unset\) -> 10/);
  });

  it('says so when nothing changed', () => {
    expect(markdownReport([], 'origin/main')).toMatch(/No change to any generated resource/);
    expect(terminalReport([], 'HEAD')).toMatch(/no changes to the generated resources/);
  });
});

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

  it('stays under GitHub\'s comment limit for a change of hundreds of pools, keeping every destructive change named', () => {
    const many = (n: number, weight?: number) => files(...Array.from({ length: n }, (_, i) => pool(`pool-${String(i).padStart(3, '0')}`, weight)));
    const base = new Map([...many(600), ...files(...Array.from({ length: 250 }, (_, i) => pool(`gone-${i}`)))]);
    const big = classify(resourcesOf(base), resourcesOf(many(600, 7)));
    const md = markdownReport(big, 'origin/main', { fullReportUrl: 'https://github.com/acme/gitops/actions/runs/1' });
    expect(md.length).toBeLessThanOrEqual(65_536);
    expect(md).toMatch(/^250 destructive, 0 replaces-nodes, 600 capacity, 0 controller, 0 other$/m);
    for (let i = 0; i < 250; i++) expect(md).toContain(`NodePool \`gone-${i}\` (removed)`);
    expect(md).toMatch(/^- cluster demo: 600 NodePool changed$/m);
    expect(md).toMatch(/This report was shortened to fit a GitHub comment\. The full report: \[the workflow run's `karpenter-diff` artifact\]\(https:\/\/github\.com\/acme\/gitops\/actions\/runs\/1\), or `npm run diff -- --base origin\/main` locally\./);
  });

  it('cuts the destructive list, counting what it leaves out, when even that does not fit', () => {
    const base = files(...Array.from({ length: 300 }, (_, i) => pool(`gone-${i}`)));
    const md = markdownReport(classify(resourcesOf(base), resourcesOf(new Map())), 'origin/main', { maxChars: 5_000 });
    expect(md.length).toBeLessThanOrEqual(5_000);
    expect(md).toMatch(/^\| … \d+ more destructive change\(s\) \| \| see the full report \| \|$/m);
  });

  it('says so when nothing changed', () => {
    expect(markdownReport([], 'origin/main')).toMatch(/No change to any generated resource/);
    expect(terminalReport([], 'HEAD')).toMatch(/no changes to the generated resources/);
  });
});

import { review, Review } from '../../src/review/changes';
import { COMMENT_MARKER, markdownReport, terminalReport } from '../../src/review/report';
import { GeneratedTree } from '../../src/review/tree';
import { renderYaml } from '../../src/output/render';

const pool = (name: string, weight?: number) => ({
  apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name, labels: { team: name } },
  spec: { ...(weight ? { weight } : {}), template: { spec: { nodeClassRef: { name } } } },
});

/** Files of NodePools, `cluster/name` or `name` (cluster demo). */
function files(...pools: ReturnType<typeof pool>[]): Map<string, string> {
  return new Map(pools.map((p) => {
    const [cluster, name] = p.metadata.name.includes('/') ? p.metadata.name.split('/') : ['demo', p.metadata.name];
    return [`dist/${cluster}/nodepools/${name}.yaml`, renderYaml([{ ...p, metadata: { ...p.metadata, name } }])];
  }));
}

function compare(before: Map<string, string>, after: Map<string, string>): Review {
  return review(new GeneratedTree(before, 'origin/main'), new GeneratedTree(after, 'the working tree'));
}

describe('reports', () => {
  const changes = compare(files(pool('prod/web'), pool('prod/ml'), pool('dev/web')), files(pool('prod/web'), pool('dev/web', 10)));

  it('renders markdown for a sticky PR comment: marker, counts, a table per cluster, loudest first', () => {
    const md = markdownReport(changes, 'origin/main');
    expect(md.startsWith(`${COMMENT_MARKER}\n`)).toBe(true);
    expect(md.indexOf('Cluster `prod`')).toBeLessThan(md.indexOf('Cluster `dev`'));
    expect(md).toMatchSnapshot();
  });

  it('renders a terminal report grouped by cluster, naming each resource and field', () => {
    expect(terminalReport(changes, 'HEAD').split('\n')).toEqual([
      'karpenter-gitops diff: HEAD -> working tree',
      '1 destructive, 0 replaces-nodes, 1 capacity, 0 access, 0 controller, 0 other',
      '',
      'To approve (2 changes, each on every resource it names below):',
      '  🛑 NodePool removed ×1 on cluster prod: every node of the pool drains, whatever the disruption budgets say',
      '  📈 NodePool changed ×1 on cluster dev: weight added: 10 — not in spec.template: no node drifts',
      '',
      'Every change, by cluster:',
      '',
      'cluster prod: 1 destructive',
      '  🛑 NodePool ml removed: every node of the pool drains, whatever the disruption budgets say',
      '',
      'cluster dev: 1 capacity',
      '  📈 NodePool web changed: no node is replaced: changes how much Karpenter launches, or when it consolidates',
      '      weight added: 10 — not in spec.template: no node drifts',
      '',
    ]);
  });

  it('stays under GitHub\'s comment limit for a change of hundreds of pools, keeping every destructive change named', () => {
    const many = (cluster: string, n: number, weight?: number) => files(...Array.from({ length: n }, (_, i) => pool(`${cluster}/pool-${String(i).padStart(3, '0')}`, weight)));
    const gone = files(...Array.from({ length: 250 }, (_, i) => pool(`prod/gone-${i}`)));
    const big = compare(new Map([...many('prod', 300), ...many('dev', 300), ...gone]), new Map([...many('prod', 300, 7), ...many('dev', 300, 7)]));
    const md = markdownReport(big, 'origin/main', { fullReportUrl: 'https://github.com/acme/gitops/actions/runs/1' });
    expect(md.length).toBeLessThanOrEqual(65_536);
    expect(md).toMatch(/^250 destructive, 0 replaces-nodes, 600 capacity, 0 access, 0 controller, 0 other$/m);
    for (let i = 0; i < 250; i++) expect(md).toContain(`| 🛑 | NodePool \`gone-${i}\` removed |`);
    expect(md).toMatch(/^#### Cluster `prod`: 🛑 250 destructive, 📈 300 capacity\n\n- 📈 capacity: 300 NodePool changed$/m);
    expect(md).toMatch(/^#### Cluster `dev`: 📈 300 capacity\n\n- 📈 capacity: 300 NodePool changed$/m);
    expect(md).toMatch(/The full report \(every resource, every field\): \[the workflow run's `karpenter-diff` artifact\]\(https:\/\/github\.com\/acme\/gitops\/actions\/runs\/1\), or `npm run diff -- --base origin\/main --full` locally\./);
    // What to approve comes first, grouped: 300 identical changes on each cluster read as one change.
    expect(md).toMatch(/^- 📈 NodePool changed ×600 on 2 clusters: weight 0 → 7|^- 📈 NodePool changed ×600 on 2 clusters: weight added: 7/m);
  });

  it('cuts the destructive list, counting what it leaves out, when even that does not fit', () => {
    const base = files(...Array.from({ length: 300 }, (_, i) => pool(`gone-${i}`)));
    const md = markdownReport(compare(base, new Map()), 'origin/main', { maxChars: 5_000 });
    expect(md.length).toBeLessThanOrEqual(5_000);
    expect(md).toMatch(/^#### Cluster `demo` \(removed\): 🛑 300 destructive$/m);
    expect(md).toMatch(/^> … \d+ more destructive change\(s\): see the full report$/m);
  });

  it('keeps table cells free of HTML and pipes', () => {
    const cls = (userData: string) => new Map([
      ['dist/demo/nodepools/w.yaml', renderYaml([
        { apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name: 'w' }, spec: { userData, role: 'a|b' } },
        { ...pool('w') },
      ])],
    ]);
    const md = markdownReport(compare(cls('<powershell>x</powershell>'), cls('<script>y</script>')), 'origin/main');
    expect(md).toContain('userData: "&lt;powershell&gt;x&lt;/powershell&gt;" → "&lt;script&gt;y&lt;/script&gt;"');
    expect(md).not.toMatch(/<(script|powershell)>/);
  });

  it('says so when nothing changed', () => {
    expect(markdownReport({ changes: [], clusters: [] }, 'origin/main')).toMatch(/No change to any generated resource/);
    expect(terminalReport({ changes: [], clusters: [] }, 'HEAD')).toMatch(/no changes to the generated resources/);
  });
});

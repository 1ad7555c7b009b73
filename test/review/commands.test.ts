import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { aFleetConfig, byCluster, cli, Fleet, removeFleets, TEAMS } from './fleet';
import { copyExample, Plain } from '../builders';
import { CHART_VERSION } from '../../src/release/chart-values-keys.generated';

/** The repository {@link repo} copies: synthesized and committed once per file. */
let example: string | undefined;
afterAll(() => { if (example) rmSync(example, { recursive: true, force: true }); });

/** A git repository holding the example config (test/fixtures/example) and its synthesized output, committed. */
async function repo(): Promise<string> {
  if (!example) {
    example = mkdtempSync(join(tmpdir(), 'kg-review-'));
    copyExample(example);
    await cli(['--config', join(example, 'config/platform.yaml'), '--outdir', example]);
    const git = (...args: string[]) => execFileSync('git', ['-C', example!, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'initial');
  }
  const dir = mkdtempSync(join(tmpdir(), 'kg-review-'));
  cpSync(example, dir, { recursive: true });
  return dir;
}

/** The lines of a report that belong to one cluster's block (its title line up to the next blank line). */
function block(report: string, title: string): string[] {
  const lines = report.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`${title}:`) || l.startsWith(`#### ${title}:`));
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && (l === '' && !lines[start].startsWith('####') || (i > start + 1 && l.startsWith('#### '))));
  return lines.slice(start, end < 0 ? undefined : end).filter((l) => l !== '');
}

const teams = TEAMS as { web: Plain; ml: Plain & { pools: { gpu: Plain } } };

describe('check', () => {
  let dir: string;
  beforeEach(async () => { dir = await repo(); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const check = () => cli(['check', '--config', join(dir, 'config/platform.yaml'), '--outdir', dir]);

  it('passes on a clean tree', async () => {
    expect(await check()).toMatchObject({ code: 0, out: expect.stringMatching(/dist\/ and argocd\/ are up to date \(22 files\)/) });
  });

  it('counts each cluster\'s page as synth\'s: a missing or edited dist/<cluster>/SUMMARY.md is named', async () => {
    const page = join(dir, 'dist/demo/SUMMARY.md');
    writeFileSync(page, readFileSync(page, 'utf8').replace('## Argo CD waves', '## Waves'));
    expect(await check()).toMatchObject({ code: 1, err: expect.stringMatching(/^stale: .*dist\/demo\/SUMMARY\.md$/m) });
    rmSync(page);
    expect(await check()).toMatchObject({ code: 1, err: expect.stringMatching(/^missing: .*dist\/demo\/SUMMARY\.md$/m) });
  });

  it('fails naming a hand-edited file, with a short diff', async () => {
    const file = join(dir, 'dist/demo/nodepools/web/web.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('consolidateAfter: 30s', 'consolidateAfter: 5m'));
    const r = await check();
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^stale: .*dist\/demo\/nodepools\/web\/web\.yaml$/m);
    // The file on disk may be uncommitted: it is labelled for what it is.
    expect(r.err).toMatch(/^\s+--- dist\/demo\/nodepools\/web\/web\.yaml \(on disk\)$/m);
    expect(r.err).toMatch(/^\s+\+\+\+ dist\/demo\/nodepools\/web\/web\.yaml \(generated\)$/m);
    expect(r.err).toMatch(/^\s+-\s+consolidateAfter: 5m$/m);
    expect(r.err).toMatch(/^\s+\+\s+consolidateAfter: 30s$/m);
    expect(r.err).toMatch(/1 file\(s\) differ from a fresh synth: run `npm run synth`/);
  });

  it('fails naming missing and extra files', async () => {
    unlinkSync(join(dir, 'argocd/demo.yaml'));
    writeFileSync(join(dir, 'dist/demo/nodepools/web/by-hand.yaml'), 'kind: NodePool\n');
    const r = await check();
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^missing: .*argocd\/demo\.yaml$/m);
    expect(r.err).toMatch(/^extra: .*dist\/demo\/nodepools\/web\/by-hand\.yaml$/m);
  });

  it('fails when the config no longer matches the committed output (a forgotten synth)', async () => {
    const config = join(dir, 'config/platform.yaml');
    writeFileSync(config, readFileSync(config, 'utf8').replace('limits: { cpu: "10", memory: 40Gi }', 'limits: { cpu: "20", memory: 40Gi }'));
    const r = await check();
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^stale: .*dist\/demo\/nodepools\/web\/web\.yaml$/m);
    expect(r.err).toMatch(/^stale: .*dist\/SUMMARY\.md$/m);
  });
});

describe('diff on the example', () => {
  let dir: string;
  beforeEach(async () => { dir = await repo(); });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const diff = (...extra: string[]) => cli(['diff', '--base', 'HEAD', '--config', join(dir, 'config/platform.yaml'), '--outdir', dir, ...extra]);
  const commit = (message: string) => execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-am', message]);

  it('says so when nothing changed, in both formats', async () => {
    expect(await diff()).toEqual({ code: 0, err: '', out: 'karpenter-gitops diff: HEAD -> working tree\nno changes to the generated resources\n' });
    const md = await diff('--format', 'markdown', '--fail-on', 'destructive');
    expect(md.code).toBe(0);
    expect(md.out).toMatch(/^<!-- karpenter-gitops-diff -->$/m);
    expect(md.out).toMatch(/^No change to any generated resource\.$/m);
  });

  it('fails with a clear message for an unknown ref', async () => {
    const r = await cli(['diff', '--base', 'no-such-branch', '--config', join(dir, 'config/platform.yaml'), '--outdir', dir]);
    expect(r).toMatchObject({ code: 1, err: expect.stringMatching(/^error: git: no such commit "no-such-branch"$/) });
    // --head (the pull-request workflow) says it the same way, of either ref, not as git's "bad revision".
    for (const [base, head] of [['HEAD', 'no-such-branch'], ['no-such-branch', 'HEAD']]) {
      const h = await cli(['diff', '--base', base, '--head', head, '--outdir', dir]);
      expect(h).toMatchObject({ code: 1, err: expect.stringMatching(/^error: git: no such commit "no-such-branch"$/) });
    }
  });

  it('fails naming the file when the base tree holds YAML that does not parse', async () => {
    writeFileSync(join(dir, 'dist/demo/nodepools/web/web.yaml'), 'kind: NodePool\nmetadata: {name: [web\n');
    commit('garbage');
    const r = await diff();
    expect(r).toMatchObject({ code: 1, err: expect.stringMatching(/^error: dist\/demo\/nodepools\/web\/web\.yaml:\d+:\d+ in HEAD is not valid YAML \(.*\): fix or regenerate it there first$/) });
  });

  it('fails naming the file when the base tree holds a document that is not a map', async () => {
    writeFileSync(join(dir, 'dist/demo/nodepools/web/web.yaml'), '- a\n- b\n');
    commit('a list');
    const r = await diff();
    expect(r).toMatchObject({ code: 1, err: expect.stringMatching(/^error: dist\/demo\/nodepools\/web\/web\.yaml in HEAD: document 1 is not a map/) });
  });

  it('fails when the base tree holds a symbolic link, never reading where it points', async () => {
    unlinkSync(join(dir, 'dist/demo/nodepools/web/web.yaml'));
    execFileSync('ln', ['-s', '/etc/passwd', join(dir, 'dist/demo/nodepools/web/web.yaml')]);
    execFileSync('git', ['-C', dir, 'add', '-A']);
    commit('a link');
    const r = await diff();
    expect(r).toMatchObject({ code: 1, err: expect.stringMatching(/^error: git: dist\/demo\/nodepools\/web\/web\.yaml is a symbolic link in HEAD: the generated tree holds only files/) });
    expect(r.err).not.toMatch(/root:/);
  });

  it('reads the base tree of an output root below the top of the repository', async () => {
    const sub = join(dir, 'platform');
    mkdirSync(sub);
    for (const d of ['config', 'dist', 'argocd']) renameSync(join(dir, d), join(sub, d));
    execFileSync('git', ['-C', dir, 'add', '-A']);
    commit('move into platform/');
    const r = await cli(['diff', '--base', 'HEAD', '--config', join(sub, 'config/platform.yaml'), '--outdir', sub]);
    expect(r.out).toBe('karpenter-gitops diff: HEAD -> working tree\nno changes to the generated resources\n');
  });

  it.each([
    [['diff']],
    [['diff', '--base', 'HEAD', '--format', 'html']],
    [['check', '--base', 'HEAD']],
    [['check', '--fail-on', 'destructive']],
    [['diff', '--base', 'HEAD', '--fail-on', 'capacity']],
    [['diff', '--live', 'x.yaml', '--cluster', 'demo', '--markdown-out', 'x.md']],
  ])('exits 2 for %j', async (args) => {
    expect((await cli(args)).code).toBe(2);
  });

  it('names the classes --fail-on takes', async () => {
    expect((await cli(['diff', '--base', 'HEAD', '--fail-on', 'drains'])).err)
      .toMatch(/^error: unknown class "drains" for --fail-on \(allowed: destructive, replaces-nodes, cost\)$/m);
  });
});

describe('diff in a fleet: every change in its cluster', () => {
  afterAll(removeFleets);

  it('reports a team removed from one cluster as destructive in that cluster only, its pool Application too, and --fail-on destructive exits 3', async () => {
    const fleet = await Fleet.create(aFleetConfig(['prod', 'staging']));
    fleet.configure(aFleetConfig(['prod', 'staging'], { clusters: { staging: { teams: ['ml'] } } }));
    const r = await fleet.diff('--fail-on', 'destructive');
    expect(r.code).toBe(3);
    expect(r.err).toBe('karpenter-gitops diff: --fail-on destructive: the report holds 3 change(s) of class destructive or louder');
    // The root prunes the team's Application, whose resources finalizer deletes its pools: Delete=confirm holds them, not Prune=confirm.
    expect(byCluster(r.out.split('\n'))).toEqual([
      'karpenter-gitops diff: HEAD -> working tree',
      '3 destructive, 0 replaces-nodes, 0 capacity, 0 access, 0 controller, 1 other',
      '',
      'cluster staging: 3 destructive, 1 other',
      '  🛑 Application staging-pools-web removed: its resources finalizer deletes what it deployed (1 EC2NodeClass, 1 NodePool) — every node of those pools drains',
      '  🛑 EC2NodeClass web removed: the NodePools using it can no longer launch nodes (Karpenter deletes it once no node uses it); NodePool web goes with it',
      '  🛑 NodePool web removed: every node of the pool drains, whatever the disruption budgets say; Argo CD asks a person to confirm (Delete=confirm)',
      '  📝 smoke test web removed: a smoke test: no effect on nodes',
      '',
      'Cost ceilings per hour (ceiling at us-east-1 on-demand list price after NodeOverlays, not a forecast):',
      '  ▼ team web: staging $1.23 -> -, total $2.45 -> $1.23; budget -',
      '  ▼ all teams: staging $26.38 -> $25.15, total $52.75 -> $51.52',
      '',
    ]);
    const md = await fleet.diff('--format', 'markdown');
    expect(md.code).toBe(0);
    // The pull-request workflow's one run: the terminal report printed, the comment written to a file, the same as each alone.
    const comment = join(mkdtempSync(join(tmpdir(), 'kg-md-')), 'comment.md');
    const both = await fleet.diff('--full', '--markdown-out', comment);
    expect(both.out).toBe((await fleet.diff('--full')).out);
    expect(readFileSync(comment, 'utf8')).toBe(md.out);
    // The head commit's time is the test's own: the line that says it is matched without it.
    expect(md.out.split('\n').slice(3).map((l) => l.replace(/\(times from the head commit, [^)]*\)/, '(times from the head commit, …)'))).toEqual([
      '3 destructive, 0 replaces-nodes, 0 capacity, 0 access, 0 controller, 1 other',
      '',
      '**To approve** (4 changes, each on every resource it names):',
      '',
      '- 🛑 Application removed ×1 on cluster staging: its resources finalizer deletes what it deployed (1 EC2NodeClass, 1 NodePool) — every node of those pools drains',
      '- 🛑 EC2NodeClass removed ×1 on cluster staging: the NodePools using it can no longer launch nodes (Karpenter deletes it once no node uses it); NodePool web goes with it',
      '- 🛑 NodePool removed ×1 on cluster staging: every node of the pool drains, whatever the disruption budgets say; Argo CD asks a person to confirm (Delete=confirm)',
      '- 📝 Deployment removed ×1 on cluster staging: a smoke test: no effect on nodes',
      '',
      '**When each change happens, by cluster** (times from the head commit, …):',
      '',
      '- 🛑 cluster staging: the removals that go with a removed Application: at merge, at once: the root prunes the Application and its resources finalizer deletes what it deployed; no sync window holds a deletion',
      '',
      '**Cost ceilings per hour (ceiling at us-east-1 on-demand list price after NodeOverlays, not a forecast):**',
      '',
      '- ▼ team web: staging $1.23 -> -, total $2.45 -> $1.23; budget -',
      '- ▼ all teams: staging $26.38 -> $25.15, total $52.75 -> $51.52',
      '',
      '<details open><summary>Every change, by cluster</summary>',
      '',
      '#### Cluster `staging`: 🛑 3 destructive, 📝 1 other',
      '',
      '| | resource | what happens | changes |',
      '|---|---|---|---|',
      '| 🛑 | Application `staging-pools-web` removed | its resources finalizer deletes what it deployed (1 EC2NodeClass, 1 NodePool) — every node of those pools drains | - |',
      '| 🛑 | EC2NodeClass `web` removed | the NodePools using it can no longer launch nodes (Karpenter deletes it once no node uses it); NodePool web goes with it | - |',
      '| 🛑 | NodePool `web` removed | every node of the pool drains, whatever the disruption budgets say; Argo CD asks a person to confirm (Delete=confirm) | - |',
      '| 📝 | smoke test `web` removed | a smoke test: no effect on nodes | - |',
      '',
      '</details>',
      '',
      `> The full report (every resource, every field): \`npm run diff -- --base HEAD --full\` locally.`,
      '',
    ]);
  });

  it('names every EC2NodeClass an AMI bump changes, with its cluster, as a node replacement; --fail-on destructive exits 0, replaces-nodes 3', async () => {
    const clusters = ['dev', 'prod', 'staging'];
    // prod pins the old AMI through its overrides: it must not appear.
    const config = (alias: string) => aFleetConfig(clusters, {
      clusters: { prod: { overrides: { ami: { alias: 'al2023@v20250505' } } } },
      defaults: { ami: { alias } },
    });
    const fleet = await Fleet.create(config('al2023@v20250505'));
    fleet.configure(config('al2023@v20250601'));
    const r = await fleet.diff('--fail-on', 'destructive');
    expect(r.code).toBe(0);
    const bump = 'AMI alias al2023@v20250505 -> al2023@v20250601 — the new alias resolves to other AMIs: every node runs an AMI no longer selected and drifts (AMIDrift)';
    expect(byCluster(r.out.split('\n'))).toEqual([
      'karpenter-gitops diff: HEAD -> working tree',
      '0 destructive, 4 replaces-nodes, 0 capacity, 0 access, 0 controller, 0 other',
      '',
      ...['dev', 'staging'].flatMap((cluster) => [
        `cluster ${cluster}: 2 replaces-nodes`,
        '  ♻️ EC2NodeClass ml-gpu changed: Karpenter replaces every node of NodePool ml-gpu (drift)',
        '      paced by NodePool ml-gpu: 10% at a time',
        `      ${bump}`,
        '  ♻️ EC2NodeClass web changed: Karpenter replaces every node of NodePool web (drift)',
        '      paced by NodePool web: 10% at a time',
        `      ${bump}`,
        '',
      ]),
    ]);
    expect((await fleet.diff('--fail-on', 'replaces-nodes')).code).toBe(3);
    const md = await fleet.diff('--format', 'markdown');
    expect(block(md.out, '#### Cluster `dev`')).toEqual([
      '#### Cluster `dev`: ♻️ 2 replaces-nodes',
      '| | resource | what happens | changes |',
      '|---|---|---|---|',
      '| ♻️ | EC2NodeClass `ml-gpu` changed | Karpenter replaces every node of NodePool ml-gpu (drift); paced by NodePool ml-gpu: 10% at a time '
        + '| AMI alias al2023@v20250505 → al2023@v20250601 — the new alias resolves to other AMIs: every node runs an AMI no longer selected and drifts (AMIDrift) |',
      '| ♻️ | EC2NodeClass `web` changed | Karpenter replaces every node of NodePool web (drift); paced by NodePool web: 10% at a time '
        + '| AMI alias al2023@v20250505 → al2023@v20250601 — the new alias resolves to other AMIs: every node runs an AMI no longer selected and drifts (AMIDrift) |',
    ]);
    expect(md.out).not.toMatch(/prod/);
  });

  describe('clusters, teams and pools added, removed and renamed', () => {
    let fleet: Fleet;
    const clusters = ['dev', 'prod', 'staging'];
    beforeAll(async () => { fleet = await Fleet.create(aFleetConfig(clusters)); });

    it('reports an added cluster as such, its pools as new capacity, nothing in the others, and the bootstrap syncing its root', async () => {
      fleet.configure(aFleetConfig([...clusters, 'qa']));
      const r = await fleet.diff('--fail-on', 'replaces-nodes');
      expect(r.code).toBe(0);
      expect(byCluster(r.out.split('\n')).slice(1, 4)).toEqual(['0 destructive, 0 replaces-nodes, 2 capacity, 0 access, 3 controller, 10 other', '', 'cluster qa (added): 2 capacity, 3 controller, 9 other']);
      expect(block(r.out, 'cluster qa (added)')).toEqual(expect.arrayContaining([
        '  📈 NodePool ml-gpu added: new pool: Karpenter may launch nodes for it',
        '  📈 NodePool web added: new pool: Karpenter may launch nodes for it',
        `  ⚙️ Application qa-karpenter added: Argo CD starts syncing chart karpenter ${CHART_VERSION}`,
        '  📝 Application qa-karpenter-root added: Argo CD starts syncing dist/qa/apps',
        '  📝 Application qa-pools-ml added: Argo CD starts syncing dist/qa/nodepools/ml',
        '  📝 Application qa-pools-web added: Argo CD starts syncing dist/qa/nodepools/web',
      ]));
      expect(r.out).not.toMatch(/^cluster (dev|prod|staging)/m);
      expect(block(r.out, 'fleet (no one cluster: argocd/)')).toEqual([
        'fleet (no one cluster: argocd/): 1 other',
        '  📝 Application karpenter-gitops-bootstrap changed: no effect on nodes',
        '      source argocd.directory.include: "{dev.yaml,helm-repository.yaml,prod.yaml,staging.yaml}" -> "{dev.yaml,helm-repository.yaml,prod.yaml,qa.yaml,staging.yaml}" — no effect on nodes',
      ]);
    });

    it('reports a removed cluster as destructive in that cluster: its pools, its CRDs and the Applications that delete them', async () => {
      fleet.configure(aFleetConfig(['dev', 'prod']));
      const r = await fleet.diff('--fail-on', 'destructive');
      expect(r.code).toBe(3);
      // 5 other: 4 in staging, and the bootstrap no longer including staging's root (it prunes the root: the root's line says what follows).
      expect(byCluster(r.out.split('\n')).slice(1, 4)).toEqual(['9 destructive, 0 replaces-nodes, 0 capacity, 0 access, 1 controller, 5 other', '', 'cluster staging (removed): 9 destructive, 1 controller, 4 other']);
      expect(block(r.out, 'cluster staging (removed)')).toEqual(expect.arrayContaining([
        '  🛑 NodePool web removed: every node of the pool drains, whatever the disruption budgets say; Argo CD asks a person to confirm (Delete=confirm)',
        `  🛑 Application staging-karpenter-crd removed: its resources finalizer deletes what it deployed (chart karpenter-crd ${CHART_VERSION}) — `
          + 'deleting the Karpenter CRDs deletes every NodePool, EC2NodeClass and NodeClaim: every Karpenter node drains',
        '  🛑 Application staging-karpenter-root removed: its resources finalizer deletes what it deployed (5 Applications) — their finalizers delete what they deployed in turn',
        '  🛑 Application staging-pools-ml removed: its resources finalizer deletes what it deployed (1 EC2NodeClass, 1 NodePool) — every node of those pools drains',
        '  🛑 Application staging-pools-web removed: its resources finalizer deletes what it deployed (1 EC2NodeClass, 1 NodePool) — every node of those pools drains',
        '  📝 Application staging-karpenter-smoke-tests removed: its resources finalizer deletes what it deployed (1 Namespace, 2 smoke tests); no node drains',
      ]));
      expect(r.out).not.toMatch(/^cluster (dev|prod)/m);
    });

    it('names a likely cluster rename when the removed and the added cluster run on the same EKS cluster', async () => {
      fleet.configure(aFleetConfig(['dev', 'prod', 'stage']), { stage: 'staging' });
      const r = await fleet.diff();
      expect(byCluster(r.out.split('\n')).slice(1, 5)).toEqual([
        '9 destructive, 0 replaces-nodes, 2 capacity, 0 access, 4 controller, 14 other',
        '',
        'cluster staging (removed): 9 destructive, 1 controller, 4 other',
        '  note: renamed to stage? both run on EKS cluster staging: a rename deletes every Application and pool of staging (its nodes drain) and creates them again under stage',
      ]);
      expect(r.out).toMatch(/^cluster stage \(added\): 2 capacity, 3 controller, 9 other$/m);
      const md = await fleet.diff('--format', 'markdown');
      expect(md.out).toMatch(/^> renamed to stage\? both run on EKS cluster staging: .* under stage$/m);
    });

    it('reports a removed team as destructive in every cluster it ran in, its pool Application too', async () => {
      fleet.configure(aFleetConfig(clusters, { teams: { web: teams.web } }));
      const r = await fleet.diff();
      expect(r.out.split('\n')[1]).toBe('9 destructive, 0 replaces-nodes, 0 capacity, 0 access, 0 controller, 3 other');
      for (const cluster of clusters) {
        expect(block(r.out, `cluster ${cluster}`)).toEqual([
          `cluster ${cluster}: 3 destructive, 1 other`,
          `  🛑 Application ${cluster}-pools-ml removed: its resources finalizer deletes what it deployed (1 EC2NodeClass, 1 NodePool) — every node of those pools drains`,
          '  🛑 EC2NodeClass ml-gpu removed: the NodePools using it can no longer launch nodes (Karpenter deletes it once no node uses it); NodePool ml-gpu goes with it',
          '  🛑 NodePool ml-gpu removed: every node of the pool drains, whatever the disruption budgets say; Argo CD asks a person to confirm (Delete=confirm)',
          '  📝 smoke test ml-gpu removed: a smoke test: no effect on nodes',
        ]);
      }
    });

    it('reports a team added to one cluster as new capacity there, with its pool Application', async () => {
      const config = aFleetConfig(clusters, { clusters: { dev: { teams: ['web', 'ml', 'search'] }, prod: { teams: ['web', 'ml'] }, staging: { teams: ['web', 'ml'] } } });
      (config.teams as Plain).search = { owner: 'search@acme.example' };
      fleet.configure(config);
      const r = await fleet.diff('--fail-on', 'replaces-nodes');
      expect(r.code).toBe(0);
      expect(byCluster(r.out.split('\n')).slice(1)).toEqual([
        '0 destructive, 0 replaces-nodes, 1 capacity, 0 access, 0 controller, 3 other',
        '',
        'cluster dev: 1 capacity, 3 other',
        '  📈 NodePool search added: new pool: Karpenter may launch nodes for it',
        '  📝 Application dev-pools-search added: Argo CD starts syncing dist/dev/nodepools/search',
        '  📝 EC2NodeClass search added: no node until a NodePool uses it',
        '  📝 smoke test search added: a smoke test: no effect on nodes',
        '',
        'Cost ceilings per hour (ceiling at us-east-1 on-demand list price after NodeOverlays, not a forecast):',
        '  ▲ team search: dev - -> $30.60, total - -> $30.60; budget -',
        '  ▲ all teams: dev $26.38 -> $56.98, total $79.13 -> $109.73',
        '',
      ]);
    });

    it('names a team rename as a likely rename, in every cluster', async () => {
      fleet.configure(aFleetConfig(clusters, { teams: { web: teams.web, ai: teams.ml } }));
      const r = await fleet.diff();
      for (const cluster of clusters) {
        expect(block(r.out, `cluster ${cluster}`)).toEqual([
          `cluster ${cluster}: 3 destructive, 1 capacity, 4 other`,
          `  🛑 Application ${cluster}-pools-ml removed: its resources finalizer deletes what it deployed (1 EC2NodeClass, 1 NodePool) — every node of those pools drains`,
          '  🛑 EC2NodeClass ml-gpu removed: the NodePools using it can no longer launch nodes (Karpenter deletes it once no node uses it); NodePool ml-gpu goes with it; '
            + 'likely renamed to ai-gpu of team ai (team ml renamed?): a rename deletes the old EC2NodeClass and creates a new one',
          '  🛑 NodePool ml-gpu removed: every node of the pool drains, whatever the disruption budgets say; Argo CD asks a person to confirm (Delete=confirm); '
            + 'likely renamed to ai-gpu of team ai (team ml renamed?): a rename deletes the old NodePool and creates a new one',
          '  📈 NodePool ai-gpu added: new pool: Karpenter may launch nodes for it; likely the new name of ml-gpu of team ai (team ml renamed?)',
          '  📝 smoke test ml-gpu removed: a smoke test: no effect on nodes',
          `  📝 Application ${cluster}-pools-ai added: Argo CD starts syncing dist/${cluster}/nodepools/ai`,
          '  📝 EC2NodeClass ai-gpu added: no node until a NodePool uses it; likely the new name of ml-gpu of team ai (team ml renamed?)',
          '  📝 smoke test ai-gpu added: a smoke test: no effect on nodes',
        ]);
      }
    });

    it('names a pool rename as a likely rename, and a renamed default pool (a team rename) too', async () => {
      fleet.configure(aFleetConfig(clusters, { teams: { frontend: teams.web, ml: { ...teams.ml, pools: { gpu2: teams.ml.pools.gpu } } } }));
      const r = await fleet.diff();
      const dev = block(r.out, 'cluster dev');
      expect(dev[0]).toBe('cluster dev: 5 destructive, 2 capacity, 7 other');
      // ml-gpu is pruned by dev-pools-ml, which stays (Prune=confirm); web goes with dev-pools-web, deleted by its finalizer (Delete=confirm).
      expect(dev).toEqual(expect.arrayContaining([
        '  🛑 NodePool ml-gpu removed: every node of the pool drains, whatever the disruption budgets say; Argo CD asks a person to confirm (Prune=confirm); '
          + 'likely renamed to ml-gpu2: a rename deletes the old NodePool and creates a new one',
        '  🛑 NodePool web removed: every node of the pool drains, whatever the disruption budgets say; Argo CD asks a person to confirm (Delete=confirm); '
          + 'likely renamed to frontend of team frontend (team web renamed?): a rename deletes the old NodePool and creates a new one',
        '  🛑 Application dev-pools-web removed: its resources finalizer deletes what it deployed (1 EC2NodeClass, 1 NodePool) — every node of those pools drains',
        '  📈 NodePool ml-gpu2 added: new pool: Karpenter may launch nodes for it; likely the new name of ml-gpu',
        '  📝 Application dev-pools-frontend added: Argo CD starts syncing dist/dev/nodepools/frontend',
      ]));
    });

    it('reports a pool added as new capacity and a pool removed as destructive', async () => {
      fleet.configure(aFleetConfig(clusters, { teams: {
        web: { ...teams.web, defaultPool: false, pools: { batch: { instanceCategories: ['r'] } } },
        ml: { ...teams.ml, pools: { ...teams.ml.pools, cpu: { instanceCategories: ['c'] } } },
      } }));
      const r = await fleet.diff();
      expect(block(r.out, 'cluster prod')).toEqual([
        'cluster prod: 2 destructive, 2 capacity, 5 other',
        '  🛑 EC2NodeClass web removed: the NodePools using it can no longer launch nodes (Karpenter deletes it once no node uses it); NodePool web goes with it',
        '  🛑 NodePool web removed: every node of the pool drains, whatever the disruption budgets say; Argo CD asks a person to confirm (Prune=confirm)',
        '  📈 NodePool ml-cpu added: new pool: Karpenter may launch nodes for it',
        '  📈 NodePool web-batch added: new pool: Karpenter may launch nodes for it',
        '  📝 smoke test web removed: a smoke test: no effect on nodes',
        '  📝 EC2NodeClass ml-cpu added: no node until a NodePool uses it',
        '  📝 EC2NodeClass web-batch added: no node until a NodePool uses it',
        '  📝 smoke test ml-cpu added: a smoke test: no effect on nodes',
        '  📝 smoke test web-batch added: a smoke test: no effect on nodes',
      ]);
    });
  });
});

describe('diff: set-aware field changes, each with why it does or does not replace nodes', () => {
  let fleet: Fleet;
  beforeAll(async () => { fleet = await Fleet.create(aFleetConfig(['prod', 'staging'])); });
  afterAll(removeFleets);
  /** The report of a change to team web's fields (in both clusters). */
  const change = async (web: Plain, ...extra: string[]) => {
    fleet.configure(aFleetConfig(['prod', 'staging'], { teams: { web: { ...teams.web, ...web }, ml: teams.ml } }));
    return fleet.diff(...extra);
  };

  it('reads an added instance family as one requirement, and a narrowed category as the nodes it drifts', async () => {
    const r = await change({ instanceCategories: ['c'], instanceFamilies: ['c7i', 'm7i'] });
    expect(block(r.out, 'cluster prod')).toEqual([
      'cluster prod: 1 replaces-nodes',
      '  ♻️ NodePool web changed: Karpenter may replace some nodes of the pool: those that no longer match (drift)',
      '      paced by NodePool web: 10% at a time',
      '      requirement karpenter.k8s.aws/instance-category: removed m — requirements are not hashed, but nodes whose karpenter.k8s.aws/instance-category is m no longer match them and drift (RequirementsDrifted)',
      '      requirement karpenter.k8s.aws/instance-family added: In [c7i, m7i] — requirements are not hashed, but nodes whose karpenter.k8s.aws/instance-family is not one of c7i, m7i no longer match them and drift (RequirementsDrifted)',
    ]);
  });

  it('reads widened capacity types as "added spot": capacity, no node replaced; a reordered list is no change', async () => {
    const r = await change({ capacityTypes: ['spot', 'on-demand'], instanceCategories: ['m', 'c'] });
    expect(block(r.out, 'cluster staging')).toEqual([
      'cluster staging: 1 capacity',
      '  📈 NodePool web changed: no node is replaced: changes how much Karpenter launches, or when it consolidates',
      '      capacity type: added spot — wider: requirements are not hashed, and every node still matches them, so none drifts',
    ]);
    expect(r.out.split('\n')[1]).toBe('0 destructive, 0 replaces-nodes, 2 capacity, 0 access, 0 controller, 0 other');
  });

  it('reads a taint, a node label and a tag as set and map entries, each replacing every node', async () => {
    const r = await change({ dedicated: false, labels: { tier: 'frontend' }, owner: 'frontend@acme.example' });
    expect(block(r.out, 'cluster prod')).toEqual([
      'cluster prod: 2 replaces-nodes, 1 other',
      '  ♻️ EC2NodeClass web changed: Karpenter replaces every node of NodePool web (drift)',
      '      paced by NodePool web: 10% at a time',
      '      tag owner: web@acme.example -> frontend@acme.example — tags are in the EC2NodeClass hash: every node of the NodePools using it drifts, even for an owner or cost-center edit',
      '  ♻️ NodePool web changed: Karpenter replaces every node of the pool (drift)',
      '      paced by NodePool web: 10% at a time',
      '      node label tier added: frontend — in the NodePool hash (spec.template): every node of the pool drifts and is replaced',
      '      taint dedicated=web:NoSchedule removed — in the NodePool hash (spec.template): every node of the pool drifts and is replaced',
      '  📝 smoke test web changed: a smoke test: no effect on nodes',
      '      spec.template.spec.tolerations removed (was [{"effect":"NoSchedule","key":"dedicated","operator":"Equal","value":"web"}]) — no effect on nodes',
    ]);
  });

  it('says expireAfter and terminationGracePeriod drift every node, and budgets and limits none, in one entry under the loudest class', async () => {
    const r = await change({
      expireAfter: '168h', terminationGracePeriod: '48h', limits: { cpu: '20' },
      disruption: { budgets: [{ nodes: '10%' }, { nodes: '0', schedule: '0 9 * * mon-fri', duration: '8h', reasons: ['Drifted', 'Underutilized'] }] },
    });
    expect(block(r.out, 'cluster prod')).toEqual([
      'cluster prod: 1 replaces-nodes',
      '  ♻️ NodePool web changed: Karpenter replaces every node of the pool (drift)',
      '      paced by NodePool web: 10% at a time, 0 at a time during "0 9 * * mon-fri" (UTC) for 8h',
      '      expireAfter: 720h -> 168h — in the NodePool hash (spec.template): every node of the pool drifts and is replaced (nodes launched from now on expire after the new value)',
      '      terminationGracePeriod added: 48h — in the NodePool hash (spec.template): every node of the pool drifts and is replaced (nodes launched from now on get the new grace period)',
      '      budget 0 during "0 9 * * mon-fri" (UTC) for 8h for Drifted, Underutilized added — budgets pace disruption and are not hashed: no node drifts',
      '      limit cpu: 10 -> 20 — not in spec.template: no node drifts',
    ]);
  });

  it('lists the first 8 fields of a change and every one with --full', async () => {
    const labels = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`l${i}`, 'x']));
    const short = await change({ labels });
    expect(short.out).toMatch(/^ {6}\.\.\. 2 more fields \(--full lists them\)$/m);
    const full = await change({ labels }, '--full');
    expect(full.out).not.toMatch(/more fields/);
    expect(full.out).toMatch(/^ {6}node label l9 added: x — /m);
    const md = await change({ labels }, '--format', 'markdown', '--full');
    expect(md.out).toMatch(/node label l9 added: x — /);
  });
});

describe('diff --head: the committed output, reviewed by the base branch\'s tool (the pull-request workflow)', () => {
  afterAll(removeFleets);

  it('reports what a commit\'s dist/ deletes even when its config (and so a fresh synth) deletes nothing: a pull request whose own tool wrote the output cannot hide a drain', async () => {
    const fleet = await Fleet.create(aFleetConfig(['prod'], { teams: TEAMS }));
    // The pull request: the config unchanged, but dist/ without team web's pools (as a changed generator could write it).
    const web = [...fleet.tree().keys()].filter((p) => p.startsWith('dist/prod/') && /\/web[/.-]/.test(p));
    expect(web.length).toBeGreaterThan(0);
    for (const p of web) fleet.write(p, undefined);
    fleet.git('checkout', '-q', '-b', 'pr');
    fleet.commit('a tool change that drops the web pools');
    const fresh = await cli(['diff', '--base', 'main', '--config', fleet.configPath, '--outdir', fleet.dir, '--fail-on', 'destructive']);
    expect(fresh.code).toBe(0);
    const committed = await cli(['diff', '--base', 'main', '--head', 'HEAD', '--outdir', fleet.dir, '--fail-on', 'destructive']);
    expect(committed.code).toBe(3);
    expect(committed.out).toMatch(/NodePool removed ×1 on cluster prod: every node of the pool drains/);
    expect(await cli(['diff', '--live', 'x.yaml', '--cluster', 'prod', '--head', 'HEAD'])).toMatchObject({ code: 2, err: expect.stringMatching(/diff takes --head only with --base REF/) });
  });
});

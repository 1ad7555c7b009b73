/**
 * The review identifies a resource by its cluster, kind, namespace and name, never by
 * its file, and follows it from one Application to another. Every tree here is what the
 * real synth writes (through the command line, {@link Fleet}): each team's pools under
 * `dist/<cluster>/nodepools/<team>/`, synced by `<cluster>-pools-<team>`, and the fleet's
 * `argocd/bootstrap.yaml`, `project.yaml` and `helm-repository.yaml`; or, where a test
 * starts from an earlier release, what that release wrote for the same config
 * ({@link earlierRelease}): the tree that the move to per-team pool Applications starts from.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inc } from 'semver';
import { review, Review } from '../../src/review/changes';
import { markdownReport, terminalReport } from '../../src/review/report';
import { GeneratedTree } from '../../src/review/tree';
import { Plain } from '../builders';
import { aFleetConfig, byCluster, Fleet, removeFleets, TEAMS } from './fleet';
import { CHART_VERSION } from '../../src/release/chart-values-keys.generated';

afterAll(removeFleets);

type Files = Map<string, string>;

const clusters = ['prod', 'staging'];
const config = (overrides: Plain = {}) => aFleetConfig(clusters, overrides);
/** The config with `legacyNodepoolsApp: orphan` in every cluster: the first release of the move. */
const orphaning = () => config({ clusters: Object.fromEntries(clusters.map((c) => [c, { legacyNodepoolsApp: 'orphan' }])) });

/** The files the real synth writes for a config. */
async function synth(c: Plain): Promise<Files> {
  return (await Fleet.create(c)).tree();
}

/**
 * What the release before per-team pool Applications wrote for the same config: every
 * pool of a cluster at `dist/<cluster>/nodepools/<pool>.yaml`, all synced by one
 * `<cluster>-karpenter-nodepools` Application with the resources finalizer and automated
 * prune (test/fixtures/legacy-karpenter-nodepools.yaml, named and pointed at the cluster),
 * no `pools-<team>` Application, and under `argocd/` only the roots and the argocd-cm patch
 * (that release wrote no bootstrap and no Helm repository).
 */
function earlierRelease(files: Files): Files {
  const fixture = readFileSync(join(__dirname, '../fixtures/legacy-karpenter-nodepools.yaml'), 'utf8');
  const out: Files = new Map();
  for (const [path, text] of files) {
    const pool = /^dist\/([^/]+)\/nodepools\/[^/]+\/([^/]+\.yaml)$/.exec(path);
    if (pool) out.set(`dist/${pool[1]}/nodepools/${pool[2]}`, text);
    else if (!/^dist\/[^/]+\/apps\/pools-[^/]+\.yaml$/.test(path) && !['argocd/bootstrap.yaml', 'argocd/helm-repository.yaml'].includes(path)) out.set(path, text);
  }
  for (const cluster of clusters) {
    const pools = files.get(`dist/${cluster}/apps/pools-web.yaml`) ?? '';
    const revision = /targetRevision: (\S+)/.exec(pools)?.[1];
    // Pointed at the cluster as its Applications are (by server or by name).
    const destination = /\n {4}(server|name): (\S+)\n/.exec(pools.slice(pools.indexOf('destination:')));
    out.set(`dist/${cluster}/apps/karpenter-nodepools.yaml`, fixture.replaceAll('demo', cluster).replace('targetRevision: main', `targetRevision: ${revision}`)
      .replace('server: https://kubernetes.default.svc', `${destination?.[1]}: ${destination?.[2]}`));
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** A fleet whose last commit is what the earlier release wrote for {@link config}. */
async function fleetOfEarlierRelease(): Promise<Fleet> {
  const fleet = await Fleet.create(config());
  fleet.replaceTree(earlierRelease(fleet.tree()));
  fleet.commit('the earlier release');
  return fleet;
}

function compare(base: Files, head: Files): Review {
  return review(new GeneratedTree(base, 'origin/main'), new GeneratedTree(head, 'the working tree'));
}

/** The report's header and its changes by cluster (the grouped summary between them is tested in fleet-scale.test.ts). */
function lines(r: Review): string[] {
  return byCluster(terminalReport(r, 'origin/main').split('\n'));
}


/** The lines of one group of a report, from its title to the blank line after it. */
function block(report: string[], title: string): string[] {
  const start = report.findIndex((l) => l.startsWith(`${title}:`));
  return start < 0 ? [] : report.slice(start, report.indexOf('', start));
}

describe('where a resource lives', () => {
  it('is no change: documents split into other files, or reordered, beside the same Application', async () => {
    const tree = await synth(config());
    const [nodeClass, nodePool] = tree.get('dist/prod/nodepools/web/web.yaml')!.split(/^---\n/m);
    const moved = new Map(tree);
    moved.set('dist/prod/nodepools/web/web.yaml', nodePool);
    moved.set('dist/prod/nodepools/web/web-class.yaml', nodeClass);
    const [mlClass, mlPool] = tree.get('dist/staging/nodepools/ml/ml-gpu.yaml')!.split(/^---\n/m);
    moved.set('dist/staging/nodepools/ml/ml-gpu.yaml', `${mlPool}---\n${mlClass}`);
    moved.delete('dist/prod/smoke-tests/web.yaml');
    moved.set('dist/prod/smoke-tests/web-smoke-test.yaml', tree.get('dist/prod/smoke-tests/web.yaml')!);
    expect(nodePool).toMatch(/^kind: NodePool$/m);
    expect(lines(compare(tree, moved))).toEqual(['karpenter-gitops diff: origin/main -> working tree', 'no changes to the generated resources', '']);
  });

  it('gives the same report for the same config change, whether the pools are per team or all under the earlier single Application', async () => {
    const teams = TEAMS as { web: Plain; ml: Plain & { pools: Plain } };
    const withCpu = { ...teams, ml: { ...teams.ml, pools: { ...teams.ml.pools, cpu: { instanceCategories: ['c'] } } } };
    const before = await synth(config({ teams: withCpu }));
    const after = await synth(config({ teams: { ...teams, web: { ...teams.web, limits: { cpu: '20' } } }, defaults: { ami: { alias: 'al2023@v20250601' } } }));
    const perTeam = lines(compare(before, after));
    expect(lines(compare(earlierRelease(before), earlierRelease(after)))).toEqual(perTeam);
    // ml-cpu is pruned in both: by <cluster>-pools-ml, or by <cluster>-karpenter-nodepools, each staying.
    expect(block(perTeam, 'cluster prod')).toEqual([
      'cluster prod: 2 destructive, 2 replaces-nodes, 1 capacity, 1 other',
      '  🛑 EC2NodeClass ml-cpu removed: the NodePools using it can no longer launch nodes (Karpenter deletes it once no node uses it); NodePool ml-cpu goes with it',
      '  🛑 NodePool ml-cpu removed: every node of the pool drains, whatever the disruption budgets say; Argo CD asks a person to confirm (Prune=confirm)',
      '  ♻️ EC2NodeClass ml-gpu changed: Karpenter replaces every node of NodePool ml-gpu (drift)',
      '      paced by NodePool ml-gpu: 10% at a time',
      '      AMI alias al2023@v20250505 -> al2023@v20250601 — the new alias resolves to other AMIs: every node runs an AMI no longer selected and drifts (AMIDrift)',
      '  ♻️ EC2NodeClass web changed: Karpenter replaces every node of NodePool web (drift)',
      '      paced by NodePool web: 10% at a time',
      '      AMI alias al2023@v20250505 -> al2023@v20250601 — the new alias resolves to other AMIs: every node runs an AMI no longer selected and drifts (AMIDrift)',
      '  📈 NodePool web changed: no node is replaced: changes how much Karpenter launches, or when it consolidates',
      '      limit cpu: 10 -> 20 — not in spec.template: no node drifts',
      '  📝 smoke test ml-cpu removed: a smoke test: no effect on nodes',
    ]);
    expect(block(perTeam, 'cluster staging')).toEqual(block(perTeam, 'cluster prod').map((l) => l.replace('cluster prod', 'cluster staging')));
  });

  it('files a root Application under its cluster, found by the folder it syncs', async () => {
    const tree = await synth(config());
    const moved = new Map(tree);
    moved.set('argocd/prod.yaml', tree.get('argocd/prod.yaml')!.replace('targetRevision: HEAD', 'targetRevision: release'));
    expect(lines(compare(tree, moved)).slice(3)).toEqual([
      'cluster prod: 1 other',
      '  📝 Application prod-karpenter-root changed: no effect on nodes',
      '      source dist/prod/apps.targetRevision: HEAD -> release — no effect on nodes',
      '',
    ]);
  });

  it('reports a staged Karpenter upgrade as a controller change of that cluster only', async () => {
    const fleet = await Fleet.create(config());
    const next = inc(CHART_VERSION, 'minor') ?? '';
    fleet.configure(config({ clusters: { staging: { karpenter: { version: next } } } }));
    expect(byCluster((await fleet.diff()).out.split('\n')).slice(1)).toEqual([
      '0 destructive, 0 replaces-nodes, 0 capacity, 0 access, 2 controller, 0 other',
      '',
      'cluster staging: 2 controller',
      '  ⚙️ Application staging-karpenter changed: changes the Karpenter controller (chart version or values)',
      `      chart karpenter ${CHART_VERSION} -> ${next} — a new Karpenter chart version: Argo CD upgrades it in this cluster`,
      '  ⚙️ Application staging-karpenter-crd changed: changes the Karpenter controller (chart version or values)',
      `      chart karpenter-crd ${CHART_VERSION} -> ${next} — a new Karpenter chart version: Argo CD upgrades it in this cluster`,
      '',
    ]);
  });
});

describe('the fleet\'s own files', () => {
  let tree: Files;
  /** The tree without the bootstrap, the AppProject and the Helm repository. */
  let bare: Files;
  beforeAll(async () => {
    tree = await synth(config({ gitops: { project: 'karpenter' } }));
    bare = new Map([...tree].filter(([path]) => !['argocd/bootstrap.yaml', 'argocd/project.yaml', 'argocd/helm-repository.yaml'].includes(path)));
  });

  it('are grouped as the fleet; removing the bootstrap drains nothing: it carries no resources finalizer, so the roots it synced are kept', () => {
    expect([...tree.keys()].filter((p) => p.startsWith('argocd/'))).toEqual([
      'argocd/argocd-cm-patch.yaml', 'argocd/bootstrap.yaml', 'argocd/helm-repository.yaml', 'argocd/prod.yaml', 'argocd/project.yaml', 'argocd/staging.yaml',
    ]);
    // What it deployed is what its directory.include lets in: not itself, not the argocd-cm patch (applied by hand).
    expect(lines(compare(tree, bare))).toEqual([
      'karpenter-gitops diff: origin/main -> working tree',
      '0 destructive, 0 replaces-nodes, 0 capacity, 0 access, 0 controller, 3 other',
      '',
      'fleet (no one cluster: argocd/): 3 other',
      '  📝 AppProject argocd/karpenter removed: no effect on nodes',
      '  📝 Application karpenter-gitops-bootstrap removed: no resources finalizer: Argo CD removes the Application and keeps what it deployed (1 AppProject, 2 Applications, 1 Secret)',
      '  📝 Secret argocd/karpenter-helm-oci removed: no effect on nodes',
      '',
    ]);
  });

  it('reads removing a bootstrap that carries the resources finalizer as destructive: it deletes the roots, whose finalizers delete every Application of their cluster', () => {
    const withFinalizer = new Map(tree);
    withFinalizer.set('argocd/bootstrap.yaml', tree.get('argocd/bootstrap.yaml')!.replace(/^ {2}labels:$/m, '  finalizers:\n    - resources-finalizer.argocd.argoproj.io\n  labels:'));
    expect(lines(compare(withFinalizer, bare)).slice(1, 6)).toEqual([
      '1 destructive, 0 replaces-nodes, 0 capacity, 0 access, 0 controller, 2 other',
      '',
      'fleet (no one cluster: argocd/): 1 destructive, 2 other',
      '  🛑 Application karpenter-gitops-bootstrap removed: its resources finalizer deletes what it deployed (1 AppProject, 2 Applications, 1 Secret) — '
        + 'their finalizers delete what they deployed in turn',
      '  📝 AppProject argocd/karpenter removed: no effect on nodes',
    ]);
  });
});

describe('the move to per-team pool Applications, in two clusters', () => {
  it('drains nothing in the release with legacyNodepoolsApp: orphan: the old Application loses its finalizer and automated sync, each team\'s Application adopts its pools', async () => {
    const fleet = await fleetOfEarlierRelease();
    fleet.configure(orphaning());
    const r = await fleet.diff('--fail-on', 'destructive');
    expect(r.code).toBe(0);
    const report = r.out.split('\n');
    expect(report[1]).toBe('0 destructive, 0 replaces-nodes, 0 capacity, 0 access, 0 controller, 18 other');
    for (const c of clusters) {
      const adopted = (kind: string, name: string, team: string) => [
        `  📝 ${kind} ${name} changed: Application ${c}-pools-${team} adopts it`,
        `      synced by Application ${c}-pools-${team} (before: Application ${c}-karpenter-nodepools) — Application ${c}-karpenter-nodepools does not prune: `
          + `it leaves the object alone, and Application ${c}-pools-${team} adopts it`,
      ];
      expect(block(report, `cluster ${c}`)).toEqual([
        `cluster ${c}: 8 other`,
        `  📝 Application ${c}-karpenter-nodepools changed: no effect on nodes`,
        '      resources finalizer removed — deleting this Application no longer deletes what it deployed: its resources are kept',
        '      auto-sync prune on -> off — Argo CD keeps what leaves its source path',
        '      spec.syncPolicy.automated.enabled removed (was true) — no effect on nodes',
        '      spec.syncPolicy.automated.selfHeal removed (was true) — no effect on nodes',
        '      spec.syncPolicy.retry removed (was {"backoff":{"duration":"10s","factor":2,"maxDuration":"3m"},"limit":5}) — no effect on nodes',
        `  📝 Application ${c}-karpenter-root changed: Application karpenter-gitops-bootstrap adopts it`,
        '      synced by Application karpenter-gitops-bootstrap (before: no Application) — Application karpenter-gitops-bootstrap adopts it',
        ...adopted('EC2NodeClass', 'ml-gpu', 'ml'),
        ...adopted('EC2NodeClass', 'web', 'web'),
        ...adopted('NodePool', 'ml-gpu', 'ml'),
        ...adopted('NodePool', 'web', 'web'),
        `  📝 Application ${c}-pools-ml added: Argo CD starts syncing dist/${c}/nodepools/ml`,
        `  📝 Application ${c}-pools-web added: Argo CD starts syncing dist/${c}/nodepools/web`,
      ]);
    }
    // The argocd-cm patch is not the bootstrap's (its include leaves it out): no line for it.
    expect(block(report, 'fleet (no one cluster: argocd/)')).toEqual([
      'fleet (no one cluster: argocd/): 2 other',
      '  📝 Application karpenter-gitops-bootstrap added: Argo CD starts syncing argocd',
      '  📝 Secret argocd/karpenter-helm-oci added: no effect on nodes',
    ]);
  });

  it('then drains nothing when legacyNodepoolsApp is removed: the old Application has no finalizer any more', async () => {
    const fleet = await fleetOfEarlierRelease();
    fleet.configure(orphaning());
    await fleet.synth();
    fleet.commit('the release that orphans the old Application');
    fleet.configure(config());
    const r = await fleet.diff('--fail-on', 'destructive');
    expect(r.code).toBe(0);
    expect(byCluster(r.out.split('\n')).slice(1)).toEqual([
      '0 destructive, 0 replaces-nodes, 0 capacity, 0 access, 0 controller, 2 other',
      '',
      ...clusters.flatMap((c) => [
        `cluster ${c}: 1 other`,
        `  📝 Application ${c}-karpenter-nodepools removed: no resources finalizer: Argo CD removes the Application and keeps what it deployed (nothing in this tree)`,
        '',
      ]),
    ]);
  });

  it('flags removing the old Application while it still carries the resources finalizer: it deletes every pool of its cluster', async () => {
    // Synth refuses this (src/review/guard.ts); a pull request that removes the file by hand gets this report.
    const fleet = await fleetOfEarlierRelease();
    fleet.configure(config());
    const r = await fleet.diff('--fail-on', 'destructive');
    expect(r.code).toBe(3);
    const report = r.out.split('\n');
    expect(report[1]).toBe('2 destructive, 0 replaces-nodes, 0 capacity, 0 access, 0 controller, 16 other');
    for (const c of clusters) {
      expect(block(report, `cluster ${c}`).slice(0, 4)).toEqual([
        `cluster ${c}: 1 destructive, 7 other`,
        `  🛑 Application ${c}-karpenter-nodepools removed: its resources finalizer deletes what it deployed (2 EC2NodeClasses, 2 NodePools) — every node of those pools drains`,
        `  📝 Application ${c}-karpenter-root changed: Application karpenter-gitops-bootstrap adopts it`,
        '      synced by Application karpenter-gitops-bootstrap (before: no Application) — Application karpenter-gitops-bootstrap adopts it',
      ]);
    }
    expect(report).toContain('      synced by Application prod-pools-web (before: Application prod-karpenter-nodepools) — '
      + 'Application prod-karpenter-nodepools is removed (see its own line); Application prod-pools-web adopts it');
    expect((await fleet.diff('--format', 'markdown')).out).toContain('| 🛑 | Application `prod-karpenter-nodepools` removed | '
      + 'its resources finalizer deletes what it deployed (2 EC2NodeClasses, 2 NodePools) — every node of those pools drains | - |');
  });

  it('flags pools moved away from an Application that still prunes: Argo CD may delete them before their team\'s Application adopts them', async () => {
    const earlier = earlierRelease(await synth(config()));
    // The orphaning release, but with the old Application left as the earlier release wrote it (finalizer, automated prune).
    const head = await synth(orphaning());
    for (const c of clusters) head.set(`dist/${c}/apps/karpenter-nodepools.yaml`, earlier.get(`dist/${c}/apps/karpenter-nodepools.yaml`)!);
    const r = compare(earlier, head);
    expect(r.changes.filter((c) => c.risk === 'destructive').map((c) => `${c.resource.cluster} ${c.resource.kind} ${c.resource.name} ${c.action}`)).toEqual([
      'prod EC2NodeClass ml-gpu changed', 'prod EC2NodeClass web changed', 'prod NodePool ml-gpu changed', 'prod NodePool web changed',
      'staging EC2NodeClass ml-gpu changed', 'staging EC2NodeClass web changed', 'staging NodePool ml-gpu changed', 'staging NodePool web changed',
    ]);
    expect(lines(r)).toContain('      synced by Application prod-pools-web (before: Application prod-karpenter-nodepools) — Application prod-karpenter-nodepools still prunes and no longer holds it: '
      + 'Argo CD may delete it before the new Application adopts it, and every node of the pool drains (Prune=confirm asks a person first); turn off prune on prod-karpenter-nodepools for this release');
    expect(markdownReport(r, 'origin/main')).toMatch(/^#### Cluster `prod`: 🛑 4 destructive, 📝 3 other$/m);
  });
});

/**
 * The review identifies resources by path and content, not by file name, so it
 * reads the per-team layout that the generator is moving to (contract 5.2) as it
 * reads today's: `dist/<cluster>/nodepools/<team>/<pool>.yaml`, one
 * `<cluster>-pools-<team>` Application per team, `argocd/bootstrap.yaml` and
 * `argocd/project.yaml` for the fleet, and a migration release that keeps the old
 * `<cluster>-karpenter-nodepools` Application without its finalizer and prune.
 *
 * The trees are real synth output, moved into the new layout by {@link perTeam}.
 */
import { parse } from 'yaml';
import { loadPlatform } from '../../src/config/load';
import { renderYaml } from '../../src/output/render';
import { review, Review } from '../../src/review/changes';
import { markdownReport, terminalReport } from '../../src/review/report';
import { GeneratedTree } from '../../src/review/tree';
import { synthesize } from '../../src/synth';
import { aTerraform, Plain, removeProjects, writeProject } from '../builders';
import { aFleetConfig } from './fleet';

afterAll(removeProjects);

type Files = Map<string, string>;

/** The files synth makes of a config of the given clusters. */
function synth(config: Plain): Files {
  const clusters = Object.keys(config.clusters as Plain);
  const project = writeProject({
    config,
    terraform: Object.fromEntries(clusters.map((c) => [c, aTerraform({ cluster_name: c, karpenter_node_role_name: `KarpenterNodeRole-${c}` })])),
  });
  return synthesize(loadPlatform(project.configPath).platform);
}

/** How {@link perTeam} treats the old `<cluster>-karpenter-nodepools` Application. */
type OldApplication = 'removed' | 'migrating' | 'kept as is';

/**
 * The per-team layout of a tree: pool files under `nodepools/<team>/`, a
 * `pools-<team>` Application per team (wave 2, the resources finalizer, prune), a
 * bootstrap Application syncing `argocd/`, and an AppProject; the old pools
 * Application removed, kept for the migration (no finalizer, no prune), or kept as is.
 */
function perTeam(files: Files, old: OldApplication = 'removed'): Files {
  const teamOf = (text: string) => (parse(text.split('\n---\n')[0]) as { metadata: { labels: { team: string } } }).metadata.labels.team;
  const teams = new Map<string, Set<string>>();
  for (const [path, text] of files) {
    const cluster = /^dist\/([^/]+)\/nodepools\/[^/]+\.yaml$/.exec(path)?.[1];
    if (cluster) teams.set(cluster, new Set([...(teams.get(cluster) ?? []), teamOf(text)]));
  }
  const out: Files = new Map();
  for (const [path, text] of files) {
    const pool = /^dist\/([^/]+)\/nodepools\/([^/]+)\.yaml$/.exec(path);
    const app = /^dist\/([^/]+)\/apps\/karpenter-nodepools\.yaml$/.exec(path);
    if (pool) out.set(`dist/${pool[1]}/nodepools/${teamOf(text)}/${pool[2]}.yaml`, text);
    else if (!app) out.set(path, text);
    else {
      const body = parse(text) as Plain & { metadata: Plain; spec: Plain & { source: Plain; syncPolicy: { automated: Plain } } };
      for (const team of teams.get(app[1]) ?? []) {
        out.set(`dist/${app[1]}/apps/pools-${team}.yaml`, renderYaml([{
          ...body,
          metadata: { ...body.metadata, name: `${app[1]}-pools-${team}` },
          spec: { ...body.spec, source: { ...body.spec.source, path: `dist/${app[1]}/nodepools/${team}` } },
        }]));
      }
      if (old === 'kept as is') out.set(path, text);
      if (old === 'migrating') {
        const { finalizers: _, ...metadata } = body.metadata;
        out.set(path, renderYaml([{
          ...body,
          metadata,
          spec: { ...body.spec, syncPolicy: { ...body.spec.syncPolicy, automated: { ...body.spec.syncPolicy.automated, prune: false } } },
        }]));
      }
    }
  }
  const application = (name: string, path: string) => ({
    apiVersion: 'argoproj.io/v1alpha1', kind: 'Application',
    metadata: { name, namespace: 'argocd', finalizers: ['resources-finalizer.argocd.argoproj.io'] },
    spec: {
      project: 'karpenter', destination: { server: 'https://kubernetes.default.svc', namespace: 'argocd' },
      source: { repoURL: 'https://github.com/acme/platform-gitops.git', targetRevision: 'HEAD', path },
      syncPolicy: { automated: { enabled: true, prune: true, selfHeal: true } },
    },
  });
  out.set('argocd/bootstrap.yaml', renderYaml([application('karpenter-bootstrap', 'argocd')]));
  out.set('argocd/project.yaml', renderYaml([{
    apiVersion: 'argoproj.io/v1alpha1', kind: 'AppProject', metadata: { name: 'karpenter', namespace: 'argocd' },
    spec: { sourceRepos: ['https://github.com/acme/platform-gitops.git', 'public.ecr.aws/karpenter'] },
  }]));
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

function compare(base: Files, head: Files): Review {
  return review(new GeneratedTree(base, 'origin/main'), new GeneratedTree(head, 'the working tree'));
}

function lines(r: Review): string[] {
  return terminalReport(r, 'origin/main').split('\n');
}

const clusters = ['prod', 'staging'];
const config = (overrides: Plain = {}) => aFleetConfig(clusters, overrides);

describe('the per-team layout', () => {
  it('is read like the current one: the same change gives the same report', () => {
    const before = synth(config());
    const after = synth(config({ defaults: { ami: { alias: 'al2023@v20250601' } }, clusters: { staging: { teams: ['ml'] } } }));
    const current = terminalReport(compare(before, after), 'origin/main');
    // Only the per-team layout has an Application per team, and its removal is destructive too.
    expect(terminalReport(compare(perTeam(before), perTeam(after)), 'origin/main')).toBe(current
      .replace(/^2 destructive,/m, '3 destructive,')
      .replace(/^(cluster staging: )2( destructive.*\n)/m, '$13$2  🛑 Application staging-pools-web removed: its resources finalizer deletes what it deployed '
        + '(1 EC2NodeClass, 1 NodePool) — every node of those pools drains\n'));
    expect(current).toMatch(/^cluster staging: 2 destructive, 1 replaces-nodes, 1 other$/m);
  });

  it('gives the fleet\'s own files (bootstrap, AppProject) a group of their own, and a removed bootstrap is destructive', () => {
    const tree = perTeam(synth(config()));
    const withoutBootstrap = new Map(tree);
    withoutBootstrap.delete('argocd/bootstrap.yaml');
    withoutBootstrap.delete('argocd/project.yaml');
    expect(lines(compare(tree, withoutBootstrap))).toEqual([
      'karpenter-gitops diff: origin/main -> working tree',
      '1 destructive, 0 replaces-nodes, 0 capacity, 0 controller, 1 other',
      '',
      'fleet (no one cluster: argocd/): 1 destructive, 1 other',
      '  🛑 Application karpenter-bootstrap removed: its resources finalizer deletes what it deployed (1 AppProject, 3 Applications, 1 ConfigMap) — their finalizers delete what they deployed in turn',
      '  📝 AppProject argocd/karpenter removed: no effect on nodes',
      '',
    ]);
  });

  it('files a root Application under its cluster, found by the folder it syncs', () => {
    const tree = perTeam(synth(config()));
    const moved = new Map(tree);
    moved.set('argocd/prod.yaml', tree.get('argocd/prod.yaml')!.replace('targetRevision: HEAD', 'targetRevision: release'));
    expect(lines(compare(tree, moved)).slice(3)).toEqual([
      'cluster prod: 1 other',
      '  📝 Application prod-karpenter-root changed: no effect on nodes',
      '      source dist/prod/apps.targetRevision: HEAD -> release — no effect on nodes',
      '',
    ]);
  });

  it('reports a staged Karpenter upgrade as a controller change of that cluster only', () => {
    const tree = perTeam(synth(config()));
    const staged = new Map(tree);
    for (const app of ['karpenter', 'karpenter-crd']) {
      const path = `dist/staging/apps/${app}.yaml`;
      staged.set(path, tree.get(path)!.replace('targetRevision: 1.14.1', 'targetRevision: 1.15.0'));
    }
    const r = compare(tree, staged);
    expect(lines(r).slice(1)).toEqual([
      '0 destructive, 0 replaces-nodes, 0 capacity, 2 controller, 0 other',
      '',
      'cluster staging: 2 controller',
      '  ⚙️ Application staging-karpenter changed: changes the Karpenter controller (chart version or values)',
      '      chart karpenter 1.14.1 -> 1.15.0 — a new Karpenter chart version: Argo CD upgrades it in this cluster',
      '  ⚙️ Application staging-karpenter-crd changed: changes the Karpenter controller (chart version or values)',
      '      chart karpenter-crd 1.14.1 -> 1.15.0 — a new Karpenter chart version: Argo CD upgrades it in this cluster',
      '',
    ]);
  });

  it('reports a removed team\'s Application as destructive: its finalizer deletes the team\'s pools', () => {
    const before = perTeam(synth(config()));
    const after = perTeam(synth(config({ teams: { web: (aFleetConfig(clusters).teams as Plain).web } })));
    const prod = lines(compare(before, after)).filter((l) => l.startsWith('  ') && /prod-pools-ml/.test(l));
    expect(prod).toEqual(['  🛑 Application prod-pools-ml removed: its resources finalizer deletes what it deployed (1 EC2NodeClass, 1 NodePool) — every node of those pools drains']);
  });
});

describe('the migration to per-team pool Applications', () => {
  const current = synth(config());

  it('drains nothing when the old Application loses its finalizer and prune: every pool is adopted by its team\'s Application', () => {
    const r = compare(current, perTeam(current, 'migrating'));
    expect(r.changes.filter((c) => c.risk === 'destructive')).toEqual([]);
    const prod = lines(r).slice(lines(r).indexOf('cluster prod: 8 other'));
    expect(prod.slice(0, prod.indexOf(''))).toEqual([
      'cluster prod: 8 other',
      '  📝 Application prod-karpenter-nodepools changed: no effect on nodes',
      '      resources finalizer removed — deleting this Application no longer deletes what it deployed: its resources are kept',
      '      auto-sync prune on -> off — Argo CD keeps what leaves its source path',
      '  📝 Application prod-karpenter-root changed: Application karpenter-bootstrap adopts it',
      '      synced by Application karpenter-bootstrap (before: no Application) — Application karpenter-bootstrap adopts it',
      ...[['EC2NodeClass', 'ml-gpu', 'ml'], ['EC2NodeClass', 'web', 'web'], ['NodePool', 'ml-gpu', 'ml'], ['NodePool', 'web', 'web']].flatMap(([kind, name, team]) => [
        `  📝 ${kind} ${name} changed: Application prod-pools-${team} adopts it`,
        `      synced by Application prod-pools-${team} (before: Application prod-karpenter-nodepools) — Application prod-karpenter-nodepools does not prune: `
          + `it leaves the object alone, and Application prod-pools-${team} adopts it`,
      ]),
      '  📝 Application prod-pools-ml added: Argo CD starts syncing dist/prod/nodepools/ml',
      '  📝 Application prod-pools-web added: Argo CD starts syncing dist/prod/nodepools/web',
    ]);
    expect(lines(r).slice(lines(r).indexOf('fleet (no one cluster: argocd/): 3 other'))).toEqual([
      'fleet (no one cluster: argocd/): 3 other',
      '  📝 ConfigMap argocd/argocd-cm changed: Application karpenter-bootstrap adopts it',
      '      synced by Application karpenter-bootstrap (before: no Application) — Application karpenter-bootstrap adopts it',
      '  📝 AppProject argocd/karpenter added: no effect on nodes',
      '  📝 Application karpenter-bootstrap added: Argo CD starts syncing argocd',
      '',
    ]);
  });

  it('then removes the old Application without a drain: it has no finalizer, so its resources are kept', () => {
    const migrating = perTeam(current, 'migrating');
    const r = compare(migrating, perTeam(current, 'removed'));
    expect(lines(r).slice(1)).toEqual([
      '0 destructive, 0 replaces-nodes, 0 capacity, 0 controller, 2 other',
      '',
      ...clusters.flatMap((c) => [
        `cluster ${c}: 1 other`,
        `  📝 Application ${c}-karpenter-nodepools removed: no resources finalizer: Argo CD removes the Application and keeps what it deployed (nothing in this tree)`,
        '',
      ]),
    ]);
  });

  it('flags the removal of the old Application while it still carries the resources finalizer: it cascade-deletes every pool', () => {
    const r = compare(current, perTeam(current, 'removed'));
    expect(lines(r)).toContain(
      '  🛑 Application prod-karpenter-nodepools removed: its resources finalizer deletes what it deployed (2 EC2NodeClasses, 2 NodePools) — every node of those pools drains',
    );
    const md = markdownReport(r, 'origin/main');
    expect(md).toContain('| 🛑 | Application `prod-karpenter-nodepools` removed | its resources finalizer deletes what it deployed (2 EC2NodeClasses, 2 NodePools) — every node of those pools drains | - |');
  });

  it('flags pools moved away from an Application that still prunes: Argo CD may delete them before the new one adopts them', () => {
    const r = compare(current, perTeam(current, 'kept as is'));
    const destructive = r.changes.filter((c) => c.risk === 'destructive').map((c) => `${c.resource.cluster} ${c.resource.kind} ${c.resource.name}`);
    expect(destructive).toEqual([
      'prod EC2NodeClass ml-gpu', 'prod EC2NodeClass web', 'prod NodePool ml-gpu', 'prod NodePool web',
      'staging EC2NodeClass ml-gpu', 'staging EC2NodeClass web', 'staging NodePool ml-gpu', 'staging NodePool web',
    ]);
    expect(lines(r)).toContain('      synced by Application prod-pools-web (before: Application prod-karpenter-nodepools) — Application prod-karpenter-nodepools still prunes and no longer holds it: '
      + 'Argo CD may delete it before the new Application adopts it, and every node of the pool drains (Prune=confirm asks a person first); turn off prune on prod-karpenter-nodepools for this release');
  });
});

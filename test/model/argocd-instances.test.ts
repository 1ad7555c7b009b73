/**
 * A fleet deployed by several Argo CD instances (`gitops.argocd`, `clusters.<id>.argocd`): each
 * instance applies its own bootstrap by hand, and that bootstrap syncs only the roots of the
 * clusters it deploys, its own AppProject and the Helm repository every instance needs
 * (docs/fleets.md, bootstrap). Read with the repository model Argo CD's repo server uses for a
 * directory source (test/support/git-sim.ts: the files of `argocd/` its include glob matches).
 */
import { parse } from 'yaml';
import { synthesize } from '../../src/synth';
import { aTerraform, removeProjects } from '../builders';
import { load } from '../config/helpers';
import { aFleetConfig } from '../review/fleet';
import { GitSim } from '../support/git-sim';

afterAll(removeProjects);

const CLUSTERS = ['dev', 'staging', 'prod-eu', 'prod-us'];
const INSTANCES = {
  eu: { eksCluster: 'argocd-eu', region: 'eu-west-1', roleArn: 'arn:aws:iam::111122223333:role/karpenter-gitops-promote' },
  us: { eksCluster: 'argocd-us', region: 'us-east-1', roleArn: 'arn:aws:iam::111122223333:role/karpenter-gitops-promote' },
};

/** The generated files of the four clusters, with `gitops` and each cluster's fields added. */
function files(gitops: Record<string, unknown>, clusters: Record<string, Record<string, unknown>>): ReadonlyMap<string, string> {
  const config = aFleetConfig(CLUSTERS, { gitops: { project: 'karpenter', ...gitops }, clusters });
  const { platform } = load({ config, terraform: Object.fromEntries(CLUSTERS.map((c) => [c, aTerraform({ cluster_name: c })])) });
  return synthesize(platform);
}

/** What a bootstrap Application syncs: the files of its directory source at the commit, as Argo CD reads them. */
function synced(tree: ReadonlyMap<string, string>, bootstrap: string): string[] {
  const app = parse(tree.get(bootstrap)!) as { spec: { source: { path: string; directory?: { include?: string } } } };
  const git = new GitSim();
  const sha = git.commit(tree, 'the fleet', 0);
  return (git.directory(sha, app.spec.source.path, app.spec.source.directory?.include) ?? []).map((f) => f.path);
}

describe('a fleet of several Argo CD instances', () => {
  const two = files({ argocd: INSTANCES }, {
    dev: { argocd: 'eu', destination: { name: 'dev' } },
    staging: { argocd: 'eu', destination: { name: 'staging' } },
    'prod-eu': { argocd: 'eu', destination: { name: 'prod-eu' } },
    'prod-us': { argocd: 'us', destination: { name: 'prod-us' } },
  });

  it('gives each instance its own bootstrap, which syncs only the roots of its clusters, its own AppProject and the shared Helm repository', () => {
    expect([...two.keys()].filter((f) => /^argocd\/(bootstrap|project)/.test(f)).sort()).toEqual([
      'argocd/bootstrap.eu.yaml', 'argocd/bootstrap.us.yaml', 'argocd/project.eu.yaml', 'argocd/project.us.yaml',
    ]);
    expect(synced(two, 'argocd/bootstrap.eu.yaml')).toEqual([
      'argocd/dev.yaml', 'argocd/helm-repository.yaml', 'argocd/prod-eu.yaml', 'argocd/project.eu.yaml', 'argocd/staging.yaml',
    ]);
    expect(synced(two, 'argocd/bootstrap.us.yaml')).toEqual(['argocd/helm-repository.yaml', 'argocd/prod-us.yaml', 'argocd/project.us.yaml']);
  });

  it('allows in each instance\'s AppProject only the destinations of its own clusters', () => {
    const destinations = (file: string) => [...new Set((parse(two.get(file)!) as { spec: { destinations: { name?: string; server?: string }[] } })
      .spec.destinations.map((d) => d.name ?? d.server))].sort();
    expect(destinations('argocd/project.eu.yaml')).toEqual(['dev', 'https://kubernetes.default.svc', 'prod-eu', 'staging']);
    expect(destinations('argocd/project.us.yaml')).toEqual(['https://kubernetes.default.svc', 'prod-us']);
  });

  it('keeps argocd/bootstrap.yaml and argocd/project.yaml, byte for byte, for a fleet that names its one instance', () => {
    const clusters = Object.fromEntries(CLUSTERS.map((c) => [c, { destination: { name: c } }]));
    const plain = files({}, clusters);
    const one = files({ argocd: { eu: INSTANCES.eu } }, clusters);
    expect(one).toEqual(plain);
    expect(synced(one, 'argocd/bootstrap.yaml')).toEqual([...CLUSTERS.map((c) => `argocd/${c}.yaml`), 'argocd/helm-repository.yaml', 'argocd/project.yaml'].sort());
  });
});

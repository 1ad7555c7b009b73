/**
 * `npm run promote` (issue 24): whether a revision may move to a stage, from the Applications
 * Argo CD reports. Statuses are built by test/support/argocd-status.ts from Argo CD's Go types.
 */
import { writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import { aFleetConfig, cli, Fleet, removeFleets } from '../review/fleet';
import { promotion } from '../../src/promote/promote';
import { synthesize } from '../../src/synth';
import { aCluster, aPlatform, aPool } from '../pool-builders';
import { anApplicationStatus, StatusOptions } from '../support/argocd-status';

const SHA = '0123456789abcdef0123456789abcdef01234567';
const platform = aPlatform([
  aCluster([aPool(), aPool({}, { name: 'ml-gpu', team: 'ml' })], { id: 'dev', stage: 1 }),
  aCluster([aPool()], { id: 'staging', stage: 2 }),
  aCluster([aPool()], { id: 'prod', stage: 3 }),
]);
const files = synthesize(platform);

/** The Application the generator wrote, with the status Argo CD would report. */
function live(cluster: string, file: string, status: StatusOptions = {}): Record<string, unknown> {
  const path = file === 'root' ? `argocd/${cluster}.yaml` : `dist/${cluster}/apps/${file}.yaml`;
  const app = parse(files.get(path)!) as Record<string, unknown>;
  return { ...app, status: anApplicationStatus(app as never, { revision: SHA, ...status }) };
}
/** Every Application of a cluster the generator wrote (its root and its children), synced at SHA and healthy, but for `overrides` by file. */
function cluster(id: string, overrides: Record<string, StatusOptions> = {}): Record<string, unknown>[] {
  const children = [...files.keys()].filter((p) => p.startsWith(`dist/${id}/apps/`)).map((p) => p.slice(`dist/${id}/apps/`.length, -'.yaml'.length));
  return ['root', ...children].map((file) => live(id, file, overrides[file]));
}
const list = (...items: unknown[]) => ({ apiVersion: 'v1', kind: 'List', items });
const DEV_APPS = ['dev-karpenter-root', 'dev-karpenter-crd', 'dev-karpenter', 'dev-pools-web', 'dev-pools-ml', 'dev-drift-gate'];

describe('promote', () => {
  it('is ready when every automated Application of the stage before, its root and drift gate included, is Synced at the revision and Healthy', () => {
    const decision = promotion(platform, 2, SHA, list(...cluster('dev'), live('staging', 'pools-web', { health: 'Progressing' })));
    expect(decision).toEqual({ ready: true, command: `git push origin ${SHA}:refs/heads/karpenter-gitops/stage-2`, blockers: [], checked: DEV_APPS, noSuchStage: false });
  });

  it('holds back while the drift gate waits for Karpenter (Progressing), naming the Application and why', () => {
    const decision = promotion(platform, 2, SHA, list(...cluster('dev', { 'drift-gate': { health: 'Progressing' } })));
    expect(decision.ready).toBe(false);
    expect(decision.blockers).toEqual(['dev-drift-gate (cluster dev, stage 1): health is Progressing (the drift gate waits for Karpenter to finish with the revision)']);
  });

  it('holds back while the controller has not synced the revision (its values are a second source)', () => {
    const other = 'f'.repeat(40);
    const decision = promotion(platform, 2, SHA, list(...cluster('dev', { karpenter: { revision: other } })));
    expect(decision.blockers).toEqual([`dev-karpenter (cluster dev, stage 1): at revision ${other}, ${other}, not ${SHA}`]);
  });

  it('holds back when an Application is at another revision, out of sync, Degraded or missing', () => {
    const apps = cluster('dev', { 'pools-web': { revision: 'f'.repeat(40), sync: 'OutOfSync', health: 'Degraded' } }).filter((a) => (a.metadata as { name: string }).name !== 'dev-pools-ml');
    const decision = promotion(platform, 2, SHA, list(...apps));
    expect(decision.blockers).toEqual([
      `dev-pools-web (cluster dev, stage 1): sync is OutOfSync, at revision ${'f'.repeat(40)}, not ${SHA}, health is Degraded`,
      'dev-pools-ml (cluster dev, stage 1): not in the Applications given',
    ]);
  });

  it('checks only the stage before: stage 3 waits for staging, not dev', () => {
    const decision = promotion(platform, 3, SHA, list(...cluster('staging'), live('dev', 'pools-web', { health: 'Degraded' })));
    expect(decision).toMatchObject({ ready: true, command: `git push origin ${SHA}:refs/heads/karpenter-gitops/stage-3` });
  });

  it('says when the stage before has no stage ref yet: stage 3 waits for stage 2 to be promoted first', () => {
    const unresolved = { sync: 'Unknown' as const, health: 'Healthy' as const, conditions: [{ type: 'ComparisonError', message: "unable to resolve 'karpenter-gitops/stage-2' to a commit SHA" }] };
    const decision = promotion(platform, 3, SHA, list(live('staging', 'root', unresolved)));
    expect(decision.blockers[0]).toBe('staging-karpenter-root (cluster staging, stage 2): its stage ref karpenter-gitops/stage-2 does not exist yet: promote stage 2 first, sync is Unknown');
  });

  it('refuses stage 1 and a stage no cluster has', () => {
    expect(promotion(platform, 1, SHA, list()).blockers).toEqual([expect.stringMatching(/only stages 2 and later/)]);
    expect(promotion(platform, 4, SHA, list()).blockers).toEqual(['no cluster is at stage 4']);
  });

  it('uses gitops.stageRefPrefix', () => {
    const own = { ...platform, gitops: { ...platform.gitops, stageRefPrefix: 'release/' } };
    expect(promotion(own, 2, SHA, list(...cluster('dev'))).command).toBe(`git push origin ${SHA}:refs/heads/release/2`);
  });
});

describe('npm run promote', () => {
  afterAll(removeFleets);

  const staged = (web: Record<string, unknown> = {}) => aFleetConfig(['dev', 'prod'], { clusters: { dev: { stage: 1 }, prod: { stage: 2 } }, teams: { web } });
  const names = ['dev-karpenter-root', 'dev-karpenter-crd', 'dev-karpenter', 'dev-pools-web', 'dev-drift-gate'];
  /** The Applications of dev as Argo CD reports them, at `revision`; dev-pools-web with `health`. */
  const apps = (revision: string, health: StatusOptions['health'] = 'Healthy') => JSON.stringify(list(...names.map((name) => (
    { metadata: { name }, spec: {}, status: anApplicationStatus({ spec: {} }, { revision, health: name === 'dev-pools-web' ? health : 'Healthy' }) }))));
  const promote = (fleet: Fleet, revision: string, main = 'HEAD') => cli(['promote', '2', '--revision', revision, '--applications', `${fleet.dir}/apps.json`, '--main', main, '--config', fleet.configPath, '--outdir', fleet.dir]);

  it('exits 0 and prints the push when ready, 1 naming the Application when not', async () => {
    const fleet = await Fleet.create(staged());
    const sha = fleet.git('rev-parse', 'HEAD').trim();
    writeFileSync(`${fleet.dir}/apps.json`, apps(sha));
    expect(await promote(fleet, sha)).toMatchObject({ code: 0, out: expect.stringContaining(`git push origin ${sha}:refs/heads/karpenter-gitops/stage-2`) });
    writeFileSync(`${fleet.dir}/apps.json`, apps(sha, 'Degraded'));
    expect(await promote(fleet, sha)).toMatchObject({ code: 1, err: expect.stringMatching(/dev-pools-web \(cluster dev, stage 1\): health is Degraded/) });
  });

  it('does not promote a commit the main branch has since reverted, even when the stage before finished it', async () => {
    const fleet = await Fleet.create(staged());
    fleet.configure(staged({ expireAfter: '360h' }));
    await fleet.synth();
    fleet.commit('web nodes expire sooner');
    const change = fleet.git('rev-parse', 'HEAD').trim();
    fleet.git('revert', '--no-edit', 'HEAD');
    writeFileSync(`${fleet.dir}/apps.json`, apps(change));
    const held = await promote(fleet, change);
    expect(held.code).toBe(1);
    expect(held.err).toMatch(new RegExp(`cluster prod \\(stage 2\\): the main branch has changed its files since ${change} \\(a revert, or a newer change\\): stage 2 waits for stage 1 to finish the main branch's version`));
  });

  it('exits 2 for a stage no cluster is at (the workflow\'s loop ends there)', async () => {
    const fleet = await Fleet.create(staged());
    const sha = fleet.git('rev-parse', 'HEAD').trim();
    writeFileSync(`${fleet.dir}/apps.json`, apps(sha));
    expect(await cli(['promote', '3', '--revision', sha, '--applications', `${fleet.dir}/apps.json`, '--main', 'HEAD', '--config', fleet.configPath])).toMatchObject({ code: 2, err: expect.stringMatching(/no cluster is at stage 3/) });
  });
});

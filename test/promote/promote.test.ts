/**
 * `npm run promote` (issue 24): whether a revision may move to a stage, from the Applications
 * Argo CD reports. Statuses are built by test/support/argocd-status.ts from Argo CD's Go types.
 */
import { writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import { aTerraform, removeProjects, writeProject } from '../builders';
import { aFleetConfig, cli } from '../review/fleet';
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
  const app = parse(files.get(`dist/${cluster}/apps/${file}.yaml`)!) as Record<string, unknown>;
  return { ...app, status: anApplicationStatus(app as never, { revision: SHA, ...status }) };
}
const list = (...items: unknown[]) => ({ apiVersion: 'v1', kind: 'List', items });

describe('promote', () => {
  it('is ready when every pool Application of the stage before is Synced at the revision and Healthy', () => {
    const decision = promotion(platform, 2, SHA, list(live('dev', 'pools-web'), live('dev', 'pools-ml'), live('staging', 'pools-web', { health: 'Progressing' })));
    expect(decision).toEqual({ ready: true, command: `git push origin ${SHA}:refs/heads/karpenter-gitops/stage-2`, blockers: [], checked: ['dev-pools-web', 'dev-pools-ml'] });
  });

  it('holds back while a drift gate runs (Progressing), naming the Application and why', () => {
    const decision = promotion(platform, 2, SHA, list(live('dev', 'pools-web', { health: 'Progressing' }), live('dev', 'pools-ml')));
    expect(decision.ready).toBe(false);
    expect(decision.blockers).toEqual([expect.stringMatching(/^dev-pools-web \(cluster dev, stage 1\): health is Progressing \(its drift gate/)]);
  });

  it('holds back when an Application is at another revision, out of sync, Degraded or missing', () => {
    const decision = promotion(platform, 2, SHA, list(live('dev', 'pools-web', { revision: 'f'.repeat(40), sync: 'OutOfSync', health: 'Degraded' })));
    expect(decision.blockers).toEqual([
      `dev-pools-web (cluster dev, stage 1): sync is OutOfSync, at revision ${'f'.repeat(40)}, not ${SHA}, health is Degraded`,
      'dev-pools-ml (cluster dev, stage 1): not in the Applications given',
    ]);
  });

  it('checks only the stage before: stage 3 waits for staging, not dev', () => {
    const decision = promotion(platform, 3, SHA, list(live('staging', 'pools-web'), live('dev', 'pools-web', { health: 'Degraded' })));
    expect(decision).toMatchObject({ ready: true, command: `git push origin ${SHA}:refs/heads/karpenter-gitops/stage-3` });
  });

  it('refuses stage 1 and a stage no cluster has', () => {
    expect(promotion(platform, 1, SHA, list()).blockers).toEqual([expect.stringMatching(/only stages 2 and later/)]);
    expect(promotion(platform, 4, SHA, list()).blockers).toEqual(['no cluster is at stage 4']);
  });

  it('uses gitops.stageRefPrefix', () => {
    const own = { ...platform, gitops: { ...platform.gitops, stageRefPrefix: 'release/' } };
    expect(promotion(own, 2, SHA, list(live('dev', 'pools-web'), live('dev', 'pools-ml'))).command).toBe(`git push origin ${SHA}:refs/heads/release/2`);
  });
});

describe('npm run promote', () => {
  afterAll(removeProjects);

  it('exits 0 and prints the push when ready, 1 naming the Application when not', async () => {
    const config = aFleetConfig(['dev', 'prod'], { clusters: { dev: { stage: 1 }, prod: { stage: 2 } }, teams: { web: {} } });
    const project = writeProject({ config, terraform: { dev: aTerraform({ cluster_name: 'dev' }), prod: aTerraform({ cluster_name: 'prod' }) } });
    const appsFile = `${project.dir}/apps.json`;
    const apps = (health: StatusOptions['health']) => JSON.stringify(list({ metadata: { name: 'dev-pools-web' }, spec: {}, status: anApplicationStatus({ spec: {} }, { revision: SHA, health }) }));
    writeFileSync(appsFile, apps('Healthy'));
    const ok = await cli(['promote', '2', '--revision', SHA, '--applications', appsFile, '--config', project.configPath]);
    expect(ok).toMatchObject({ code: 0, out: expect.stringContaining(`git push origin ${SHA}:refs/heads/karpenter-gitops/stage-2`) });
    writeFileSync(appsFile, apps('Degraded'));
    const held = await cli(['promote', '2', '--revision', SHA, '--applications', appsFile, '--config', project.configPath]);
    expect(held).toMatchObject({ code: 1, err: expect.stringMatching(/dev-pools-web \(cluster dev, stage 1\): health is Degraded/) });
  });
});

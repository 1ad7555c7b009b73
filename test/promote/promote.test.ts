/**
 * `npm run promote` (issue 24): whether a revision may move to a stage, from the Applications
 * Argo CD reports. Statuses are built by test/support/argocd-status.ts from Argo CD's Go types.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parse, parseAllDocuments } from 'yaml';
import { aFleetConfig, cli, Fleet, removeFleets } from '../review/fleet';
import { mergeApplications } from '../../src/promote/live-applications';
import { promotionPlan } from '../../src/promote/plan';
import { applicationsIndex, promotion } from '../../src/promote/promote';
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
const json = (...items: unknown[]) => ({ apiVersion: 'v1', kind: 'List', items });
const list = (...items: unknown[]) => applicationsIndex(json(...items));
/** The Applications named, as the fleet's generator wrote them (its roots in argocd/, the rest under dist/<cluster>/apps/). */
function generated(fleet: Fleet, names: readonly string[]): { metadata: { name: string } }[] {
  const docs = readdirSync(`${fleet.dir}/argocd`).filter((f) => f.endsWith('.yaml')).map((f) => `${fleet.dir}/argocd/${f}`)
    .concat(readdirSync(`${fleet.dir}/dist`, { recursive: true, encoding: 'utf8' }).filter((f) => /\/apps\/[^/]+\.yaml$/.test(f)).map((f) => `${fleet.dir}/dist/${f}`))
    .flatMap((f) => parseAllDocuments(readFileSync(f, 'utf8')).map((d) => d.toJS() as { kind?: string; metadata: { name: string } }))
    .filter((d) => d.kind === 'Application');
  return names.map((n) => docs.find((d) => d.metadata.name === n)!);
}
/** When argocd-status.ts says every operation finished and every health last changed. */
const FINISHED = '2026-11-20T10:00:42Z';
const DEV_APPS = ['dev-karpenter-root', 'dev-karpenter-crd', 'dev-karpenter', 'dev-pools-web', 'dev-pools-ml', 'dev-drift-gate'];

describe('promote', () => {
  it('is ready when every automated Application of the stage before, its root and drift gate included, is Synced at the revision and Healthy', () => {
    const decision = promotion(platform, 2, SHA, list(...cluster('dev'), live('staging', 'pools-web', { health: 'Progressing' })), { now: Date.parse(FINISHED) });
    expect(decision).toEqual({
      ready: true, command: `git push origin ${SHA}:refs/heads/karpenter-gitops/stage-2`, blockers: [], checked: DEV_APPS, manual: [], noSuchStage: false,
      ref: 'karpenter-gitops/stage-2', soakMinutes: 0, finishedAt: Date.parse(FINISHED), soakRemainingMinutes: 0, state: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
  });

  it('holds back while the drift gate waits for Karpenter (Progressing), naming the Application and why', () => {
    const decision = promotion(platform, 2, SHA, list(...cluster('dev', { 'drift-gate': { health: 'Progressing' } })));
    expect(decision.ready).toBe(false);
    expect(decision.blockers).toEqual(['cluster dev (stage 1): dev-drift-gate: health is Progressing (the drift gate waits for Karpenter to finish with the revision)']);
  });

  it('holds back while the controller has not synced the revision (its values are a second source)', () => {
    const other = 'f'.repeat(40);
    const decision = promotion(platform, 2, SHA, list(...cluster('dev', { karpenter: { revision: other } })));
    expect(decision.blockers).toEqual([`cluster dev (stage 1): dev-karpenter: at revision ${other}, ${other}, not ${SHA}`]);
  });

  it('holds back when an Application is at another revision, out of sync, Degraded or missing', () => {
    const apps = cluster('dev', { 'pools-web': { revision: 'f'.repeat(40), sync: 'OutOfSync', health: 'Degraded' } }).filter((a) => (a.metadata as { name: string }).name !== 'dev-pools-ml');
    const decision = promotion(platform, 2, SHA, list(...apps));
    expect(decision.blockers).toEqual([
      `cluster dev (stage 1): dev-pools-web: sync is OutOfSync, at revision ${'f'.repeat(40)}, not ${SHA}, health is Degraded`,
      'cluster dev (stage 1): dev-pools-ml is not in the Applications given',
    ]);
  });

  it('checks only the stage before: stage 3 waits for staging, not dev', () => {
    const decision = promotion(platform, 3, SHA, list(...cluster('staging'), live('dev', 'pools-web', { health: 'Degraded' })));
    expect(decision).toMatchObject({ ready: true, command: `git push origin ${SHA}:refs/heads/karpenter-gitops/stage-3` });
  });

  it('says when the stage before has no stage ref yet: stage 3 waits for stage 2 to be promoted first', () => {
    const unresolved = { sync: 'Unknown' as const, health: 'Healthy' as const, conditions: [{ type: 'ComparisonError', message: "unable to resolve 'karpenter-gitops/stage-2' to a commit SHA" }] };
    const decision = promotion(platform, 3, SHA, list(live('staging', 'root', unresolved)));
    expect(decision.blockers[0]).toBe('cluster staging (stage 2): staging-karpenter-root: its stage ref karpenter-gitops/stage-2 does not exist yet: promote stage 2 first, sync is Unknown');
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
  const apps = (fleet: Fleet, revision: string, health: StatusOptions['health'] = 'Healthy') => JSON.stringify(json(...generated(fleet, names).map((app) => (
    { ...app, status: anApplicationStatus(app as never, { revision, health: app.metadata.name === 'dev-pools-web' ? health : 'Healthy' }) }))));
  const promote = (fleet: Fleet, revision: string, main = 'HEAD') => cli(['promote', '2', '--revision', revision, '--applications', `${fleet.dir}/apps.json`, '--main', main, '--config', fleet.configPath, '--outdir', fleet.dir]);

  it('exits 0 and prints the push when ready, 1 naming the Application when not', async () => {
    const fleet = await Fleet.create(staged());
    const sha = fleet.git('rev-parse', 'HEAD').trim();
    writeFileSync(`${fleet.dir}/apps.json`, apps(fleet, sha));
    expect(await promote(fleet, sha)).toMatchObject({ code: 0, out: expect.stringContaining(`git push origin ${sha}:refs/heads/karpenter-gitops/stage-2`) });
    writeFileSync(`${fleet.dir}/apps.json`, apps(fleet, sha, 'Degraded'));
    expect(await promote(fleet, sha)).toMatchObject({ code: 1, err: expect.stringMatching(/cluster dev \(stage 1\): dev-pools-web: health is Degraded/) });
  });

  it('does not promote a commit the main branch has since reverted, even when the stage before finished it', async () => {
    const fleet = await Fleet.create(staged());
    fleet.configure(staged({ expireAfter: '360h' }));
    await fleet.synth();
    fleet.commit('web nodes expire sooner');
    const change = fleet.git('rev-parse', 'HEAD').trim();
    fleet.git('revert', '--no-edit', 'HEAD');
    writeFileSync(`${fleet.dir}/apps.json`, apps(fleet, change));
    const held = await promote(fleet, change);
    expect(held.code).toBe(1);
    expect(held.err).toMatch(new RegExp(`cluster prod \\(stage 2\\): the main branch has changed its files since ${change} \\(a revert, or a newer change\\): stage 2 waits for stage 1 to finish the main branch's version`));
  });

  it('prints the decision as one JSON object with --format json: the soak left by --now, the environment, the push', async () => {
    const fleet = await Fleet.create({ ...staged(), gitops: { repoURL: 'https://github.com/acme/platform-gitops.git', stages: { 2: { soak: '1h', environment: 'production' } } } });
    const sha = fleet.git('rev-parse', 'HEAD').trim();
    writeFileSync(`${fleet.dir}/apps.json`, apps(fleet, sha));
    const decided = async (now: string) => {
      const r = await cli(['promote', '2', '--revision', sha, '--applications', `${fleet.dir}/apps.json`, '--main', 'HEAD', '--config', fleet.configPath, '--outdir', fleet.dir, '--now', now, '--format', 'json']);
      return { code: r.code, decision: JSON.parse(r.out) as Record<string, unknown> };
    };
    expect(await decided('2026-11-20T11:00:00Z')).toEqual({
      code: 1,
      decision: {
        version: 2, stage: 2, revision: sha, ready: false, push: null, ref: 'karpenter-gitops/stage-2', environment: 'production', soakMinutes: 60,
        finishedAt: FINISHED, soakRemainingMinutes: 1, checked: names, notWaitedFor: [], noSuchStage: false, state: expect.stringMatching(/^[0-9a-f]{16}$/),
        blockers: ['stage 2 soaks 1h after stage 1 finished at 2026-11-20T10:00:42Z (dev-karpenter-root Synced and Healthy, as Argo CD recorded it): 1m left'],
      },
    });
    expect(await decided('2026-11-20T11:01:00+00:00')).toMatchObject({ code: 0, decision: { ready: true, push: `git push origin ${sha}:refs/heads/karpenter-gitops/stage-2`, environment: 'production', soakRemainingMinutes: 0 } });
    expect(await cli(['promote', '2', '--revision', sha, '--applications', `${fleet.dir}/apps.json`, '--config', fleet.configPath, '--now', 'tomorrow']))
      .toMatchObject({ code: 2, err: expect.stringMatching(/--now takes a time with its offset, e\.g\. 2027-01-12T09:00:00Z \(given "tomorrow"\)/) });
  });

  it('reads one Applications file per Argo CD instance (comma-separated), and fails on an Application found in two', async () => {
    const fleet = await Fleet.create(staged());
    const sha = fleet.git('rev-parse', 'HEAD').trim();
    const all = JSON.parse(apps(fleet, sha)) as { items: unknown[] };
    writeFileSync(`${fleet.dir}/eu.json`, JSON.stringify(json(...all.items.slice(0, 2))));
    writeFileSync(`${fleet.dir}/us.json`, JSON.stringify(json(...all.items.slice(2))));
    const given = (files: string) => cli(['promote', '2', '--revision', sha, '--applications', files, '--main', 'HEAD', '--config', fleet.configPath, '--outdir', fleet.dir]);
    expect(await given(`${fleet.dir}/eu.json,${fleet.dir}/us.json`)).toMatchObject({ code: 0, out: expect.stringContaining(`git push origin ${sha}:refs/heads/karpenter-gitops/stage-2`) });
    expect(await given(`${fleet.dir}/eu.json`)).toMatchObject({ code: 1, err: expect.stringMatching(/cluster dev \(stage 1\): dev-karpenter, dev-pools-web, dev-drift-gate are not in the Applications given/) });
    expect(await given(`${fleet.dir}/eu.json,${fleet.dir}/eu.json`)).toMatchObject({
      code: 1, err: expect.stringMatching(new RegExp(`error: Application dev-karpenter-root is in ${fleet.dir}/eu.json and in ${fleet.dir}/eu.json`)),
    });
  });

  it('prints the plan of the promote workflow: npm run promote -- plan', async () => {
    const fleet = await Fleet.create(staged());
    const plan = await cli(['promote', 'plan', '--format', 'json', '--config', fleet.configPath]);
    expect(plan.code).toBe(0);
    expect(JSON.parse(plan.out)).toEqual({ version: 2, argocdNamespace: 'argocd', instances: [], reads: [{ name: 'argocd', kubeconfig: true, namespace: 'argocd', eksCluster: '', region: '', roleArn: '', runsOn: '' }], stages: [{ stage: 2, ref: 'karpenter-gitops/stage-2', soakMinutes: 0, clusters: ['prod'] }] });
    expect(await cli(['promote', 'plan', '--config', fleet.configPath])).toMatchObject({ code: 0, out: expect.stringContaining('  2 (karpenter-gitops/stage-2; follows the main branch): prod') });
    expect(await cli(['promote', 'plan', '--revision', 'abc', '--config', fleet.configPath])).toMatchObject({ code: 2, err: expect.stringMatching(/promote plan reads only the config: --revision go with a STAGE/) });
  });

  it('decides every stage for the promote workflow (promote decide): its outputs, its summary; and an approved push re-checks the state it was decided on (--expect-state)', async () => {
    const fleet = await Fleet.create(staged());
    const sha = fleet.git('rev-parse', 'HEAD').trim();
    fleet.git('update-ref', 'refs/remotes/origin/main', sha);
    mkdirSync(`${fleet.dir}/applications`);
    writeFileSync(`${fleet.dir}/applications/applications-argocd.json`, apps(fleet, sha));
    writeFileSync(`${fleet.dir}/output`, '');
    writeFileSync(`${fleet.dir}/summary`, '');
    const decided = await cli(['promote', 'decide', '--applications', `${fleet.dir}/applications/`, '--main', 'origin/main', '--config', fleet.configPath, '--outdir', fleet.dir,
      '--github-output', `${fleet.dir}/output`, '--summary', `${fleet.dir}/summary`]);
    expect(decided).toMatchObject({ code: 0, out: `stage 2: git push origin ${sha}:refs/heads/karpenter-gitops/stage-2` });
    const outputs = Object.fromEntries(readFileSync(`${fleet.dir}/output`, 'utf8').trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), JSON.parse(l.slice(l.indexOf('=') + 1)) as unknown]));
    expect(outputs).toEqual({ push: [{ stage: 2, revision: sha, ref: 'karpenter-gitops/stage-2', state: expect.stringMatching(/^[0-9a-f]{16}$/) }], approve: [], reread: [] });
    expect(readFileSync(`${fleet.dir}/summary`, 'utf8')).toContain(`stage 2: git push origin ${sha}:refs/heads/karpenter-gitops/stage-2`);
    const { state } = (outputs.push as { state: string }[])[0];
    const check = (expect: string, file = apps(fleet, sha)) => {
      writeFileSync(`${fleet.dir}/applications/applications-argocd.json`, file);
      writeFileSync(`${fleet.dir}/output`, '');
      return cli(['promote', '2', '--revision', sha, '--applications', `${fleet.dir}/applications/`, '--main', 'origin/main', '--config', fleet.configPath, '--outdir', fleet.dir,
        '--expect-state', expect, '--github-output', `${fleet.dir}/output`]);
    };
    expect(await check(state)).toMatchObject({ code: 0 });
    expect(readFileSync(`${fleet.dir}/output`, 'utf8')).toBe('ready=true\n');
    const other = await check('0'.repeat(16));
    expect(other).toMatchObject({ code: 0, err: expect.stringMatching(/Argo CD no longer says what the decision 0{16} was made on/) });
    expect(readFileSync(`${fleet.dir}/output`, 'utf8')).toBe('ready=false\n');
    // A file that is not Argo CD's: a located problem, exit 1, no output.
    expect(await check(state, '{"items":[{"metadata":{}}]}')).toMatchObject({ code: 1, err: expect.stringMatching(/applications-argocd\.json:1:\d+: items\[0\]\.metadata\.name/) });
  });

  it('exits 2 for a stage no cluster is at (the workflow\'s loop ends there)', async () => {
    const fleet = await Fleet.create(staged());
    const sha = fleet.git('rev-parse', 'HEAD').trim();
    writeFileSync(`${fleet.dir}/apps.json`, apps(fleet, sha));
    expect(await cli(['promote', '3', '--revision', sha, '--applications', `${fleet.dir}/apps.json`, '--main', 'HEAD', '--config', fleet.configPath])).toMatchObject({ code: 2, err: expect.stringMatching(/no cluster is at stage 3/) });
  });
});

/**
 * A cluster whose Applications sync by hand (`manualSync: true`, as adopt writes it) beside an
 * automated one of the same stage. Argo CD never syncs such an Application by itself (argo-cd
 * v3.5.1 controller/appcontroller.go l. 2332-2334: `autoSync` returns when
 * `SyncPolicy.IsAutomatedSyncEnabled` is false, pkg/apis/application/v1alpha1/types.go
 * l. 1531-1536), so the promotion cannot wait for it to reach the revision: it names it as not
 * waited for, and waits for the automated clusters as before.
 */
describe('promote: a cluster synced by hand (manualSync)', () => {
  const withAdopted = aPlatform([
    aCluster([aPool(), aPool({}, { name: 'ml-gpu', team: 'ml' })], { id: 'dev', stage: 1 }),
    aCluster([aPool()], { id: 'adopted', stage: 1, manualSync: true }),
    aCluster([aPool()], { id: 'staging', stage: 2 }),
  ]);

  it('does not wait for it, and names it: its Applications at another revision, OutOfSync, or missing hold nothing', () => {
    const behind = { revision: 'f'.repeat(40), sync: 'OutOfSync' as const };
    const adoptedApps = [{ metadata: { name: 'adopted-karpenter-root' }, spec: {}, status: anApplicationStatus({ spec: {} }, behind) }];
    const decision = promotion(withAdopted, 2, SHA, list(...cluster('dev'), ...adoptedApps), { now: Date.parse(FINISHED) });
    expect(decision).toMatchObject({ ready: true, checked: DEV_APPS, manual: ['adopted'], blockers: [] });
  });

  it('still holds for the automated clusters of the stage, naming the manual one apart', () => {
    const decision = promotion(withAdopted, 2, SHA, list(...cluster('dev', { 'pools-web': { health: 'Degraded' } })));
    expect(decision).toMatchObject({ ready: false, manual: ['adopted'], blockers: ['cluster dev (stage 1): dev-pools-web: health is Degraded'] });
  });

  it('waits for every cluster once manualSync is gone (the switch to automated sync)', () => {
    const automated = aPlatform(withAdopted.clusters.map((c) => ({ ...c, manualSync: undefined })));
    const decision = promotion(automated, 2, SHA, list(...cluster('dev')));
    expect(decision.manual).toEqual([]);
    expect(decision.blockers).toEqual(expect.arrayContaining(['cluster adopted (stage 1): no Application of the cluster is in the Applications given']));
  });
});

describe('npm run promote: a cluster synced by hand', () => {
  afterAll(removeFleets);
  const config = aFleetConfig(['dev', 'adopted', 'prod'], { clusters: { dev: { stage: 1 }, adopted: { stage: 1, manualSync: true }, prod: { stage: 2 } }, teams: { web: {} } });
  const names = ['dev-karpenter-root', 'dev-karpenter-crd', 'dev-karpenter', 'dev-pools-web', 'dev-drift-gate'];
  const NOT_WAITED = 'not waited for: cluster adopted (stage 1): synced by hand (manualSync: true): Argo CD never syncs its Applications by itself, so it gets the revision only when someone syncs it';

  it('promotes on the automated clusters of the stage before and says, in its output and its JSON, that the manual one is not waited for', async () => {
    const fleet = await Fleet.create(config);
    const sha = fleet.git('rev-parse', 'HEAD').trim();
    writeFileSync(`${fleet.dir}/apps.json`, JSON.stringify(json(...generated(fleet, names).map((app) => ({ ...app, status: anApplicationStatus(app as never, { revision: sha }) })))));
    const run = (...extra: string[]) => cli(['promote', '2', '--revision', sha, '--applications', `${fleet.dir}/apps.json`, '--main', 'HEAD', '--config', fleet.configPath, '--outdir', fleet.dir, ...extra]);
    const text = await run();
    expect(text.code).toBe(0);
    expect(text.out.split('\n')).toEqual([
      `stage 1 has ${sha}, synced and healthy (${names.join(', ')}); promote with:`,
      NOT_WAITED,
      `git push origin ${sha}:refs/heads/karpenter-gitops/stage-2`,
    ]);
    const asJson = await run('--format', 'json');
    expect(JSON.parse(asJson.out)).toMatchObject({
      ready: true, checked: names,
      notWaitedFor: [{ cluster: 'adopted', why: 'synced by hand (manualSync: true): Argo CD never syncs its Applications by itself, so it gets the revision only when someone syncs it' }],
    });
  });
});

/**
 * `app` as Argo CD recorded it: its last operation's `finishedAt` (or none, and its phase) and
 * the time its health last changed (controller/appcontroller.go v3.5.1 l. 1668-1677 and
 * l. 2245-2256); `null` leaves the field out, as Argo CD does when it has none.
 */
function recorded(app: Record<string, unknown>, times: { finishedAt?: string | null; healthSince?: string | null; phase?: string }): Record<string, unknown> {
  const status = structuredClone(app.status) as { operationState?: Record<string, unknown>; health: Record<string, unknown> };
  if (times.finishedAt === null) delete status.operationState!.finishedAt;
  else if (times.finishedAt !== undefined) status.operationState!.finishedAt = times.finishedAt;
  if (times.phase !== undefined) status.operationState!.phase = times.phase;
  if (times.healthSince === null) delete status.health.lastTransitionTime;
  else if (times.healthSince !== undefined) status.health.lastTransitionTime = times.healthSince;
  return { ...app, status };
}
const named = (name: string) => (a: Record<string, unknown>) => (a.metadata as { name: string }).name === name;
/** Stage 3 soaks 1h after stage 2 and pushes in the GitHub environment production. */
const soaked = { ...platform, gitops: { ...platform.gitops, stages: [{ stage: 3, soakMinutes: 60, environment: 'production' }] } };
const MINUTE = 60_000;

describe('promote: soak and approval (gitops.stages)', () => {
  // Staging's gate Job completed last: its Application turned Healthy at 12:00, its sync had ended at 10:00:42.
  const staging = () => cluster('staging').map((a) => (named('staging-drift-gate')(a) ? recorded(a, { healthSince: '2026-11-20T12:00:00Z' }) : a));
  const GATE_HEALTHY = Date.parse('2026-11-20T12:00:00Z');

  it('holds stage 3 until the soak has passed since the last Application of stage 2 became Synced and Healthy, as Argo CD recorded it', () => {
    const early = promotion(soaked, 3, SHA, list(...staging()), { now: GATE_HEALTHY + 59 * MINUTE });
    expect(early).toMatchObject({ ready: false, finishedAt: GATE_HEALTHY, soakMinutes: 60, soakRemainingMinutes: 1 });
    expect(early.blockers).toEqual(['stage 3 soaks 1h after stage 2 finished at 2026-11-20T12:00:00Z (staging-drift-gate Synced and Healthy, as Argo CD recorded it): 1m left']);
    expect(promotion(soaked, 3, SHA, list(...staging()), { now: GATE_HEALTHY + 60 * MINUTE })).toMatchObject({ ready: true, soakRemainingMinutes: 0, blockers: [] });
  });

  it('counts from a sync that ended after the health last changed (an Application Healthy all along)', () => {
    const apps = staging().map((a) => (named('staging-pools-web')(a) ? recorded(a, { finishedAt: '2026-11-20T12:30:00Z' }) : a));
    expect(promotion(soaked, 3, SHA, list(...apps), { now: GATE_HEALTHY + 60 * MINUTE })).toMatchObject({ ready: false, finishedAt: Date.parse('2026-11-20T12:30:00Z'), soakRemainingMinutes: 30 });
  });

  it('does not start the soak while a sync operation runs (a retry carries a finishedAt while Running), nor without any recorded time', () => {
    const running = staging().map((a) => (named('staging-karpenter')(a) ? recorded(a, { phase: 'Running' }) : a));
    expect(promotion(soaked, 3, SHA, list(...running), { now: GATE_HEALTHY + 600 * MINUTE }).blockers).toEqual([
      'stage 3 soaks 1h after stage 2 finished: a sync operation is running on staging-karpenter, so it has not finished',
    ]);
    const untimed = staging().map((a) => (named('staging-karpenter')(a) ? recorded(a, { finishedAt: null, healthSince: null }) : a));
    expect(promotion(soaked, 3, SHA, list(...untimed), { now: GATE_HEALTHY + 600 * MINUTE }).blockers).toEqual([
      expect.stringMatching(/^stage 3 soaks 1h after stage 2 finished, but Argo CD recorded no status\.operationState\.finishedAt or status\.health\.lastTransitionTime on staging-karpenter/),
    ]);
  });

  it('names the GitHub environment the push runs in, ready or not; none for a stage without one', () => {
    expect(promotion(soaked, 3, SHA, list(...staging()), { now: GATE_HEALTHY })).toMatchObject({ ready: false, environment: 'production' });
    expect(promotion(soaked, 3, SHA, list(...staging()), { now: GATE_HEALTHY + 2 * 60 * MINUTE })).toMatchObject({ ready: true, environment: 'production' });
    expect(promotion(soaked, 2, SHA, list(...cluster('dev'))).environment).toBeUndefined();
  });

  it('says how a busy main branch starves the stage', () => {
    expect(promotion(platform, 2, SHA, list(...cluster('dev')), { stillWanted: () => false }).blockers).toEqual([
      expect.stringMatching(/the main branch has changed its files since .* \(a main branch that changes them faster than stage 1 finishes starves stage 2: batch the changes, or hold merges until it is promoted\)$/),
    ]);
  });
});

describe('promote: several Argo CD instances', () => {
  it('reads every instance\'s Applications as one, and fails on a name found in two files', () => {
    const file = (from: string, ...items: unknown[]) => ({ from, items: [...list(...items).values()] });
    const { byName, problems } = mergeApplications([file('eu.json', ...cluster('dev')), file('us.json', ...cluster('staging'))]);
    expect(problems).toEqual([]);
    expect(promotion(platform, 3, SHA, byName)).toMatchObject({ ready: true });
    const twice = mergeApplications([file('eu.json', ...cluster('dev')), file('us.json', live('dev', 'drift-gate'))]);
    expect(twice.problems).toEqual(['Application dev-drift-gate is in eu.json and in us.json: give each Argo CD instance\'s Applications once (the same file twice, or a cluster two instances deploy?)']);
  });

  it('says which instance an Application missing from the files is read from', () => {
    const own = { ...platform, clusters: platform.clusters.map((c) => ({ ...c, argocd: c.id === 'dev' ? 'eu' : 'us' })) };
    expect(promotion(own, 2, SHA, list()).blockers[0]).toBe('cluster dev (stage 1): no Application of the cluster is in the Applications given (read from Argo CD eu)');
  });
});

describe('promote plan', () => {
  it('lists the Argo CD instances with their clusters, and each promoted stage with its ref, the ref it follows, its soak and environment', () => {
    const instances = [{ name: 'eu', eksCluster: 'argocd-eu', region: 'eu-west-1', roleArn: 'arn:aws:iam::111122223333:role/promote' }];
    const own = { ...soaked, gitops: { ...soaked.gitops, argocdInstances: instances }, clusters: soaked.clusters.map((c) => ({ ...c, argocd: 'eu' })) };
    expect(promotionPlan(own)).toEqual({
      version: 2, argocdNamespace: 'argocd',
      instances: [{ ...instances[0], clusters: ['dev', 'staging', 'prod'] }],
      reads: [{ name: 'eu', kubeconfig: false, namespace: 'argocd', eksCluster: 'argocd-eu', region: 'eu-west-1', roleArn: 'arn:aws:iam::111122223333:role/promote', runsOn: '' }],
      stages: [
        { stage: 2, ref: 'karpenter-gitops/stage-2', soakMinutes: 0, clusters: ['staging'] },
        { stage: 3, ref: 'karpenter-gitops/stage-3', follows: 'karpenter-gitops/stage-2', soakMinutes: 60, environment: 'production', clusters: ['prod'] },
      ],
    });
    expect(promotionPlan(platform).instances).toEqual([]);
  });
});

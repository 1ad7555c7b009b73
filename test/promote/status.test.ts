/**
 * The rollout page (`npm run promote -- status`, contract 9.1): per stage its commit, each
 * cluster's state (held, synced, replacing nodes, waiting, by hand, syncing) and what the next
 * promotion waits for; grouped so that a thousand clusters fit GitHub's job summary.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseApplications } from '../../src/promote/live-applications';
import { parseNodeClaims } from '../../src/promote/nodeclaims';
import { rolloutStatus } from '../../src/promote/status';
import { mermaidLabel, rolloutFlowchart, rolloutMarkdown, rolloutText } from '../../src/promote/status-markdown';
import { aTerraform, removeProjects, writeProject } from '../builders';
import { aFleetConfig, cli } from '../review/fleet';
import { aStagedCluster, aStagedPlatform, applicationsOf, bigFleet, FINISHED, list, NEW, NIGHTLY, OLD, parsed } from './status-fleet';

afterAll(removeProjects);

/** A NodeClaim of `pool`, Drifted when `drifted` (as Karpenter writes it: kubernetes-sigs/karpenter v1.14.1 drift.go l. 76-82). */
const aNodeClaim = (pool: string, drifted: boolean) => ({
  metadata: { name: `${pool}-x`, labels: { 'karpenter.sh/nodepool': pool } },
  status: { conditions: [{ type: 'Ready', status: 'True' }, ...(drifted ? [{ type: 'Drifted', status: 'True', reason: 'NodePoolDrifted' }] : [])] },
});
/** 12 of 40 drifted: web 10 of 30, batch 2 of 10. */
const NODECLAIMS = list(...[...Array(30).keys()].map((i) => aNodeClaim('web', i < 10)), ...[...Array(10).keys()].map((i) => aNodeClaim('batch', i < 2)));

describe('rolloutStatus', () => {
  const clusters = [
    aStagedCluster('dev-synced', 1), aStagedCluster('dev-held', 1), aStagedCluster('dev-window', 1, { window: NIGHTLY }),
    aStagedCluster('dev-manual', 1, { manualSync: true }), aStagedCluster('dev-syncing', 1), aStagedCluster('dev-unknown', 1),
    aStagedCluster('stg-synced', 2), aStagedCluster('stg-replacing', 2),
    aStagedCluster('prod', 3),
  ];
  const platform = aStagedPlatform(clusters);
  const [devSynced, devHeld, devWindow, devManual, devSyncing, , stgSynced, stgReplacing, prod] = clusters;
  const applications = parsed(list(
    ...applicationsOf(platform, devSynced, NEW),
    ...applicationsOf(platform, devHeld, NEW, { 'pools-web': { conditions: [{ type: 'SyncError', message: 'Failed to sync: NodePool.karpenter.sh "web" is invalid: spec.limits.cpu: Invalid value' }] } }),
    ...applicationsOf(platform, devWindow, OLD, { 'pools-web': { sync: 'OutOfSync' } }),
    ...applicationsOf(platform, devManual, OLD, { 'pools-web': { sync: 'OutOfSync' } }),
    ...applicationsOf(platform, devSyncing, NEW, { 'pools-batch': { sync: 'OutOfSync', operation: { phase: 'Running', message: 'waiting for healthy state' } } }),
    ...applicationsOf(platform, stgSynced, OLD),
    ...applicationsOf(platform, stgReplacing, OLD, { 'drift-gate': { health: 'Progressing' } }),
    ...applicationsOf(platform, prod, OLD, { 'karpenter-root': { sync: 'Unknown', conditions: [{ type: 'ComparisonError', message: "unable to resolve 'karpenter-gitops/stage-3' to a commit SHA" }] } }),
  ));
  // Monday 2026-11-23 20:00 UTC: 4h after stage 2 finished plus 3 days; Berlin's window opens Tuesday 02:00 (01:00 UTC), in 5h.
  const now = new Date('2026-11-23T20:00:00Z');
  const drift = new Map([['stg-replacing', parseNodeClaims('nc.json', NODECLAIMS).drift!]]);
  const status = rolloutStatus(platform, { applications, revisions: new Map([[1, NEW], [2, OLD]]), now, drift });
  const state = (id: string) => status.stages.flatMap((s) => s.clusters).find((c) => c.cluster === id);

  it('gives each cluster the first state that applies', () => {
    expect(Object.fromEntries(status.stages.flatMap((s) => s.clusters).map((c) => [c.cluster, c.state]))).toEqual({
      'dev-synced': 'synced', 'dev-held': 'held', 'dev-window': 'waiting', 'dev-manual': 'manual', 'dev-syncing': 'syncing', 'dev-unknown': 'unknown',
      'stg-synced': 'synced', 'stg-replacing': 'replacing', prod: 'waiting',
    });
  });

  it('says why, in the words of each state', () => {
    expect(state('dev-held')).toMatchObject({ why: 'SyncError', detail: expect.stringMatching(/^dev-held-pools-web: Failed to sync: NodePool.karpenter.sh "web" is invalid/) });
    expect(state('dev-window')).toMatchObject({ why: 'window nightly', detail: 'window opens Tue 02:00 Europe/Berlin (in 5h)' });
    expect(state('dev-manual')).toMatchObject({ why: 'synced by hand (manualSync)' });
    expect(state('dev-syncing')).toMatchObject({ why: 'syncing', detail: expect.stringMatching(/not at the revision: dev-syncing-pools-batch/) });
    expect(state('dev-unknown')).toMatchObject({ why: 'not in the Applications given', detail: expect.stringMatching(/^dev-unknown-karpenter-root, /) });
    expect(state('stg-replacing')).toMatchObject({ why: 'drift gate running', detail: 'since 2026-11-20T10:00:42Z; 12 of 40 nodes drifted: web 10/30, batch 2/10' });
    expect(state('prod')).toMatchObject({ why: "stage ref karpenter-gitops/stage-3 not created yet: not promoted" });
  });

  it('says what each promotion waits for: the stage before, the soak, the approval', () => {
    const [one, two, three] = status.stages;
    expect(one).toMatchObject({ stage: 1, ref: 'main', revision: NEW, promoted: true });
    expect(one.promotion).toBeUndefined();
    expect(two.promotion).toMatchObject({ revision: NEW, upToDate: false, ready: false, waitsFor: [expect.stringMatching(/^stage 1 to finish \([0-9]+ blockers\)$/)] });
    expect(three).toMatchObject({ promoted: false, ref: 'karpenter-gitops/stage-3' });
    // Stage 2 finished OLD when argocd-status.ts says; but its drift gate still runs on stg-replacing.
    expect(three.promotion?.waitsFor).toEqual([expect.stringMatching(/^stage 2 to finish \(1 blocker\)$/), 'soak 24h after it finishes', 'approval by the reviewers of GitHub environment production']);
  });

  it('counts the soak left once the stage before has finished', () => {
    const done = parsed(list(...applicationsOf(platform, stgSynced, OLD), ...applicationsOf(platform, stgReplacing, OLD)));
    const at = new Date(FINISHED + 4 * 3_600_000);
    const three = rolloutStatus(platform, { applications: done, revisions: new Map([[1, NEW], [2, OLD]]), now: at }).stages[2];
    expect(three.promotion).toMatchObject({ soakRemainingMinutes: 20 * 60, waitsFor: ['soak 24h: 20h left', 'approval by the reviewers of GitHub environment production'] });
    const later = rolloutStatus(platform, { applications: done, revisions: new Map([[1, NEW], [2, OLD]]), now: new Date(FINISHED + 25 * 3_600_000) });
    expect(later.stages[2].promotion).toMatchObject({ ready: true, soakRemainingMinutes: 0 });
    expect(rolloutMarkdown(later)).toContain('Next promotion: `2222222` from stage 2, ready: stage 2 has finished it; the push waits for a reviewer of GitHub environment production');
    expect(rolloutFlowchart(later)).toContain('s2 -->|"ready to promote"| s3');
  });

  it('without the Applications, says what the config and git say: refs, commits, windows', () => {
    const bare = rolloutStatus(platform, { revisions: new Map([[1, NEW]]), now });
    expect(bare.live).toBe(false);
    expect(bare.stages.map((s) => [s.stage, s.promoted, s.clusters.length])).toEqual([[1, true, 0], [2, false, 0], [3, false, 0]]);
    expect(bare.stages[0].windows).toEqual([{ name: 'nightly', clusters: 1, opens: 'Tue 02:00 Europe/Berlin (in 5h)' }]);
    expect(rolloutMarkdown(bare)).toMatch(/^- \*\*clusters\*\* \(6\): dev-synced, dev-held, dev-window, dev-manual, dev-syncing, dev-unknown$/m);
  });

  it('draws the stages with their commits and counts, labels quoted', () => {
    expect(rolloutFlowchart(status).split('\n')).toEqual([
      'flowchart LR',
      '  s1["stage 1 · main at 1111111<br/>1 synced · 0 replacing · 1 waiting · 1 held · 3 other"]',
      '  s2["stage 2 · karpenter-gitops/stage-2 at 2222222<br/>1 synced · 1 replacing · 0 waiting · 0 held"]',
      '  s3["stage 3 · karpenter-gitops/stage-3 not promoted<br/>0 synced · 0 replacing · 1 waiting · 0 held"]',
      expect.stringMatching(/^ {2}s1 -->\|"stage 1 to finish \([0-9]+ blockers\)"\| s2$/),
      '  s2 -->|"stage 2 to finish (1 blocker)"| s3',
    ]);
    expect(mermaidLabel('a"b#c<d>')).toBe('a#quot;b#35;c#lt;d#gt;');
  });
});

describe('reading the inputs', () => {
  it('fails when an Application is not what kubectl writes, naming the file, the item and the field', () => {
    const apps = list({ metadata: { name: 'dev-karpenter-root' } }, { metadata: { name: 'dev-pools-web' }, status: { sync: { status: 3 } } }, { status: {} });
    expect(parseApplications(JSON.stringify(apps, null, 2), 'apps.json').problems).toEqual([
      expect.stringMatching(/^apps\.json:\d+:\d+: items\[1\]\.status\.sync\.status: /),
      expect.stringMatching(/^apps\.json:\d+:\d+: items\[2\]\.metadata: /),
    ]);
    expect(parseApplications('[1]', 'apps.json').problems).toEqual([expect.stringMatching(/^apps\.json:\d+:\d+: /)]);
  });

  it('counts NodeClaims by their karpenter.sh/nodepool label and Drifted=True', () => {
    expect(parseNodeClaims('nc.json', NODECLAIMS).drift).toEqual({ drifted: 12, total: 40, pools: [{ pool: 'batch', drifted: 2, total: 10 }, { pool: 'web', drifted: 10, total: 30 }] });
    expect(parseNodeClaims('nc.json', { items: [{ metadata: { labels: { a: 1 } } }] }).problems).toEqual([expect.stringMatching(/^nc\.json: items\[0\]\.metadata\.labels\.a: /)]);
  });
});

describe('at a thousand clusters', () => {
  const { platform, applications, revisions } = bigFleet(1000);
  const page = rolloutMarkdown(rolloutStatus(platform, { applications, revisions, now: new Date(FINISHED) }));

  it('stays far under GitHub\'s job summary limit and reads in a screen or two: grouped, a few names and "and N more"', () => {
    // A step's summary may hold 1 MiB (GitHub Docs, Adding a job summary:
    // https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/workflow-commands-for-github-actions#adding-a-job-summary);
    // the runner drops a larger one whole ("$GITHUB_STEP_SUMMARY upload aborted, supports content up to a size of 1024k").
    expect(Buffer.byteLength(page)).toBeLessThan(16 * 1024);
    expect(page.split('\n').length).toBeLessThan(60);
    expect(page).toMatch(/^- \*\*held by a problem\*\* \(1\), sync Failed: c0000 \(c0000-pools-web: one or more objects failed to apply/m);
    expect(page).toMatch(/^- \*\*synced\*\* \(9\): c0001, c0002, c0003, c0004, c0005, c0006 … and 3 more$/m);
    expect(page).toMatch(/^- \*\*waiting\*\* \(900\), stage ref karpenter-gitops/m);
  });
});

describe('npm run promote -- status', () => {
  /** A three-stage fleet in a git repository whose stage-2 ref names its first commit. */
  function repository() {
    const ids = ['dev', 'staging', 'prod'];
    const config = aFleetConfig(ids, { clusters: { dev: { stage: 1 }, staging: { stage: 2 }, prod: { stage: 3 } }, gitops: { targetRevision: 'main' } });
    const project = writeProject({ config, terraform: Object.fromEntries(ids.map((id) => [id, aTerraform({ cluster_name: id })])) });
    const git = (...args: string[]) => execFileSync('git', ['-C', project.dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' }).trim();
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
    git('branch', 'karpenter-gitops/stage-2');
    return { ...project, sha: git('rev-parse', 'HEAD') };
  }

  it('prints the page, writes the Markdown with --out, and reads the stage refs from git', async () => {
    const project = repository();
    const platform = aStagedPlatform([aStagedCluster('dev', 1), aStagedCluster('staging', 2)]);
    const apps = list(...applicationsOf(platform, platform.clusters[0], project.sha, { 'pools-web': { health: 'Degraded' } }));
    writeFileSync(join(project.dir, 'apps.json'), JSON.stringify(apps));
    writeFileSync(join(project.dir, 'nc.json'), JSON.stringify(NODECLAIMS));
    const args = ['promote', 'status', '--applications', join(project.dir, 'apps.json'), '--nodeclaims', `staging=${join(project.dir, 'nc.json')}`, '--now', '2026-11-23T20:00:00Z', '--config', project.configPath, '--outdir', project.dir];
    const md = await cli([...args, '--format', 'markdown', '--out', join(project.dir, 'page.md')]);
    expect(md).toMatchObject({ code: 0, err: '' });
    expect(md.out).toContain(`### Stage 2 · \`karpenter-gitops/stage-2\` at \`${project.sha.slice(0, 7)}\` · 1 cluster`);
    expect(md.out).toContain('### Stage 3 · `karpenter-gitops/stage-3` (not created yet: not promoted) · 1 cluster');
    expect(md.out).toMatch(/^- \*\*held by a problem\*\* \(1\), health Degraded: dev \(dev-pools-web: health Degraded\)$/m);
    expect(readFileSync(join(project.dir, 'page.md'), 'utf8')).toBe(`${md.out}\n`);
    const json = await cli([...args, '--format', 'json']);
    expect(JSON.parse(json.out)).toMatchObject({ version: 1, live: true, stages: [{ stage: 1, revision: project.sha }, { stage: 2, revision: project.sha }, { stage: 3, promoted: false }] });
    const text = await cli(args);
    expect(text.out.split('\n')[0]).toBe('Where the rollout stands: 2026-11-23 20:00:00 UTC · 3 clusters in 3 stages · from the Applications Argo CD reports');
  });

  it('fails on Applications that are not what kubectl writes, and on options of the other forms', async () => {
    const project = repository();
    writeFileSync(join(project.dir, 'apps.json'), JSON.stringify(list({ metadata: { name: 'dev-karpenter-root' }, status: { health: { status: ['Healthy'] } } })));
    const bad = await cli(['promote', 'status', '--applications', join(project.dir, 'apps.json'), '--config', project.configPath, '--outdir', project.dir]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/apps\.json:1:\d+: items\[0\]\.status\.health\.status: /);
    const misused = await cli(['promote', 'status', '--revision', 'abc', '--config', project.configPath]);
    expect(misused).toMatchObject({ code: 2, err: expect.stringMatching(/promote status reads every stage's ref: --revision goes with a STAGE/) });
    const elsewhere = await cli(['promote', 'plan', '--out', 'x.md', '--format', 'markdown', '--config', project.configPath]);
    expect(elsewhere.err).toMatch(/--out goes with promote status[^]*--format markdown goes with promote status/);
  });
});

describe('docs/windows.md, "Where a rollout stands"', () => {
  it('shows the page as the command prints it', () => {
    const clusters = [
      aStagedCluster('dev', 1), aStagedCluster('dev-eu', 1, { window: NIGHTLY }), aStagedCluster('staging', 2), aStagedCluster('staging-eu', 2),
      aStagedCluster('prod-eu', 3, { window: NIGHTLY }), aStagedCluster('prod-us', 3),
    ];
    const platform = aStagedPlatform(clusters);
    const [dev, devEu, staging, stagingEu, prodEu, prodUs] = clusters;
    const PROD = '3'.repeat(40);
    const applications = parsed(list(
      ...applicationsOf(platform, dev, NEW), ...applicationsOf(platform, devEu, OLD, { 'pools-web': { sync: 'OutOfSync' } }),
      ...applicationsOf(platform, staging, OLD, { 'drift-gate': { health: 'Progressing' } }),
      ...applicationsOf(platform, stagingEu, OLD, { 'pools-batch': { sync: 'OutOfSync', operation: { phase: 'Failed', message: 'one or more objects failed to apply, reason: admission webhook "validation.karpenter.sh" denied the request' } } }),
      ...applicationsOf(platform, prodEu, PROD), ...applicationsOf(platform, prodUs, PROD),
    ));
    const status = rolloutStatus(platform, {
      applications, revisions: new Map([[1, NEW], [2, OLD], [3, PROD]]), now: new Date('2026-11-23T20:00:00Z'),
      drift: new Map([['staging', parseNodeClaims('nc.json', NODECLAIMS).drift!]]),
    });
    const page = readFileSync(join(__dirname, '../../docs/windows.md'), 'utf8');
    const shown = /```text\n(Where the rollout stands:[^]*?)\n```/.exec(page)?.[1];
    expect(shown).toBe(rolloutText(status).join('\n'));
  });
});

describe('a window that is open', () => {
  it('says "open now", not that it opens in a minute', () => {
    const cluster = aStagedCluster('prod', 1, { window: NIGHTLY });
    const platform = aStagedPlatform([cluster]);
    // Tuesday 01:30 UTC is 02:30 in Berlin (winter): inside the window (Tue 02:00 for 4h).
    const status = rolloutStatus(platform, { revisions: new Map(), now: new Date('2027-01-12T01:30:00Z') });
    expect(status.stages[0].windows).toEqual([{ name: 'nightly', clusters: 1, opens: 'open now' }]);
    const later = rolloutStatus(platform, { revisions: new Map(), now: new Date('2027-01-12T06:30:00Z') });
    expect(later.stages[0].windows[0].opens).toMatch(/^Tue 02:00 Europe\/Berlin \(in /);
  });
});

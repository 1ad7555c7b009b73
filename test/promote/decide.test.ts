/**
 * `npm run promote -- decide` (issue 45): what one run of the promote workflow pushes, decided
 * by the tool, not by bash in the workflow; an Argo CD instance out of reach holds only the stages
 * it serves; Applications are matched by destination and source, read with a schema; messages
 * grouped at fleet size. Statuses come from test/support/argocd-status.ts (Argo CD's Go types).
 */
import { parse } from 'yaml';
import type { Cluster, Platform } from '../../src/config/platform';
import { decide } from '../../src/promote/decide';
import { LiveApplication, parseApplications } from '../../src/promote/live-applications';
import { applicationsIndex, promotion } from '../../src/promote/promote';
import { synthesize } from '../../src/synth';
import { aCluster, aPlatform, aPool } from '../pool-builders';
import { anApplicationStatus, StatusOptions } from '../support/argocd-status';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const instances = [
  { name: 'eu', eksCluster: 'argocd-eu', region: 'eu-west-1', roleArn: 'arn:aws:iam::111122223333:role/promote-eu', runner: ['self-hosted', 'vpc-eu'] },
  { name: 'us', eksCluster: 'argocd-us', region: 'us-east-1', roleArn: 'arn:aws:iam::111122223333:role/promote-us' },
];
/** dev (stage 1, eu), staging-eu (2, eu), staging-us (2, us), prod-eu (3, eu), prod-us (4, us); stage 4 approved in production. */
function fleet(): Platform {
  const base = aPlatform([
    aCluster([aPool()], { id: 'dev', stage: 1, argocd: 'eu', destination: { name: 'dev' } }),
    aCluster([aPool()], { id: 'staging-eu', stage: 2, argocd: 'eu', destination: { name: 'staging-eu' } }),
    aCluster([aPool()], { id: 'staging-us', stage: 2, argocd: 'us', destination: { name: 'staging-us' } }),
    aCluster([aPool()], { id: 'prod-eu', stage: 3, argocd: 'eu', destination: { name: 'prod-eu' } }),
    aCluster([aPool()], { id: 'prod-us', stage: 4, argocd: 'us', destination: { name: 'prod-us' } }),
  ]);
  return { ...base, gitops: { ...base.gitops, argocdInstances: instances, stages: [{ stage: 4, soakMinutes: 0, environment: 'production' }] } };
}
const platform = fleet();
const files = synthesize(platform);

/** Every Application the generator wrote for a cluster, with the status Argo CD would report at `revision`. */
function appsOf(cluster: Cluster, revision: string, status: StatusOptions = {}): Record<string, unknown>[] {
  const paths = [`argocd/${cluster.id}.yaml`, ...[...files.keys()].filter((p) => p.startsWith(`dist/${cluster.id}/apps/`))];
  return paths.map((p) => parse(files.get(p) ?? '') as Record<string, unknown>)
    .filter((a) => a.kind === 'Application')
    .map((a) => ({ ...a, status: anApplicationStatus(a as never, { revision, ...status }) }));
}
const byId = (id: string) => platform.clusters.find((c) => c.id === id)!;
/** The read jobs' artifacts: one file per instance read. */
function read(perInstance: Record<string, Record<string, unknown>[]>) {
  return Object.entries(perInstance).map(([name, items]) => {
    const r = parseApplications(JSON.stringify({ apiVersion: 'v1', kind: 'List', items }), `applications/applications-${name}.json`);
    if (!r.read) throw new Error(r.problems.join('\n'));
    return r.read;
  });
}
/** Refs: main at C; stage 2 at B, stage 3 at A, stage 4 absent unless given. */
const refs = (more: Record<string, string> = {}) => (ref: string) => ({ 'origin/main': C, 'origin/karpenter-gitops/stage-2': B, 'origin/karpenter-gitops/stage-3': A, ...more } as Record<string, string>)[ref];

describe('promote decide', () => {
  it('pushes every ready stage in one run: stage 2 to main\'s commit, stage 3 to stage 2\'s; stage 4 goes to its reviewers, with the instances to read again', () => {
    const eu = [...appsOf(byId('dev'), C), ...appsOf(byId('staging-eu'), B), ...appsOf(byId('prod-eu'), A)];
    const us = [...appsOf(byId('staging-us'), B), ...appsOf(byId('prod-us'), A)];
    const { decided, problems } = decide(platform, read({ eu, us }), { commitOf: refs({ 'origin/karpenter-gitops/stage-4': C }), main: 'origin/main' });
    expect(problems).toEqual([]);
    expect(decided!.push.map((p) => [p.stage, p.revision])).toEqual([[2, C], [3, B]]);
    expect(decided!.approve).toEqual([expect.objectContaining({ stage: 4, revision: A, environment: 'production', state: expect.stringMatching(/^[0-9a-f]{16}$/) })]);
    // Stage 4 waits on prod-eu (stage 3), which Argo CD eu deploys: only eu is read again.
    expect(decided!.reread.map((l) => [l.name, l.runsOn])).toEqual([['eu', '["self-hosted","vpc-eu"]']]);
  });

  it('holds only the stages an unreadable instance serves: us out of reach holds stage 3 (it waits on staging-us), not stage 2', () => {
    const eu = [...appsOf(byId('dev'), C), ...appsOf(byId('staging-eu'), B), ...appsOf(byId('prod-eu'), A)];
    const { decided } = decide(platform, read({ eu }), { commitOf: refs(), main: 'origin/main' });
    expect(decided!.push.map((p) => p.stage)).toEqual([2]);
    expect(decided!.lines).toEqual(expect.arrayContaining([
      'Argo CD us: could not be read (see the read job); only the stages that wait on its clusters are held',
      'stage 3: held: Argo CD us could not be read, and it deploys stage 2\'s staging-us',
    ]));
    expect(decided!.lines.some((l) => l.startsWith('stage 4: '))).toBe(true);
  });

  it('pushes nothing when every stage is where it should be, and says so', () => {
    const { decided } = decide(platform, read({ eu: [], us: [] }), { commitOf: refs({ 'origin/karpenter-gitops/stage-2': C, 'origin/karpenter-gitops/stage-3': C, 'origin/karpenter-gitops/stage-4': C }), main: 'origin/main' });
    expect(decided).toMatchObject({ push: [], approve: [], reread: [] });
    expect(decided!.lines).toEqual(['stage 2: karpenter-gitops/stage-2 is at ' + C + ' already', 'stage 3: karpenter-gitops/stage-3 is at ' + C + ' already', 'stage 4: karpenter-gitops/stage-4 is at ' + C + ' already']);
  });

  it('stops at a stage whose stage before has no ref yet', () => {
    const { decided } = decide(platform, read({ eu: [], us: [] }), { commitOf: (ref) => (ref === 'origin/main' ? C : undefined), main: 'origin/main' });
    expect(decided!.lines).toEqual(expect.arrayContaining(['stage 3: waits for origin/karpenter-gitops/stage-2, which does not exist yet: stage 2 is promoted first']));
    expect(decided!.lines.some((l) => l.startsWith('stage 4'))).toBe(false);
  });

  it('refuses files that are not the read jobs\' artifacts, and a run with nothing read', () => {
    expect(decide(platform, [], { commitOf: refs(), main: 'origin/main' }).problems).toEqual(['no Argo CD instance\'s Applications could be read (see the read jobs): nothing is promoted']);
    const [eu] = read({ eu: [] });
    expect(decide(platform, [{ ...eu, from: 'eu.json' }], { commitOf: refs(), main: 'origin/main' }).problems).toEqual([
      'eu.json: decide reads the read jobs\' artifacts, applications-<instance>.json, one per Argo CD instance (eu, us)',
    ]);
  });
});

describe('promote: which Application is a cluster\'s', () => {
  const ready = (apps: Record<string, unknown>[]) => promotion(platform, 3, B, applicationsIndex({ items: [...apps, ...appsOf(byId('staging-us'), B)] }));
  it('takes an Application for the cluster\'s only when its destination and sources are the generator\'s', () => {
    expect(ready(appsOf(byId('staging-eu'), B)).ready).toBe(true);
    const elsewhere = appsOf(byId('staging-eu'), B).map((a): Record<string, unknown> => ((a.metadata as { name: string }).name === 'staging-eu-drift-gate'
      ? { ...a, spec: { ...(a.spec as object), destination: { name: 'someone-else', namespace: 'karpenter' } } } : a));
    const held = ready(elsewhere);
    expect(held.blockers).toEqual(['cluster staging-eu (stage 2): staging-eu-drift-gate: not this cluster\'s: its destination is name someone-else, the generator\'s name staging-eu']);
    const fork = appsOf(byId('staging-eu'), B).map((a) => ((a.metadata as { name: string }).name === 'staging-eu-pools-web'
      ? { ...a, spec: { ...(a.spec as object), source: { repoURL: 'https://github.com/someone/fork.git', path: 'dist/staging-eu/pools/web', targetRevision: B } } } : a));
    expect(ready(fork).blockers[0]).toMatch(/^cluster staging-eu \(stage 2\): staging-eu-pools-web: not this cluster's: no source is https:\/\/github.com\/acme\/platform-gitops.git dist\/staging-eu/);
  });

  it('reads revisions with a schema: a string is a located error, never a substring match', () => {
    const [app] = appsOf(byId('dev'), C) as { status: { sync: Record<string, unknown> } }[];
    const text = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ ...app, status: { ...app.status, sync: { ...app.status.sync, revisions: C } } }] }, null, 2);
    const { read: got, problems } = parseApplications(text, 'eu.json');
    expect(got).toBeUndefined();
    expect(problems).toEqual([expect.stringMatching(/^eu\.json:\d+:\d+: items\[0\]\.status\.sync\.revisions: expected a list, got "c{40}"$/)]);
  });
});

describe('promote at fleet size', () => {
  it('says 40 clusters held for one reason in one line, not one per Application', () => {
    const many = aPlatform(Array.from({ length: 41 }, (_, i) => aCluster([aPool()], { id: `c${String(i).padStart(3, '0')}`, stage: i === 40 ? 2 : 1, destination: { name: `c${i}` } })));
    const generated = synthesize(many);
    const apps = [...generated.entries()].filter(([p]) => /^argocd\/c0[0-3][0-9]\.yaml$|^dist\/c0[0-3][0-9]\/apps\//.test(p))
      .map(([, y]) => parse(y) as LiveApplication).filter((a) => (a as { kind?: string }).kind === 'Application')
      .map((a) => ({ ...a, status: anApplicationStatus(a as never, { revision: A, health: a.metadata.name.endsWith('-drift-gate') ? 'Progressing' : 'Healthy' }) }));
    const d = promotion(many, 2, A, applicationsIndex({ items: apps }));
    expect(d.blockers).toEqual([
      '40 clusters of stage 1 (c000, c001, c002, c003, c004, c005 … and 34 more): <cluster>-drift-gate: health is Progressing (the drift gate waits for Karpenter to finish with the revision)',
    ]);
    const none = promotion(many, 2, A, applicationsIndex({ items: [] }));
    expect(none.blockers).toEqual(['40 clusters of stage 1 (c000, c001, c002, c003, c004, c005 … and 34 more): no Application of the cluster is in the Applications given']);
  });
});

describe('promote decide: one approval per run', () => {
  it('hands one ready approval stage to approve per run, taking turns by the run\'s quarter hour, and says the others wait', () => {
    const base = fleet();
    const two = { ...base, gitops: { ...base.gitops, stages: [{ stage: 3, soakMinutes: 0, environment: 'production' }, { stage: 4, soakMinutes: 0, environment: 'production-us' }] } };
    const eu = [...appsOf(byId('dev'), C), ...appsOf(byId('staging-eu'), B), ...appsOf(byId('prod-eu'), A)];
    const us = [...appsOf(byId('staging-us'), B), ...appsOf(byId('prod-us'), A)];
    const at = (now: number) => decide(two, read({ eu, us }), { commitOf: refs({ 'origin/karpenter-gitops/stage-4': C }), main: 'origin/main', now }).decided!;
    const QUARTER = 15 * 60_000;
    const first = at(100 * QUARTER);
    const next = at(101 * QUARTER);
    expect([first.approve.map((p) => p.stage), next.approve.map((p) => p.stage)].sort()).toEqual([[3], [4]]);
    expect(first.lines).toEqual(expect.arrayContaining([expect.stringMatching(/^stage [34]: its reviewers are asked in another run \(one approval per run/)]));
  });
});

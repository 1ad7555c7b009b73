import type { Api } from '../../src/gate/api';
import { DENIED_LOOKS, NODECLAIM_PAGE_SIZE, reads, runGate } from '../../src/gate/run';
import { GATE_RBAC_RULES } from '../../src/gate/spec';
import { aLaunchedNodeClaim, aNodePool, argoApplies, karpenterMarksDrift } from '../support/karpenter';
import { KubeApiStandIn } from '../support/kube-api';
import { simulate } from './simulation';
import { aGateSpec, aWorld, karpenterLooks, serve, snapshotOf, World } from './world';

/** The revision rev2 of pool `web`: its spec changed (so its generation), its digest rev2. */
const REV2 = aGateSpec({ nodePools: [{ name: 'web', digest: 'rev2' }, { name: 'batch', digest: 'rev1' }] });
const argoAppliesRev2 = (world: World) => () => argoApplies(world.pools.web, 'rev2', { ...world.pools.web.spec, weight: 10 });
const lines = (said: readonly { line: string }[]) => said.map((s) => s.line);

describe('runGate: the gate over time, against the API server stand-in', () => {
  let api: KubeApiStandIn;
  beforeEach(async () => {
    api = await KubeApiStandIn.start();
  });
  afterEach(() => api.close());

  it('passes after the settle time when Karpenter is done, saying so, reading with GET only and the set-based selector, a page at a time', async () => {
    serve(api, aWorld());
    const run = await simulate(api, aGateSpec(), { horizonSeconds: 3600 });
    expect(run.result).toBe(0);
    expect(run.at).toBe(600);
    expect(lines(run.out)[0]).toBe('drift gate of cluster prod-eu: karpenter karpenter-1.14.1 (karpenter/karpenter); nodepools web, batch; ec2nodeclasses web, batch; nodeoverlays cheap; settle 600s, a look every 30s');
    expect(lines(run.out)).toContain('waiting (settled 0/600s): every condition holds');
    expect(lines(run.out)).toContain('waiting (settled 570/600s): every condition holds');
    expect(lines(run.out).at(-1)).toBe('done: karpenter karpenter-1.14.1 rolled out (2/2 available); 2 nodepools, 2 ec2nodeclasses, 1 nodeoverlay applied and observed; 2 nodeclaims, none drifted or built from an older spec; held 600s');
    expect(new Set(api.requests.map((r) => r.method))).toEqual(new Set(['GET']));
    expect(api.requests.map((r) => r.url)).toContain(`/apis/karpenter.sh/v1/nodeclaims?labelSelector=karpenter.sh%2Fnodepool%20in%20(web%2Cbatch)&limit=${NODECLAIM_PAGE_SIZE}`);
  });

  describe('the NodeClaims, a page at a time', () => {
    /** `n` more launched NodeClaims of pool web, `web-0002` on, the last one Drifted. */
    const moreClaims = (world: World, n: number) => {
      for (let i = 2; i < n + 2; i++) world.claims[`web-${String(i).padStart(4, '0')}`] = aLaunchedNodeClaim(`web-${String(i).padStart(4, '0')}`, world.pools.web, world.classes.web);
      karpenterMarksDrift(world.claims[`web-${String(n + 1).padStart(4, '0')}`], 'AMIDrift');
    };
    const lists = () => api.requests.filter((r) => r.url.startsWith('/apis/karpenter.sh/v1/nodeclaims?'));

    it('asks for NODECLAIM_PAGE_SIZE at a time and follows continue until a page has none, counting each NodeClaim once', async () => {
      const world = aWorld();
      moreClaims(world, 2 * NODECLAIM_PAGE_SIZE + 10);
      serve(api, world);
      const run = await simulate(api, aGateSpec({ settleSeconds: 60 }), { horizonSeconds: 600, events: [[90, () => api.remove('NodeClaim', `web-${String(2 * NODECLAIM_PAGE_SIZE + 11).padStart(4, '0')}`)]] });
      expect(run.result).toBe(0);
      // A look: three pages (100, 100 and 12 of the 212), the second and third by the token of the page before.
      expect(lists().slice(0, 3).map((r) => new URL(r.url, 'https://x').searchParams.get('continue') === null ? 'first' : 'continue')).toEqual(['first', 'continue', 'continue']);
      expect(lists().every((r) => r.url.includes(`&limit=${NODECLAIM_PAGE_SIZE}`))).toBe(true);
      expect(lines(run.out).find((l) => l.startsWith('waiting'))).toBe(`waiting (settled 0/60s): nodeclaim web-${String(2 * NODECLAIM_PAGE_SIZE + 11).padStart(4, '0')}: Drifted (AMIDrift)`);
      expect(lines(run.out).at(-1)).toMatch(new RegExp(`; ${2 * NODECLAIM_PAGE_SIZE + 11} nodeclaims, none drifted or built from an older spec; held 60s$`));
    });

    it('asks for the page after a full one even when it selects nothing (an empty last page): only continue says whether more remain', async () => {
      const world = aWorld();
      // web-1, batch-1 and 98 more: a full first page.
      moreClaims(world, NODECLAIM_PAGE_SIZE - 2);
      // NodeClaims of a pool the gate does not watch, after the web ones in key order: the last page selects none of them.
      for (let i = 0; i < 5; i++) world.claims[`zz-other-${i}`] = aLaunchedNodeClaim(`zz-other-${i}`, aNodePool('zz-other'), world.classes.web);
      serve(api, world);
      const run = await simulate(api, aGateSpec({ settleSeconds: 60 }), { horizonSeconds: 300 });
      expect(run.result).toBe('still waiting');
      expect(lists().slice(0, 2).map((r) => r.url.includes('&continue='))).toEqual([false, true]);
      expect(lines(run.out).at(-1)).toBe(`waiting (settled 0/60s): nodeclaim web-${String(NODECLAIM_PAGE_SIZE - 1).padStart(4, '0')}: Drifted (AMIDrift)`);
    });

    it('lists again from the first page when a continue token has expired (410 Gone), as the API server asks, and counts each NodeClaim once', async () => {
      const world = aWorld();
      moreClaims(world, NODECLAIM_PAGE_SIZE + 5);
      serve(api, world);
      api.expireContinueTokensAfter(1);
      const run = await simulate(api, aGateSpec({ settleSeconds: 60 }), { horizonSeconds: 600, events: [[30, () => api.remove('NodeClaim', `web-${String(NODECLAIM_PAGE_SIZE + 6).padStart(4, '0')}`)]] });
      expect(run.result).toBe(0);
      expect(lists().slice(0, 4).map((r) => `${r.url.includes('&continue=') ? 'continue' : 'first'} ${r.status}`)).toEqual(['first 200', 'continue 410', 'first 200', 'continue 200']);
      expect(lines(run.out)[1]).toMatch(/^GET \/apis\/karpenter\.sh\/v1\/nodeclaims\?\S+&continue=\S+: 410 Gone: The provided continue parameter is too old to display a consistent list result\. .*; listing again from the first page$/);
      expect(lines(run.out)[2]).toBe(`waiting (settled 0/60s): nodeclaim web-${String(NODECLAIM_PAGE_SIZE + 6).padStart(4, '0')}: Drifted (AMIDrift)`);
      expect(lines(run.out).at(-1)).toMatch(new RegExp(`; ${NODECLAIM_PAGE_SIZE + 6} nodeclaims, none drifted`));
    });
  });

  it('never passes while Karpenter never looks at the applied revision, however long', async () => {
    const world = aWorld();
    serve(api, world);
    argoAppliesRev2(world)();
    const run = await simulate(api, REV2, { horizonSeconds: 3 * 3600 });
    expect(run.result).toBe('still waiting');
    expect(lines(run.out).filter((l) => l.startsWith('done'))).toEqual([]);
    expect(lines(run.out).at(-1)).toMatch(/^waiting \(settled 0\/600s\): nodepool web: Karpenter has not observed generation 2 yet/);
  });

  it('waits while Argo CD has not applied the revision, then passes a settle time after Karpenter observed it', async () => {
    const world = aWorld();
    serve(api, world);
    const run = await simulate(api, REV2, { horizonSeconds: 3 * 3600, events: [[900, argoAppliesRev2(world)], [1200, () => karpenterLooks(world)]] });
    expect(run.result).toBe(0);
    expect(run.out.find((s) => s.at === 0)?.line).toBe('drift gate of cluster prod-eu: karpenter karpenter-1.14.1 (karpenter/karpenter); nodepools web, batch; ec2nodeclasses web, batch; nodeoverlays cheap; settle 600s, a look every 30s');
    expect(run.out.filter((s) => s.at === 870).map((s) => s.line)).toEqual(['waiting (settled 0/600s): nodepool web: digest rev1, this revision\'s is rev2: Argo CD has not applied this revision yet']);
    expect(run.out.filter((s) => s.at === 900).map((s) => s.line)).toEqual([expect.stringMatching(/^waiting \(settled 0\/600s\): nodepool web: Karpenter has not observed generation 2 yet/)]);
    expect(run.at).toBe(1200 + 600);
  });

  it('waits for a NodeClaim built from the older NodePool, and passes a settle time after it is gone', async () => {
    const world = aWorld();
    serve(api, world);
    const spec = aGateSpec({ nodePools: [{ name: 'web', digest: 'rev2' }, { name: 'batch', digest: 'rev1' }] });
    argoApplies(world.pools.web, 'rev2', { ...world.pools.web.spec, template: { spec: { ...(world.pools.web.spec.template as { spec: object }).spec, expireAfter: '360h' } } });
    karpenterLooks(world);
    const replaced = () => {
      api.remove('NodeClaim', 'web-1');
      world.claims['web-2'] = aLaunchedNodeClaim('web-2', world.pools.web, world.classes.web);
      api.put(world.claims['web-2']);
    };
    const run = await simulate(api, spec, { horizonSeconds: 3 * 3600, events: [[3000, replaced]] });
    expect(run.out.find((s) => s.at === 0 && s.line.startsWith('waiting'))?.line).toMatch(/^waiting \(settled 0\/600s\): nodeclaim web-1: built from an older NodePool web/);
    expect(run.result).toBe(0);
    expect(run.at).toBe(3000 + 600);
  });

  it('starts the settle time again when a NodeClaim turns Drifted mid-settle', async () => {
    const world = aWorld();
    serve(api, world);
    const run = await simulate(api, aGateSpec(), {
      horizonSeconds: 3 * 3600,
      events: [[300, () => karpenterMarksDrift(world.claims['batch-1'], 'AMIDrift')], [330, () => api.remove('NodeClaim', 'batch-1')]],
    });
    expect(run.out.filter((s) => s.at === 300).map((s) => s.line)).toEqual(['waiting (settled 0/600s): nodeclaim batch-1: Drifted (AMIDrift)']);
    expect(run.out.filter((s) => s.at === 270).map((s) => s.line)).toEqual(['waiting (settled 270/600s): every condition holds']);
    expect(run.result).toBe(0);
    expect(run.at).toBe(330 + 600);
  });

  it('never passes while the controller is down or runs the older chart', async () => {
    const world = aWorld();
    Object.assign(world.deployment.status, { availableReplicas: 0, readyReplicas: 0 });
    serve(api, world);
    const down = await simulate(api, aGateSpec(), { horizonSeconds: 2 * 3600 });
    expect(down.result).toBe('still waiting');
    expect(lines(down.out).at(-1)).toBe('waiting (settled 0/600s): karpenter: 0/2 replicas available');
    Object.assign(world.deployment.status, { availableReplicas: 2, readyReplicas: 2 });
    world.deployment.metadata.labels!['helm.sh/chart'] = 'karpenter-1.13.1';
    const old = await simulate(api, aGateSpec(), { horizonSeconds: 2 * 3600 });
    expect(old.result).toBe('still waiting');
    expect(lines(old.out).at(-1)).toBe('waiting (settled 0/600s): karpenter: runs chart karpenter-1.13.1, this revision\'s is karpenter-1.14.1');
  });

  it('asks again, with backoff, when the API server fails twice (503), and passes', async () => {
    serve(api, aWorld());
    api.script(/nodepools\/web$/, 503, 503);
    const run = await simulate(api, aGateSpec(), { horizonSeconds: 3600 });
    expect(run.result).toBe(0);
    expect(lines(run.out).filter((l) => l.startsWith('GET'))).toEqual([
      'GET /apis/karpenter.sh/v1/nodepools/web: 503 Service Unavailable: the server is currently unable to handle the request; asking again in 1s (attempt 1)',
      'GET /apis/karpenter.sh/v1/nodepools/web: 503 Service Unavailable: the server is currently unable to handle the request; asking again in 2s (attempt 2)',
    ]);
    expect(api.requests.filter((r) => r.url.endsWith('/nodepools/web')).slice(0, 3).map((r) => r.status)).toEqual([503, 503, 200]);
  });

  it('fails when the API server denies a read on 5 looks in a row, naming the ClusterRole and the rule', async () => {
    serve(api, aWorld());
    api.script(/nodeclaims/, ...Array<number>(DENIED_LOOKS).fill(403));
    const run = await simulate(api, aGateSpec(), { horizonSeconds: 3600 });
    expect(run.result).toBe(1);
    expect(run.at).toBe((DENIED_LOOKS - 1) * 30);
    expect(lines(run.out).filter((l) => l.startsWith('waiting'))).toHaveLength(DENIED_LOOKS - 1);
    expect(lines(run.out)[1]).toMatch(/^waiting \(settled 0\/600s\): nodeclaims: 403 Forbidden \(1\/5\): .*is forbidden/);
    expect(lines(run.err)).toEqual([expect.stringMatching(/^error: the API server denied the gate's reads 5 looks in a row: list nodeclaims\.karpenter\.sh \(403 Forbidden: .*\): check that the ClusterRole karpenter-gitops-drift-gate grants them to this Job's ServiceAccount$/)]);
  });

  it('does not fail on denials that are not 5 looks in a row, and starts the settle time after them', async () => {
    serve(api, aWorld());
    api.script(/deployments/, 403, 403, 403, 403, 200, 401);
    const run = await simulate(api, aGateSpec(), { horizonSeconds: 3600 });
    expect(run.result).toBe(0);
    expect(lines(run.out).filter((l) => /\((\d)\/5\)/.test(l)).map((l) => /\((\d)\/5\)/.exec(l)![1])).toEqual(['1', '2', '3', '4', '1']);
    expect(run.at).toBe(6 * 30 + 600);
  });
});

describe('reads: what a look asks the API server', () => {
  it('is allowed by GATE_RBAC_RULES, read by path as the API server authorizes it (get a named object, list a collection)', () => {
    const r = reads(aGateSpec());
    const all = [r.deployment, ...[...r.nodePools, ...r.nodeClasses, ...r.nodeOverlays].map((x) => x.read), r.nodeClaims!];
    const requests = all.map((x) => {
      const m = /^\/apis\/([^/]+)\/[^/]+\/(?:namespaces\/[^/]+\/)?([^/?]+)(\/[^/?]+)?(\?.*)?$/.exec(x.path)!;
      return { group: m[1], resource: m[2], verb: m[3] ? 'get' : 'list' };
    });
    expect(requests.filter((q) => !GATE_RBAC_RULES.some((rule) => rule.apiGroups.includes(q.group) && rule.resources.includes(q.resource) && rule.verbs.includes(q.verb)))).toEqual([]);
    expect(new Set(requests.map((q) => `${q.verb} ${q.resource}.${q.group}`))).toEqual(new Set(GATE_RBAC_RULES.flatMap((rule) => rule.resources.flatMap((res) => rule.verbs.map((v) => `${v} ${res}.${rule.apiGroups[0]}`)))));
  });
});

describe('runGate: answers the API server would not give', () => {
  it('does not read a NodeClaim list without items as "no NodeClaims": it asks again', async () => {
    const world = aWorld();
    const seen = snapshotOf(world);
    let lists = 0;
    const objects: Record<string, unknown> = {
      '/apis/apps/v1/namespaces/karpenter/deployments/karpenter': seen.deployment,
      ...Object.fromEntries(Object.entries(seen.nodePools).map(([n, o]) => [`/apis/karpenter.sh/v1/nodepools/${n}`, o])),
      ...Object.fromEntries(Object.entries(seen.nodeClasses).map(([n, o]) => [`/apis/karpenter.k8s.aws/v1/ec2nodeclasses/${n}`, o])),
      ...Object.fromEntries(Object.entries(seen.nodeOverlays).map(([n, o]) => [`/apis/karpenter.sh/v1alpha1/nodeoverlays/${n}`, o])),
    };
    const fake: Api = {
      get: (path) => {
        if (path.startsWith('/apis/karpenter.sh/v1/nodeclaims?')) {
          lists += 1;
          return Promise.resolve({ kind: 'ok', body: lists === 1 ? { kind: 'NodeClaimList' } : { kind: 'NodeClaimList', items: Object.values(world.claims) } });
        }
        return Promise.resolve({ kind: 'ok', body: objects[path] });
      },
      close: () => undefined,
    };
    const out: string[] = [];
    let now = 0;
    const code = await runGate(aGateSpec({ settleSeconds: 60 }), fake, { now: () => now, sleep: (ms) => Promise.resolve(void (now += ms)), out: (l) => out.push(l), err: (l) => out.push(l) });
    expect(code).toBe(0);
    expect(out[1]).toMatch(/^GET \/apis\/karpenter\.sh\/v1\/nodeclaims\?labelSelector=\S+: a list answer without items \(unexpected\); asking again in 1s \(attempt 1\)$/);
  });
});

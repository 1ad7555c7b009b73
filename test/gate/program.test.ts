import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { buildGatePrograms, GATE_PROGRAM_FILE, gateProgramFile } from '../../scripts/gate-program';
import { DRIFT_GATE_PROGRAM, GUARD_GATE_PROGRAM } from '../../src/gate/program.generated';
import type { GateSpec } from '../../src/gate/spec';
import { argoApplies } from '../support/karpenter';
import { KubeApiStandIn } from '../support/kube-api';
import { aBinding, aGuardSpec, aPolicy } from './guard-world';
import { aGateSpec, aWorld, serve } from './world';
import { nodeArgs } from './shipped';

const ROOT = join(__dirname, '..', '..');

/** Runs the shipped text as the Job does (the drift gate's as its ConfigMap's file, `node /gate/gate.js`; the guard gate's as `node -e <text>`), with a pod's environment of the stand-in's cluster. */
function runShipped(env: Record<string, string>, onOut?: (text: string, child: ReturnType<typeof spawn>) => void, program = DRIFT_GATE_PROGRAM): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, nodeArgs(program), { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
    onOut?.(out, child);
  });
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

/** A quick gate: one second of settle, a look every 0.2 s. */
const quick = (spec: Partial<GateSpec> = {}) => JSON.stringify(aGateSpec({ settleSeconds: 1, pollSeconds: 0.2, ...spec }));

describe('DRIFT_GATE_PROGRAM: the text the Job runs', () => {
  it('is the bundle of src/gate/ as it is now, each program (else: npm run gate)', () => {
    const built = buildGatePrograms(ROOT);
    const fresh = DRIFT_GATE_PROGRAM === built.drift && GUARD_GATE_PROGRAM === built.guard && readFileSync(join(ROOT, GATE_PROGRAM_FILE), 'utf8') === gateProgramFile(built);
    expect(fresh ? 'fresh' : `${GATE_PROGRAM_FILE} is stale: run npm run gate`).toBe('fresh');
  });

  it.each([['drift gate', DRIFT_GATE_PROGRAM, 'main.ts'], ['guard gate', GUARD_GATE_PROGRAM, 'guard-main.ts']])('is a CommonJS script for node (the %s): no import or export statement, only node: built-ins, no path of this machine', (_, program, entry) => {
    // A script (not a module): an import or export statement would not compile.
    expect(() => new Script(program)).not.toThrow();
    expect([...program.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]).sort()).toEqual(['node:fs', 'node:http', 'node:https', 'node:path']);
    expect(program).not.toContain(ROOT);
    expect(program.match(/^\/\/ .*$/gm)).toEqual(expect.arrayContaining([`// src/gate/${entry}`]));
  });

  it('fits in one argument of a process: Linux limits one to 128 KiB (MAX_ARG_STRLEN)', () => {
    expect(Buffer.byteLength(DRIFT_GATE_PROGRAM)).toBeLessThan(128 * 1024);
    expect(Buffer.byteLength(GUARD_GATE_PROGRAM)).toBeLessThan(128 * 1024);
  });

  describe('run as node /gate/gate.js against the API server stand-in', () => {
    let api: KubeApiStandIn;
    beforeEach(async () => {
      api = await KubeApiStandIn.start();
    });
    afterEach(() => api.close());

    it('exits 0 once Karpenter is done and it held for the settle time', async () => {
      serve(api, aWorld());
      const run = await runShipped({ ...api.env(), GATE: quick() });
      expect(run).toMatchObject({ code: 0, err: '' });
      const lines = run.out.trim().split('\n');
      expect(lines[0]).toMatch(/^reading https:\/\/127\.0\.0\.1:\d+ as the ServiceAccount of .*\/token$/);
      // Held at least the settle time (1 s); a busy machine's polls can make it a little more.
      expect(lines.at(-1)).toMatch(/^done: karpenter karpenter-1\.14\.1 rolled out \(2\/2 available\); .*; held [1-9]\d*s$/);
    });

    it('exits 1 when the API server keeps denying a read, naming the ClusterRole', async () => {
      serve(api, aWorld());
      api.script(/nodeclaims/, 403, 403, 403, 403, 403);
      const run = await runShipped({ ...api.env(), GATE: quick() });
      expect(run.code).toBe(1);
      expect(run.err).toMatch(/^error: the API server denied the gate's reads 5 looks in a row: list nodeclaims\.karpenter\.sh .*check that the ClusterRole karpenter-gitops-drift-gate grants them/);
    });

    it('exits 1 on a GATE it cannot read, or outside a pod, saying why', async () => {
      expect(await runShipped({ ...api.env(), GATE: '{"cluster":"prod-eu"}' })).toMatchObject({ code: 1, out: '', err: expect.stringMatching(/^error: GATE: controller: expected an object, got nothing\n/) });
      expect(await runShipped({ GATE: quick() })).toMatchObject({ code: 1, err: expect.stringMatching(/^error: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set/) });
    });

    it('stops at once on SIGTERM, with 128 + 15', async () => {
      const world = aWorld();
      serve(api, world);
      argoApplies(world.pools.web, 'rev0');
      const run = await runShipped({ ...api.env(), GATE: quick() }, (out, child) => {
        if (out.includes('waiting (settled 0/1s)') && child.exitCode === null && !child.killed) child.kill('SIGTERM');
      });
      expect(run.code).toBe(143);
      expect(run.out.trim().split('\n').at(-1)).toBe('stopped: SIGTERM');
    });
  });
});

describe('GUARD_GATE_PROGRAM: run as node -e against the API server stand-in', () => {
  let api: KubeApiStandIn;
  beforeEach(async () => {
    api = await KubeApiStandIn.start();
  });
  afterEach(() => api.close());
  const quick = JSON.stringify(aGuardSpec({ settleSeconds: 0.4, pollSeconds: 0.2 }));

  it('exits 0 once the team\'s policy is live and held for the settle time', async () => {
    api.put(aPolicy('karpenter-gitops-team-pools', { web: 'd2' }), aBinding('karpenter-gitops-team-pools'));
    const run = await runShipped({ ...api.env(), GUARD: quick }, undefined, GUARD_GATE_PROGRAM);
    expect(run).toMatchObject({ code: 0, err: '' });
    expect(run.out.trim().split('\n').at(-1)).toMatch(/^done: team web's pools are guarded by karpenter-gitops-team-pools; held \d+s$/);
  });

  it('exits 1 on a GUARD it cannot read, saying why', async () => {
    expect(await runShipped({ ...api.env(), GUARD: '{"cluster":"prod-eu"}' }, undefined, GUARD_GATE_PROGRAM)).toMatchObject({ code: 1, out: '', err: expect.stringMatching(/^error: GUARD: team: expected a non-empty string, got nothing\n/) });
  });

  it('stops at once on SIGTERM, with 128 + 15 (how the Job\'s deadline ends it)', async () => {
    const run = await runShipped({ ...api.env(), GUARD: quick }, (out, child) => {
      if (out.includes('waiting: 0 of 1 policy live') && child.exitCode === null && !child.killed) child.kill('SIGTERM');
    }, GUARD_GATE_PROGRAM);
    expect(run.code).toBe(143);
    expect(run.out.trim().split('\n').at(-1)).toBe('stopped: SIGTERM');
  });
});

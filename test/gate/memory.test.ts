/**
 * The drift gate's memory: the shipped program, run as the Job runs it (`node /gate/gate.js`, the Job's
 * `NODE_OPTIONS`), against the API server stand-in holding 3,000 NodeClaims as Karpenter v1.14.1
 * writes them (test/support/karpenter-nodeclaim.ts: some 14 KB of JSON each). It reads them a page
 * at a time within the Job's memory; the whole list in one answer (a server that ignores `limit`,
 * as the gate read it before paging) does not fit. The rollout simulation's model of the gate's
 * memory (test/support/gate-sim.ts) is checked against the same runs. And the guard gate's: the
 * same image and memory, against 200 tenancy policies as large as one may get.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { DRIFT_GATE_PROGRAM, GUARD_GATE_PROGRAM } from '../../src/gate/program.generated';
import { NODECLAIM_PAGE_SIZE } from '../../src/gate/run';
import { DRIFT_GATE_MEMORY, driftGateNodeOptions } from '../../src/model/stages';
import { Quantity, UNITS } from '../../src/quantity/quantity';
import { synthesize } from '../../src/synth';
import { aTerraform } from '../builders';
import { load } from '../config/helpers';
import { aFleetConfig } from '../review/fleet';
import { heapBudgetMiB, heapNeededMiB } from '../support/gate-sim';
import type { SimObject } from '../support/karpenter';
import { karpenterNodeClaim } from '../support/karpenter-nodeclaim';
import { KubeApiStandIn } from '../support/kube-api';
import { aBinding, aGuardSpec, aPolicy } from './guard-world';
import { aGateSpec, aWorld, serve } from './world';
import { nodeArgs } from './shipped';

const NODECLAIMS = 3000;
const MIB = 1024 * 1024;

interface Run {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
  /** Peak resident memory in MiB (VmHWM), where /proc tells it. @default - not measured */
  readonly peakMiB?: number;
}

/** The shipped program as the Job runs it, with `NODE_OPTIONS`; its peak resident memory read from /proc while it runs. */
function runShipped(env: Record<string, string>, program = DRIFT_GATE_PROGRAM): Promise<Run> {
  const child = spawn(process.execPath, nodeArgs(program), { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let peakKiB: number | undefined;
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  // VmHWM only grows: the last reading before the exit is the peak of everything but the last few milliseconds.
  const status = `/proc/${child.pid}/status`;
  const poll = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(status, 'utf8'));
      if (hwm) peakKiB = Number(hwm[1]);
    } catch {
      // it has exited
    }
  }, 10);
  return new Promise((resolve) => child.on('close', (code) => {
    clearInterval(poll);
    resolve({ code, out, err, ...(peakKiB !== undefined ? { peakMiB: peakKiB / 1024 } : {}) });
  }));
}

/** The JSON bytes of each page the gate reads of `claims` (sorted by name, as the server serves them), `size` to a page. */
function pageBytes(claims: readonly Record<string, unknown>[], size: number): number[] {
  const bytes = claims.map((c) => Buffer.byteLength(JSON.stringify(c)));
  return Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.slice(i * size, (i + 1) * size).reduce((a, b) => a + b, 0));
}

/** The gate container as the Job writes it for the default memory. */
const container = { env: [{ name: 'NODE_OPTIONS', value: driftGateNodeOptions(DRIFT_GATE_MEMORY) }], resources: { limits: { memory: DRIFT_GATE_MEMORY } } };

describe('the drift gate\'s memory, with 3,000 NodeClaims as Karpenter writes them', () => {
  let api: KubeApiStandIn;
  let claims: Record<string, unknown>[];
  // Two looks: done at the first, held for the settle time at the second.
  const quick = JSON.stringify(aGateSpec({ settleSeconds: 0.2, pollSeconds: 0.2 }));

  beforeAll(async () => {
    api = await KubeApiStandIn.start();
    const world = aWorld();
    serve(api, world);
    const hashes = Object.fromEntries(['karpenter.sh/nodepool-hash', 'karpenter.sh/nodepool-hash-version'].map((k) => [k, world.pools.web.metadata.annotations![k]])
      .concat(['karpenter.k8s.aws/ec2nodeclass-hash', 'karpenter.k8s.aws/ec2nodeclass-hash-version'].map((k) => [k, world.classes.web.metadata.annotations![k]])));
    // A broad pool, as teams write them: c, m and r, generation 6 and later, amd64.
    const requirements = [
      { key: 'kubernetes.io/arch', operator: 'In' as const, values: ['amd64'] },
      { key: 'karpenter.k8s.aws/instance-category', operator: 'In' as const, values: ['c', 'm', 'r'] },
      { key: 'karpenter.k8s.aws/instance-generation', operator: 'Gt' as const, values: ['5'] },
    ];
    claims = Array.from({ length: NODECLAIMS }, (_, i) => karpenterNodeClaim({
      name: `web-${i.toString(36).padStart(5, '0')}`,
      nodePool: { name: 'web', uid: world.pools.web.metadata.uid, requirements, nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'web' } },
      hashes, imageID: 'ami-0123456789abcdef0', createdAt: new Date(Date.UTC(2027, 0, 1, 0, i % 60)), zone: `eu-west-1${'abc'[i % 3]}`,
    }, i));
    api.putFixed(...(claims as unknown as SimObject[]));
  });
  afterAll(() => api.close());

  it('are some 14 KB each, as Karpenter writes them (up to 600 instance types in their requirements)', () => {
    const sizes = claims.map((c) => Buffer.byteLength(JSON.stringify(c)));
    expect(Math.min(...sizes)).toBeGreaterThan(12_000);
    expect(sizes.reduce((a, b) => a + b, 0) / MIB).toBeGreaterThan(35);
  });

  it('reads them a page at a time under the Job\'s NODE_OPTIONS and passes, its resident memory below the Job\'s limit', async () => {
    const run = await runShipped({ ...api.env(), GATE: quick, NODE_OPTIONS: container.env[0].value });
    expect(run).toMatchObject({ code: 0, err: '' });
    expect(run.out.trim().split('\n').at(-1)).toMatch(new RegExp(`; ${NODECLAIMS + 2} nodeclaims, none drifted or built from an older spec; held \\d+s$`));
    if (existsSync('/proc/self/status')) expect(run.peakMiB).toBeLessThan(Number(Quantity.of(DRIFT_GATE_MEMORY).to(UNITS.MiB, 'down')));
    // The simulation's model of the same run: every page fits its heap.
    expect(Math.max(...pageBytes(claims, NODECLAIM_PAGE_SIZE).map(heapNeededMiB))).toBeLessThan(heapBudgetMiB(container));
  });

  it('runs out of heap when the whole list comes in one answer (a server that ignores limit; the gate before paging)', async () => {
    api.ignoreLimit();
    const run = await runShipped({ ...api.env(), GATE: quick, NODE_OPTIONS: container.env[0].value });
    expect(run.code).not.toBe(0);
    expect(run.err).toMatch(/JavaScript heap out of memory/);
    expect(run.out).not.toMatch(/^done/m);
    expect(heapNeededMiB(pageBytes(claims, NODECLAIMS)[0])).toBeGreaterThan(heapBudgetMiB(container));
  });

  it('fits the whole list of 200 in one answer, as the simulation\'s model says too', async () => {
    const few = await KubeApiStandIn.start();
    try {
      serve(few, aWorld());
      few.putFixed(...(claims.slice(0, 200) as unknown as SimObject[]));
      few.ignoreLimit();
      const run = await runShipped({ ...few.env(), GATE: quick, NODE_OPTIONS: container.env[0].value });
      expect(run).toMatchObject({ code: 0, err: '' });
      expect(heapNeededMiB(pageBytes(claims.slice(0, 200), 200)[0])).toBeLessThan(heapBudgetMiB(container));
    } finally {
      await few.close();
    }
  });
});

describe('the drift gate Job\'s memory', () => {
  const job = (gitops: Record<string, unknown> = {}) => {
    const config = aFleetConfig(['dev', 'prod'], { gitops, clusters: { dev: { stage: 1 }, prod: { stage: 2 } } });
    const files = synthesize(load({ config, terraform: { dev: aTerraform({ cluster_name: 'dev' }), prod: aTerraform({ cluster_name: 'prod' }) } }).platform);
    return parseAllDocuments(files.get('dist/dev/drift-gate/gate.yaml')!).map((d) => d.toJS() as { kind: string; metadata: { name: string }; spec: any }).find((d) => d.kind === 'Job')!;
  };

  it('is gitops.driftGateMemory (default DRIFT_GATE_MEMORY), requested and limited, with V8\'s heap sized to it in NODE_OPTIONS; another limit is another Job', () => {
    const base = job();
    const gate = base.spec.template.spec.containers[0];
    expect(gate.resources).toEqual({ requests: { cpu: '10m', memory: '96Mi' }, limits: { memory: '96Mi' } });
    expect(gate.env).toContainEqual({ name: 'NODE_OPTIONS', value: '--max-old-space-size=32 --max-semi-space-size=1' });
    const big = job({ driftGateMemory: '256Mi' });
    expect(big.spec.template.spec.containers[0].resources.limits).toEqual({ memory: '256Mi' });
    expect(big.spec.template.spec.containers[0].env).toContainEqual({ name: 'NODE_OPTIONS', value: '--max-old-space-size=192 --max-semi-space-size=1' });
    expect(big.metadata.name).not.toBe(base.metadata.name);
  });
});

describe('the guard gate\'s memory, with 200 tenancy policies of 128 KB each', () => {
  const POLICIES = 200;
  let api: KubeApiStandIn;
  const quick = JSON.stringify(aGuardSpec({ settleSeconds: 0.2, pollSeconds: 0.2 }));
  /** A policy of the tenancy set as big as one may get: its expressions and its share of the pools, 128 KB of JSON. */
  const big = (name: string, guards: Record<string, string>) => {
    const p = aPolicy(name, guards);
    p.spec.variables = Array.from({ length: 72 }, (_, i) => ({ name: `pools${i}`, expression: `[${Array.from({ length: 40 }, (__, j) => `'pool-${i}-${j}-${'x'.repeat(30)}'`).join(',')}]` }));
    return p;
  };

  beforeAll(async () => {
    api = await KubeApiStandIn.start();
    // The team's policy sorts last: the guard reads every page before it finds it.
    for (let i = 0; i < POLICIES - 1; i++) api.putFixed(big(`a-policy-${String(i).padStart(3, '0')}`, { [`team${i}`]: 'x' }));
    api.putFixed(big('z-web', { web: 'd2' }), aBinding('z-web'));
  });
  afterAll(() => api.close());

  it('are some 128 KB each', () => {
    expect(Buffer.byteLength(JSON.stringify(big('p', { web: 'd2' })))).toBeGreaterThan(120_000);
  });

  it('reads them a page at a time under the Job\'s NODE_OPTIONS and passes, its resident memory below the Job\'s limit', async () => {
    const run = await runShipped({ ...api.env(), GUARD: quick, NODE_OPTIONS: container.env[0].value }, GUARD_GATE_PROGRAM);
    expect(run).toMatchObject({ code: 0, err: '' });
    expect(run.out.trim().split('\n').at(-1)).toMatch(/^done: team web's pools are guarded by z-web; held \d+s$/);
    if (existsSync('/proc/self/status')) expect(run.peakMiB).toBeLessThan(Number(Quantity.of(DRIFT_GATE_MEMORY).to(UNITS.MiB, 'down')));
  });

  it('runs out of heap when the whole list comes in one answer (a server that ignores limit)', async () => {
    api.ignoreLimit();
    const run = await runShipped({ ...api.env(), GUARD: quick, NODE_OPTIONS: container.env[0].value }, GUARD_GATE_PROGRAM);
    expect(run.code).not.toBe(0);
    expect(run.err).toMatch(/JavaScript heap out of memory/);
  });
});

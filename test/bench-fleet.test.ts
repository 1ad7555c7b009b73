/**
 * The fleet `npm run bench -- --fleet CLUSTERSxTEAMS` measures (bench/fleet.mjs) is one synth
 * accepts, written the way the platform team writes theirs: groups by environment and
 * prod region, labels, destinations by name, stages and windows, two Karpenter releases.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPlan } from '../src/model/checks';

const dir = mkdtempSync(join(tmpdir(), 'kg-bench-fleet-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('writes a fleet with groups that synth accepts: environments at their stages, prod windows by region, two releases', () => {
  const writer = join(__dirname, '..', 'bench', 'fleet.mjs');
  execFileSync(process.execPath, ['--input-type=module', '-e', `import { writeFleet } from ${JSON.stringify(writer)}; writeFleet(${JSON.stringify(dir)}, 24, 3, 'al2023@v20260507');`]);
  const { platform, plan } = loadPlan(join(dir, 'platform.yaml'));
  expect(platform.clusters).toHaveLength(24);
  const count = (f: (c: (typeof platform.clusters)[number]) => boolean) => platform.clusters.filter(f).length;
  expect([1, 2, 3].map((stage) => count((c) => c.stage === stage))).toEqual([2, 6, 16]);
  expect(count((c) => c.karpenter.version === '1.13.1')).toBe(6);
  expect(count((c) => c.window !== undefined)).toBe(16);
  expect(platform.clusters.find((c) => c.id === 'prod-us-02')).toMatchObject({ labels: { env: 'prod', geo: 'us' }, groups: ['prod', 'prod-us'], destination: { name: 'prod-us-02' } });
  expect(new Set(platform.clusters.map((c) => JSON.stringify(c.destination))).size).toBe(24);
  expect(plan.clusters.reduce((n, c) => n + c.pools.length, 0)).toBe(24 * 5);
});

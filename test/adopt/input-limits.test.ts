/**
 * Issue 44, adopt at the input limits: Helm values of 100,000 keys. The yaml package's own
 * duplicate-key check compares each key with every key before it (quadratic: 439 s at 100,000
 * keys, 89 s at 20,000); adopt and the review read with it off and check keys once each, and
 * keep the config's untouched lines only while the edit is a few thousand lines (a line diff costs
 * lines × changes). Measured: 15 s at 100,000 keys; a quadratic step would not end within the
 * test's timeout. Slow tier (test/tiers.js).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { removeProjects } from '../builders';
import { cli } from '../review/fleet';
import { aFleet, aLiveNodeClass, aLiveNodePool, writeExport } from './live-builders';

afterAll(removeProjects);

it('adopts Helm values of 100,000 keys in linear time, each kept', async () => {
  const project = aFleet();
  const live = writeExport(project, [aLiveNodePool('default'), aLiveNodeClass()]);
  const values = join(project.dir, 'values.yaml');
  writeFileSync(values, stringify({ podAnnotations: Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`example.com/k${i}`, `v${i}`])) }));
  const r = await cli(['adopt', 'c1', '--live', live, '--helm-values', values, '--config', project.configPath]);
  expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
}, 300_000);

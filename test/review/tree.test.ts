/**
 * The review reads the head side of a pull request from the documents synth rendered, not by
 * parsing back the YAML it has just written (src/commands/build.ts, src/review/tree.ts). That is
 * only right if both readings give the same resources, field for field: held here on the example
 * and on the staged fleet of the rollout simulations (windows, a CapacityBuffer, tenancy, a
 * NodeOverlay, the gate), every file.
 */
import { build } from '../../src/commands/build';
import { Reporter } from '../../src/commands/reporter';
import { UserPaths } from '../../src/command-line/paths';
import { GeneratedTree } from '../../src/review/tree';
import { aTerraform, copyExample, removeProjects, writeProject } from '../builders';
import { CLUSTERS, fleetConfig } from '../support/rollout-fleet';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kg-tree-'));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  removeProjects();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const quiet = new Reporter({ out: () => undefined, err: () => undefined }, {}, new UserPaths(process.cwd()));

async function bothReadings(configPath: string, root: string) {
  const { files, documents } = await build(quiet, { configPath, root }, { documents: true });
  const rendered = new GeneratedTree(files, 'the working tree', documents);
  const parsed = new GeneratedTree(files, 'the working tree');
  const yamlFiles = [...files.keys()].filter((f) => f.endsWith('.yaml'));
  return { files: yamlFiles, documents, rendered, parsed };
}

describe('the head of a review, read from what synth rendered', () => {
  it.each([
    ['the example', () => {
      const dir = tempDir();
      return { configPath: copyExample(dir), root: dir };
    }],
    ['the staged fleet', () => {
      const project = writeProject({ config: fleetConfig(), terraform: Object.fromEntries(CLUSTERS.map((c) => [c, aTerraform({ cluster_name: c })])) });
      return { configPath: project.configPath, root: project.dir };
    }],
  ])('%s: every YAML file gives the same resources as parsing its text back', async (_name, make) => {
    const { configPath, root } = make();
    const { files, documents, rendered, parsed } = await bothReadings(configPath, root);
    // Every YAML file but the chart values ones synth writes as text comes with its documents.
    expect(files.filter((f) => documents.has(f)).length).toBeGreaterThan(files.length / 2);
    for (const file of files) expect({ file, resources: rendered.resourcesIn(file) }).toEqual({ file, resources: parsed.resourcesIn(file) });
  });

  it('is not the parsed text: a document changed after rendering is what the review sees (so the test above can fail)', async () => {
    const dir = tempDir();
    const { files, documents } = await build(quiet, { configPath: copyExample(dir), root: dir }, { documents: true });
    const file = [...documents.keys()].find((f) => f.includes('/nodepools/'));
    if (!file) throw new Error('the example has no NodePool file');
    const changed = new Map(documents);
    changed.set(file, (documents.get(file) ?? []).map((d) => ({ ...(d as object), kind: 'Changed' })));
    expect(new GeneratedTree(files, 'x', changed).resourcesIn(file)).not.toEqual(new GeneratedTree(files, 'x').resourcesIn(file));
  });
});

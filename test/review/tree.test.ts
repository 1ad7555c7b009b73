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

/**
 * A file of bare `---`-separated documents is read document by document, each text parsed once
 * (src/review/tree.ts `documentsOf`): the resources are those of a whole-file parse, a problem is
 * still located at the file's line, and the bodies shared between files cannot be changed by one reader.
 */
describe('the documents of a generated file, read one by one', () => {
  const sa = 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: gate\n  namespace: kube-system\n';
  const job = (env: string) => `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: gate-${env}\n  namespace: kube-system\nspec:\n  template:\n    spec:\n      containers:\n        - name: gate\n          env:\n            - { name: GATE, value: "${env}" }\n`;
  const read = (files: Record<string, string>) => new GeneratedTree(new Map(Object.entries(files)), 'the test');

  it('gives what a whole-file parse gives, for plain documents and for a file with a directive, a document end or a tagged document', () => {
    const plain = `${sa}---\n${job('a')}`;
    const tree = read({ 'dist/c/a.yaml': plain, 'dist/c/b.yaml': `%YAML 1.2\n---\n${sa}...\n---\n${job('a')}`, 'dist/c/d.yaml': `--- !!map\n${sa}---\n${job('a')}` });
    const bodies = (f: string) => tree.resourcesIn(f).map((r) => r.body);
    expect(bodies('dist/c/a.yaml')).toEqual([expect.objectContaining({ kind: 'ServiceAccount' }), expect.objectContaining({ kind: 'Job', metadata: { name: 'gate-a', namespace: 'kube-system' } })]);
    expect(bodies('dist/c/b.yaml')).toEqual(bodies('dist/c/a.yaml'));
    expect(bodies('dist/c/d.yaml')).toEqual(bodies('dist/c/a.yaml'));
  });

  it('locates a problem at the line of the file, not of its document', () => {
    const tree = read({ 'dist/c/bad.yaml': `${sa}---\n${sa}---\nkind: Job\nmetadata: { name: [gate\n` });
    expect(() => tree.resourcesIn('dist/c/bad.yaml')).toThrow(/^dist\/c\/bad\.yaml:1[45]:\d+ in the test is not valid YAML/);
  });

  it('shares one body among the files that hold the same document, which no reader can change', () => {
    const tree = read({ 'dist/a/gate.yaml': `${sa}---\n${job('a')}`, 'dist/b/gate.yaml': `${sa}---\n${job('b')}` });
    const [a, b] = ['dist/a/gate.yaml', 'dist/b/gate.yaml'].map((f) => tree.resourcesIn(f));
    expect(a[0].body).toBe(b[0].body);
    expect(a[1].body).not.toEqual(b[1].body);
    expect(() => { (a[0].body.metadata as Record<string, unknown>).name = 'other'; }).toThrow(TypeError);
  });
});

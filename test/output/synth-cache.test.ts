/**
 * The manifest of an incremental synth (src/output/synth-cache.ts) is a hint and never a source
 * of truth: a cluster's files are reused only when the tool, the cluster's inputs and every file
 * on disk are what it records. And a synth that fails leaves no state behind.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli';
import { contentDigest, INPUTS_FILE, InputsManifest, readInputsManifest, reusableFiles, writeInputsManifest } from '../../src/output/synth-cache';
import { aConfig, removeProjects, writeProject } from '../builders';

const dir = mkdtempSync(join(tmpdir(), 'kg-synth-cache-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  removeProjects();
});

const A = 'dist/a/apps/karpenter.yaml';
const B = 'dist/a/nodepools/web/web.yaml';
const onDisk = new Map([[A, 'kind: Application\n'], [B, 'kind: NodePool\n']]);
const manifest: InputsManifest = {
  version: 1, tool: 'tool-1',
  clusters: { a: { inputs: 'in-1', files: { [A]: contentDigest(onDisk.get(A) ?? ''), [B]: contentDigest(onDisk.get(B) ?? '') } } },
};

describe('reusableFiles', () => {
  it('gives the files on disk when the tool, the inputs and every file are as recorded', () => {
    expect(reusableFiles(manifest, 'tool-1', 'a', 'in-1', onDisk)).toEqual(onDisk);
  });

  it.each([
    ['no manifest', undefined, 'tool-1', 'a', 'in-1', onDisk],
    ['another tool', manifest, 'tool-2', 'a', 'in-1', onDisk],
    ['a cluster it does not know', manifest, 'tool-1', 'b', 'in-1', onDisk],
    ['a cluster named like an Object method', manifest, 'tool-1', 'constructor', 'in-1', onDisk],
    ['other inputs', manifest, 'tool-1', 'a', 'in-2', onDisk],
    ['a file edited on disk', manifest, 'tool-1', 'a', 'in-1', new Map([[A, 'kind: Application\n'], [B, 'kind: NodePool # edited\n']])],
    ['a file removed from disk', manifest, 'tool-1', 'a', 'in-1', new Map([[A, 'kind: Application\n']])],
  ])('renders the cluster again for %s', (_, m, tool, cluster, inputs, disk) => {
    expect(reusableFiles(m, tool, cluster, inputs, disk)).toBeUndefined();
  });
});

describe('the manifest file', () => {
  it('is written whole and read back; one that is not a manifest, or names a path outside the output, is none', () => {
    const state = mkdtempSync(join(dir, 'state-'));
    expect(readInputsManifest(state)).toBeUndefined();
    writeInputsManifest(state, manifest);
    expect(readdirSync(state)).toEqual([INPUTS_FILE]);
    expect(readInputsManifest(state)).toEqual(manifest);
    for (const text of ['{', '[]', '{"version":2,"tool":"t","clusters":{}}', JSON.stringify({ ...manifest, clusters: { a: { inputs: 'x', files: { '../etc/passwd': 'd' } } } })]) {
      writeFileSync(join(state, INPUTS_FILE), text);
      expect(readInputsManifest(state)).toBeUndefined();
    }
  });
});

describe('synth on the example', () => {
  const cli = async (args: string[]) => run(args, { out: () => undefined, err: () => undefined }, {});

  it('keeps the manifest beside the output; a tampered file or manifest is rewritten from a fresh render', async () => {
    const { configPath, dir: root } = writeProject();
    expect(await cli(['synth', '--config', configPath, '--outdir', root])).toBe(0);
    const manifestPath = join(root, '.karpenter-gitops', INPUTS_FILE);
    const first = readInputsManifest(join(root, '.karpenter-gitops'));
    expect(Object.keys(first?.clusters ?? {}).length).toBeGreaterThan(0);
    const [cluster] = Object.values(first?.clusters ?? {});
    const [path] = Object.keys(cluster.files);
    const text = readFileSync(join(root, path), 'utf8');
    writeFileSync(join(root, path), `${text}# edited\n`);
    expect(await cli(['synth', '--config', configPath, '--outdir', root])).toBe(0);
    expect(readFileSync(join(root, path), 'utf8')).toBe(text);
    writeFileSync(manifestPath, 'not json');
    writeFileSync(join(root, path), `${text}# edited again\n`);
    expect(await cli(['synth', '--config', configPath, '--outdir', root])).toBe(0);
    expect(readFileSync(join(root, path), 'utf8')).toBe(text);
    expect(readInputsManifest(join(root, '.karpenter-gitops'))).toEqual(first);
  });

  it('leaves no state folder behind when the first synth fails', async () => {
    const { configPath, dir: root } = writeProject({ config: aConfig({ teams: { web: { nosuchfield: 1 } } }) });
    expect(await cli(['synth', '--config', configPath, '--outdir', root])).not.toBe(0);
    expect(existsSync(join(root, '.karpenter-gitops'))).toBe(false);
  });
});

/**
 * The manifest of an incremental synth (src/output/synth-cache.ts) is a hint and never a source
 * of truth: a cluster's files are reused only when the tool, the cluster's inputs and every file
 * on disk are what it records. And a synth that fails leaves no state behind.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { run } from '../../src/cli';
import { INPUTS_FILE, InputsManifest, keptFile, OutputRecord, RACY_MS, ReadManifest, readInputsManifest, recordOf, writeInputsManifest } from '../../src/output/synth-cache';
import { aConfig, removeProjects, writeProject } from '../builders';

const dir = mkdtempSync(join(tmpdir(), 'kg-synth-cache-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  removeProjects();
});

const A = 'dist/a/apps/karpenter.yaml';
const B = 'dist/a/nodepools/web/web.yaml';
const TEXT = { [A]: 'kind: Application\n', [B]: 'kind: NodePool\n' };
const WHEN = Math.floor(Date.now() / 1000) - 3600;

/** An output root holding A and B, and a manifest recording them as they are, written `after` ms after their last change. */
function recorded(after = 60_000): { root: string; read: ReadManifest } {
  const root = mkdtempSync(join(dir, 'root-'));
  for (const [path, text] of Object.entries(TEXT)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
    // A whole second, which utimes sets exactly (a test below restores it after an edit).
    utimesSync(join(root, path), WHEN, WHEN);
  }
  const files = Object.fromEntries(Object.keys(TEXT).map((p) => [p, { ...recordOf(root, p), inputs: 'in-1' }]));
  const manifest: InputsManifest = { version: 3, tool: 'tool-1', clusters: { a: { files: files as Record<string, OutputRecord> } } };
  return { root, read: { manifest, writtenMs: Math.max(...Object.values(files).map((f) => f?.mtimeMs ?? 0)) + after } };
}

/** keptFile for each of the cluster's files: their records when every one is kept, else undefined. */
function keptFiles(read: ReadManifest | undefined, tool: string, cluster: string, inputs: string, root: string): Map<string, OutputRecord> | undefined {
  const kept = new Map<string, OutputRecord>();
  for (const path of [A, B]) {
    const r = keptFile(read, tool, root, { cluster, path, inputs });
    if (!r) return undefined;
    kept.set(path, r);
  }
  return kept;
}

describe('keptFile', () => {
  it('keeps the files when the tool, the inputs and every file are as recorded, by their size and time alone', () => {
    const { root, read } = recorded();
    const kept = keptFiles(read, 'tool-1', 'a', 'in-1', root);
    expect(kept && [...kept.keys()]).toEqual([A, B]);
    // Not read: a file whose text changed with its size and time kept (touch -r) passes, as in git (npm run check is the proof).
    writeFileSync(join(root, B), 'kind: NodeBool\n');
    utimesSync(join(root, B), WHEN, WHEN);
    expect(keptFiles(read, 'tool-1', 'a', 'in-1', root)).toBeDefined();
  });

  it('reads a file whose time changed, or that changed in the last two seconds before the manifest was written (racily clean), and keeps it only when its text is the same', () => {
    const touched = recorded();
    utimesSync(join(touched.root, A), new Date(), new Date(Date.now() + 5_000));
    expect(keptFiles(touched.read, 'tool-1', 'a', 'in-1', touched.root)?.get(A)?.mtimeMs).toBe(statSync(join(touched.root, A)).mtimeMs);
    const racy = recorded(RACY_MS / 2);
    writeFileSync(join(racy.root, B), 'kind: NodeBool\n');
    utimesSync(join(racy.root, B), WHEN, WHEN);
    expect(keptFiles(racy.read, 'tool-1', 'a', 'in-1', racy.root)).toBeUndefined();
  });

  it.each([
    ['no manifest', (_r: ReadManifest) => [undefined, 'tool-1', 'a', 'in-1'] as const],
    ['another tool', (r: ReadManifest) => [r, 'tool-2', 'a', 'in-1'] as const],
    ['a cluster it does not know', (r: ReadManifest) => [r, 'tool-1', 'b', 'in-1'] as const],
    ['a cluster named like an Object method', (r: ReadManifest) => [r, 'tool-1', 'constructor', 'in-1'] as const],
    ['other inputs', (r: ReadManifest) => [r, 'tool-1', 'a', 'in-2'] as const],
  ])('renders the cluster again for %s', (_, args) => {
    const { root, read } = recorded();
    const [m, tool, cluster, inputs] = args(read);
    expect(keptFiles(m, tool, cluster, inputs, root)).toBeUndefined();
  });

  it.each([
    ['a file edited (another size)', (root: string) => writeFileSync(join(root, B), 'kind: NodePool # edited\n')],
    ['a file edited (same size, new time)', (root: string) => {
      writeFileSync(join(root, B), 'kind: NodeBool\n');
      utimesSync(join(root, B), new Date(), new Date(Date.now() + 5_000));
    }],
    ['a file removed', (root: string) => rmSync(join(root, A))],
    ['a file replaced by a link', (root: string) => {
      rmSync(join(root, A));
      symlinkSync(join(root, B), join(root, A));
    }],
  ])('renders the cluster again for %s', (_, change) => {
    const { root, read } = recorded();
    change(root);
    expect(keptFiles(read, 'tool-1', 'a', 'in-1', root)).toBeUndefined();
  });
});

describe('the manifest file', () => {
  it('is written whole and read back; one that is not a manifest, or names a path outside the output, is none', () => {
    const state = mkdtempSync(join(dir, 'state-'));
    const { manifest } = recorded().read;
    expect(readInputsManifest(state)).toBeUndefined();
    writeInputsManifest(state, manifest);
    expect(readdirSync(state)).toEqual([INPUTS_FILE]);
    expect(readInputsManifest(state)).toEqual({ manifest, writtenMs: statSync(join(state, INPUTS_FILE)).mtimeMs });
    const file = { digest: 'd', size: 1, mtimeMs: 1 };
    for (const text of ['{', '[]', '{"version":1,"tool":"t","clusters":{}}', JSON.stringify({ ...manifest, clusters: { a: { inputs: 'x', files: { '../etc/passwd': file } } } }),
      JSON.stringify({ ...manifest, clusters: { a: { inputs: 'x', files: { [A]: 'digest-of-version-1' } } } })]) {
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
    const digests = () => {
      const m = readInputsManifest(join(root, '.karpenter-gitops'))?.manifest;
      return Object.values(m?.clusters ?? {}).map((c) => Object.entries(c.files).map(([p, f]) => [p, f.inputs, f.digest]));
    };
    const first = readInputsManifest(join(root, '.karpenter-gitops'))?.manifest;
    expect(Object.keys(first?.clusters ?? {}).length).toBeGreaterThan(0);
    const recordedFirst = digests();
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
    expect(digests()).toEqual(recordedFirst);
  });

  it('leaves no state folder behind when the first synth fails', async () => {
    const { configPath, dir: root } = writeProject({ config: aConfig({ teams: { web: { nosuchfield: 1 } } }) });
    expect(await cli(['synth', '--config', configPath, '--outdir', root])).not.toBe(0);
    expect(existsSync(join(root, '.karpenter-gitops'))).toBe(false);
  });
});

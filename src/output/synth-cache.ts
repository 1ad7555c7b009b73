/**
 * What an incremental synth remembers between runs (docs/performance.md#incremental-synth):
 * per cluster, the digest of the inputs its files were rendered from and the digest of each of
 * those files as written. Kept in the state folder (`.karpenter-gitops/synth-inputs.json`,
 * git-ignored: it describes this checkout's `dist/`, not the commit). It is only ever a hint:
 * a cluster's files are reused only when its inputs and the tool are unchanged AND every file
 * on disk still has the digest recorded, so a stale, edited or missing manifest costs a
 * render, never a wrong file.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isOutputPath } from './layout';

/** The manifest's name inside the state folder. */
export const INPUTS_FILE = 'synth-inputs.json';

/** One cluster's entry: the digest of its inputs, and of each of its files by path. */
export interface ClusterRecord {
  readonly inputs: string;
  readonly files: Readonly<Record<string, string>>;
}

/** The manifest: the tool that wrote the files, and each cluster's record. */
export interface InputsManifest {
  readonly version: 1;
  readonly tool: string;
  readonly clusters: Readonly<Record<string, ClusterRecord>>;
}

/** The digest of a file's text. */
export function contentDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The digest of the running tool: its bundle and render worker when it runs bundled
 * (`lib/karpenter-gitops.cjs`, which holds the release data, the charts and every dependency),
 * else every source file under `sources` (the tests run the TypeScript). Node's version too.
 * @param bundle the running bundle's folder (`__dirname` of the bundle)
 * @param sources the folders of the sources when not bundled
 */
export function toolDigest(bundle: { readonly file: string; readonly worker: string } | undefined, sources: readonly string[]): string {
  const hash = createHash('sha256').update(process.version);
  const files = bundle ? [bundle.file, bundle.worker].filter((f) => existsSync(f)) : sources.flatMap(filesUnder);
  for (const file of files) hash.update(file).update(readFileSync(file));
  return hash.digest('hex');
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The manifest in `state`, or undefined when there is none or it is not one this tool wrote. */
export function readInputsManifest(state: string): InputsManifest | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(join(state, INPUTS_FILE), 'utf8'));
    return isManifest(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isManifest(value: unknown): value is InputsManifest {
  if (typeof value !== 'object' || value === null) return false;
  const m: Partial<Record<keyof InputsManifest, unknown>> = value;
  if (m.version !== 1 || typeof m.tool !== 'string' || typeof m.clusters !== 'object' || m.clusters === null) return false;
  return Object.values(m.clusters).every((c: unknown) => {
    if (typeof c !== 'object' || c === null) return false;
    const r: Partial<Record<keyof ClusterRecord, unknown>> = c;
    return typeof r.inputs === 'string' && typeof r.files === 'object' && r.files !== null
      && Object.entries(r.files).every(([path, digest]) => isOutputPath(path) && typeof digest === 'string');
  });
}

/**
 * Writes the manifest whole or not at all: into a temporary file, then renamed over the old
 * one. A run killed in between leaves the old manifest, which the files' digests then refute
 * wherever it no longer holds.
 */
export function writeInputsManifest(state: string, manifest: InputsManifest): void {
  const tmp = join(state, `${INPUTS_FILE}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(manifest)}\n`);
  renameSync(tmp, join(state, INPUTS_FILE));
}

/**
 * A cluster's files as they are on disk, when they may stand for a fresh render: the manifest
 * was written by this tool, records these inputs for the cluster, and every file it records
 * is on disk with its recorded digest. Undefined otherwise (render the cluster).
 * @param onDisk the output tree's files, as just read
 */
export function reusableFiles(
  manifest: InputsManifest | undefined, tool: string, cluster: string, inputs: string, onDisk: ReadonlyMap<string, string>,
): Map<string, string> | undefined {
  if (!manifest || manifest.tool !== tool || !Object.hasOwn(manifest.clusters, cluster)) return undefined;
  const record = manifest.clusters[cluster];
  if (record.inputs !== inputs) return undefined;
  const files = new Map<string, string>();
  for (const [path, digest] of Object.entries(record.files)) {
    const text = onDisk.get(path);
    if (text === undefined || contentDigest(text) !== digest) return undefined;
    files.set(path, text);
  }
  return files.size ? files : undefined;
}

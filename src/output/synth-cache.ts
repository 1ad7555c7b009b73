/**
 * What an incremental synth remembers between runs (docs/performance.md#incremental-synth):
 * per cluster, the digest of the inputs its files were rendered from and, for each of those
 * files as written, the digest of its text, its size and its modification time. Kept in the
 * state folder (`.karpenter-gitops/synth-inputs.json`, git-ignored: it describes this checkout's
 * `dist/`, not the commit). It is only ever a hint: a cluster's files are kept only when its
 * inputs and the tool are unchanged AND every file is on disk as recorded, so a stale, edited or
 * missing manifest costs a render, never a wrong file.
 *
 * A file is as recorded when its size and modification time are the recorded ones and it was not
 * modified in the {@link RACY_MS} before the manifest was written; otherwise its text is read and
 * its digest compared. This is git's rule for its index: a file is re-read when its stat data
 * changed or it is "racily clean", modified too close to when the index was written for its time
 * to tell an edit apart. So a warm synth reads no file of an unchanged cluster.
 * @see https://git-scm.com/docs/racy-git
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isOutputPath } from './layout';

/** The manifest's name inside the state folder. */
export const INPUTS_FILE = 'synth-inputs.json';

/**
 * How close to the manifest's writing a file's modification time may be and still be trusted
 * without reading it: wider than the coarsest timestamp of a common file system (FAT's 2 s),
 * so an edit in the same tick as the synth's own write is never mistaken for it.
 */
export const RACY_MS = 2_000;

/** A file as a synth wrote it: the digest of its text, its size in bytes and its modification time (ms). */
export interface FileRecord {
  readonly digest: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** A file of a cluster as a synth wrote it, and the digest of what it was built from (model/cluster-inputs.ts). */
export interface OutputRecord extends FileRecord {
  readonly inputs: string;
}

/** One cluster's entry: each of its files by path. */
export interface ClusterRecord {
  readonly files: Readonly<Record<string, OutputRecord>>;
}

/** The manifest: the tool that wrote the files, each cluster's record, and what the last whole synth read and printed. */
export interface InputsManifest {
  readonly version: 3;
  readonly tool: string;
  readonly clusters: Readonly<Record<string, ClusterRecord>>;
  /** The last synth of the whole fleet (unchanged-run.ts). @default - none: the last synth was a shard's */
  readonly run?: RunRecord;
}

/**
 * What a synth of the whole fleet read and printed, and the fleet's own files it wrote: when the
 * same run, with the same inputs, finds every file as recorded, its output is what it would write
 * (unchanged-run.ts).
 */
export interface RunRecord {
  /** The digest of what a run depends on beside its input files: the tool, the day, the config's path, the output root, the working folder. */
  readonly key: string;
  /** Each input file the run read (the config, every Terraform outputs file), by absolute path: the record of its bytes. */
  readonly inputs: Readonly<Record<string, FileRecord>>;
  /** The fleet's own files (the summaries, the pages, `argocd/` beside the clusters' roots), by path. */
  readonly fleet: Readonly<Record<string, FileRecord>>;
  /** The warnings it printed, each as one line (`file:line:col: field: message`). */
  readonly warnings: readonly string[];
  /** Its summary line of the fleet (`960 clusters, 9,600 pools of 8 teams; Karpenter …`). */
  readonly fleetLine: string;
}

/** A manifest as read, with when it was written (its own modification time, on the clock of the files it describes). */
export interface ReadManifest {
  readonly manifest: InputsManifest;
  readonly writtenMs: number;
}

/** The digest of a file's text or bytes (the same for a text and its UTF-8 bytes). */
export function contentDigest(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
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
export function readInputsManifest(state: string): ReadManifest | undefined {
  try {
    const file = join(state, INPUTS_FILE);
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return isManifest(value) ? { manifest: value, writtenMs: statSync(file).mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

function isManifest(value: unknown): value is InputsManifest {
  if (typeof value !== 'object' || value === null) return false;
  const m: Partial<Record<keyof InputsManifest, unknown>> = value;
  if (m.version !== 3 || typeof m.tool !== 'string' || typeof m.clusters !== 'object' || m.clusters === null) return false;
  if (m.run !== undefined && !isRunRecord(m.run)) return false;
  return Object.values(m.clusters).every((c: unknown) => {
    if (typeof c !== 'object' || c === null) return false;
    const r: Partial<Record<keyof ClusterRecord, unknown>> = c;
    return isOutputRecords(r.files, true);
  });
}

function isOutputRecords(value: unknown, withInputs = false): value is Record<string, OutputRecord> {
  return typeof value === 'object' && value !== null
    && Object.entries(value).every(([path, f]) => isOutputPath(path) && isFileRecord(f) && (!withInputs || hasInputs(f)));
}

function hasInputs(record: FileRecord): record is OutputRecord {
  const r: Partial<Record<keyof OutputRecord, unknown>> = record;
  return typeof r.inputs === 'string';
}

function isRunRecord(value: unknown): value is RunRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r: Partial<Record<keyof RunRecord, unknown>> = value;
  return typeof r.key === 'string' && typeof r.fleetLine === 'string' && isOutputRecords(r.fleet)
    && Array.isArray(r.warnings) && r.warnings.every((w) => typeof w === 'string')
    && typeof r.inputs === 'object' && r.inputs !== null && Object.values(r.inputs).every(isFileRecord);
}

function isFileRecord(value: unknown): value is FileRecord {
  if (typeof value !== 'object' || value === null) return false;
  const f: Partial<Record<keyof FileRecord, unknown>> = value;
  return typeof f.digest === 'string' && typeof f.size === 'number' && typeof f.mtimeMs === 'number';
}

/**
 * Writes the manifest whole or not at all: into a temporary file, then renamed over the old
 * one. A run killed in between leaves the old manifest, which the files then refute wherever
 * it no longer holds.
 */
export function writeInputsManifest(state: string, manifest: InputsManifest): void {
  const tmp = join(state, `${INPUTS_FILE}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(manifest)}\n`);
  renameSync(tmp, join(state, INPUTS_FILE));
}

/** A file of the output as it is now: its record (digest, size, time), or undefined when it is not a regular file there. */
export function recordOf(root: string, path: string, text?: string): FileRecord | undefined {
  try {
    const st = lstatSync(join(root, path));
    if (!st.isFile()) return undefined;
    return { digest: contentDigest(text ?? readFileSync(join(root, path), 'utf8')), size: st.size, mtimeMs: st.mtimeMs };
  } catch {
    return undefined;
  }
}

/**
 * A cluster's file, when the one on disk may stand for a fresh build: the manifest was written by
 * this tool, records these inputs for it, and the file is on disk as recorded (by its size and
 * time, or else by its text's digest). Its record as it is now; undefined otherwise (build it).
 * @param root the output root the manifest's paths are relative to
 */
export function keptFile(
  read: ReadManifest | undefined, tool: string, root: string, { cluster, path, inputs }: { readonly cluster: string; readonly path: string; readonly inputs: string },
): OutputRecord | undefined {
  if (!read || read.manifest.tool !== tool || !Object.hasOwn(read.manifest.clusters, cluster)) return undefined;
  const { files } = read.manifest.clusters[cluster];
  if (!Object.hasOwn(files, path) || files[path].inputs !== inputs) return undefined;
  const now = unchangedFile(join(root, path), files[path], read.writtenMs);
  return now && { ...now, inputs };
}

/**
 * A recorded file's record now, when it still holds what was recorded; undefined when it does
 * not. A link is never followed (`lstat`): a link where the file was is a change, whatever it
 * points to (an input read through a link is read again, as its confinement is checked again).
 * @param writtenMs when the manifest holding the record was written
 */
export function unchangedFile(path: string, was: FileRecord, writtenMs: number): FileRecord | undefined {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return undefined;
  }
  if (!st.isFile() || st.size !== was.size) return undefined;
  if (st.mtimeMs === was.mtimeMs && st.mtimeMs < writtenMs - RACY_MS) return was;
  // Touched, or racily clean: its bytes decide.
  try {
    const digest = contentDigest(readFileSync(path));
    return digest === was.digest ? { digest, size: st.size, mtimeMs: st.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

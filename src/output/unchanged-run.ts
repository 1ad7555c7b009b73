/**
 * A synth with nothing to do (docs/performance.md#incremental-synth): the last synth of the whole
 * fleet recorded what it depended on (the tool, the day, where it ran, and the bytes of every
 * input file it read) and every file it left. When all of that is as recorded, the config is
 * neither read nor planned: a run with the same inputs makes the same files and the same
 * warnings, and the files are on disk as it made them. This is make's rule with git's racy-clean
 * care (synth-cache.ts): a file whose size or time moved, or that was written too close to the
 * record to tell, is read and its digest compared. Anything else (a file edited, added or
 * removed under `dist/` or `argocd/`, an input touched, another day, another tool) is a full run.
 */
import { dirname, join, resolve } from 'node:path';
import type { ClusterRecord, FileRecord, InputsManifest, ReadManifest, RunRecord } from './synth-cache';
import { contentDigest, unchangedFile } from './synth-cache';
import type { Listing } from './tree';

/** What a run's output depends on beside its input files. */
export interface RunKey {
  readonly tool: string;
  /** The day it judges support on (config/support.ts `runDate`): a warning may start on a day. */
  readonly today: string;
  readonly configPath: string;
  readonly root: string;
  /** Where the user ran it: problems name files from there. */
  readonly cwd: string;
}

/** The digest of a {@link RunKey}. */
export function runKey(key: RunKey): string {
  return contentDigest(JSON.stringify([key.tool, key.today, resolve(key.configPath), resolve(key.root), key.cwd]));
}

/** A run with nothing to do: the last run's record, and the manifest with every record as just verified. */
export interface UnchangedRun {
  readonly run: RunRecord;
  readonly manifest: InputsManifest;
  /** Whether a file had to be read to be verified (touched, or written too close to the record): the manifest is then written again. */
  readonly refreshed: boolean;
}

/**
 * The last run's record, when this run would make exactly what it made: the same key, every
 * input file as it was read, and `dist/` and `argocd/` holding exactly the files it left (no
 * other file, no folder that holds none of them), each as recorded. Undefined otherwise.
 */
export function unchangedRun(read: ReadManifest | undefined, key: string, root: string, listing: Listing): UnchangedRun | undefined {
  const run = read?.manifest.run;
  if (!read || !run || run.key !== key) return undefined;
  const files = Object.values(read.manifest.clusters).flatMap((c) => Object.keys(c.files));
  const outputs = new Set([...Object.keys(run.fleet), ...files]);
  if (listing.files.length !== outputs.size || !listing.files.every((f) => outputs.has(f))) return undefined;
  const folders = new Set<string>();
  for (const path of outputs) for (let d = dirname(path); d !== '.' && !folders.has(d); d = dirname(d)) folders.add(d);
  if (!listing.dirs.every((d) => folders.has(d))) return undefined;
  let refreshed = false;
  const verified = <R extends FileRecord>(records: Readonly<Record<string, R>>, at: (path: string) => string) => {
    const now: Record<string, R> = {};
    for (const [path, was] of Object.entries(records)) {
      const r = unchangedFile(at(path), was, read.writtenMs);
      if (!r) return undefined;
      if (r !== was) refreshed = true;
      now[path] = { ...was, ...r };
    }
    return now;
  };
  const inputs = verified(run.inputs, (p) => p);
  const fleet = inputs && verified(run.fleet, (p) => join(root, p));
  if (!fleet || !inputs) return undefined;
  const clusters: Record<string, ClusterRecord> = {};
  for (const [id, c] of Object.entries(read.manifest.clusters)) {
    const now = verified(c.files, (p) => join(root, p));
    if (!now) return undefined;
    clusters[id] = { files: now };
  }
  return { run: { ...run, inputs, fleet }, manifest: { ...read.manifest, clusters, run: { ...run, inputs, fleet } }, refreshed };
}

/** The record of an input file as it was read (input-file.ts `SeenFile`): its size and time when opened, and the digest of the bytes read. */
export function seenRecord(file: { readonly size: number; readonly mtimeMs: number; readonly bytes: Buffer }): FileRecord {
  return { digest: contentDigest(file.bytes), size: file.size, mtimeMs: file.mtimeMs };
}

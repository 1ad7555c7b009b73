import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** The folders a synth owns and replaces whole, relative to the output root. */
export const OUTPUT_ROOTS = ['dist', 'argocd'] as const;

/** What {@link writeTree} changed. */
export interface WriteResult {
  /** Files created or whose content changed. */
  readonly written: number;
  /** Files of the old tree that are gone (removed pools, clusters, ...). */
  readonly removed: number;
  /** Files whose content was already right. */
  readonly unchanged: number;
}

/**
 * Makes `dist/` and `argocd/` under `root` hold exactly `files`: files of removed
 * pools disappear, and files whose content is already right are not touched (a
 * re-synth of an unchanged config writes nothing). If any write fails, every file
 * already changed is put back as it was, so a failed run leaves the tree unchanged.
 * @param files paths relative to `root` (each under one of {@link OUTPUT_ROOTS}) and their contents
 */
export function writeTree(root: string, files: ReadonlyMap<string, string>): WriteResult {
  const old = readTree(root);
  // Undo log: the previous content of each path changed so far (undefined: it did not exist).
  const undo: [string, string | undefined][] = [];
  const madeDirs: string[] = [];
  let written = 0;
  let removed = 0;
  try {
    for (const [path, content] of files) {
      const previous = old.get(path);
      if (previous === content) continue;
      const target = join(root, path);
      madeDirs.push(...mkdirs(dirname(target)));
      undo.push([target, previous]);
      writeFileSync(target, content);
      written++;
    }
    for (const [path, previous] of old) {
      if (files.has(path)) continue;
      const target = join(root, path);
      undo.push([target, previous]);
      unlinkSync(target);
      removed++;
    }
  } catch (err) {
    for (const [target, previous] of undo.reverse()) {
      if (previous === undefined) rmSilently(target);
      else writeFileSync(target, previous);
    }
    for (const dir of madeDirs.reverse()) rmdirSilently(dir);
    throw err;
  }
  for (const dir of OUTPUT_ROOTS) pruneEmptyDirs(join(root, dir), true);
  return { written, removed, unchanged: files.size - written };
}

/** Every file under the output roots, relative to `root`, with its content. */
export function readTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.set(relative(root, path), readFileSync(path, 'utf8'));
    }
  };
  for (const dir of OUTPUT_ROOTS) if (existsSync(join(root, dir))) walk(join(root, dir));
  return out;
}

/** Creates `dir` and missing parents; returns the ones it created, outermost first. */
function mkdirs(dir: string): string[] {
  const created: string[] = [];
  for (let d = dir; !existsSync(d); d = dirname(d)) created.unshift(d);
  if (created.length) mkdirSync(dir, { recursive: true });
  return created;
}

/** Removes empty folders below `dir` (and `dir` itself unless `keep`). */
function pruneEmptyDirs(dir: string, keep = false): void {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) pruneEmptyDirs(join(dir, entry.name));
  }
  if (!keep && readdirSync(dir).length === 0) rmdirSync(dir);
}

function rmSilently(path: string): void {
  try { unlinkSync(path); } catch { /* it was never created */ }
}

function rmdirSilently(dir: string): void {
  try { rmdirSync(dir); } catch { /* not empty or gone */ }
}

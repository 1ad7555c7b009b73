import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createTwoFilesPatch } from 'diff';
import { join, relative } from 'node:path';

/**
 * Every file and folder under `root` (the generator's state folder excluded) with its
 * content, folders as `path/` with '': for "exactly as before" checks after a failed run.
 */
export function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const rel = relative(root, path);
      if (rel === '.karpenter-gitops') continue;
      if (statSync(path).isDirectory()) {
        out.set(`${rel}/`, '');
        walk(path);
      } else {
        out.set(rel, readFileSync(path, 'utf8'));
      }
    }
  };
  walk(root);
  return out;
}

/** Every file under the folders `dirs` of `root` (missing ones are empty), relative to `root`, with its content. */
export function filesUnder(root: string, dirs: readonly string[] = ['dist', 'argocd']): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else out.set(relative(root, path), readFileSync(path, 'utf8'));
    }
  };
  for (const d of dirs) walk(join(root, d));
  return out;
}

/** How much of a difference {@link treeDifference} shows. */
export interface DifferenceLimits {
  /** Files named, of each kind (missing, extra, changed). @default 5 */
  readonly files?: number;
  /** Lines of the unified diff of the first changed file. @default 20 */
  readonly lines?: number;
}

/**
 * What differs between two trees of files, bounded whatever their size: a count of missing,
 * extra and changed files, the first few of each, and the start of the first changed file's
 * diff. Empty when they are the same. A 120-cluster fleet's mismatch is a few lines, not the
 * whole expected tree.
 */
export function treeDifference(actual: ReadonlyMap<string, string>, expected: ReadonlyMap<string, string>, limits: DifferenceLimits = {}): string {
  const files = limits.files ?? 5;
  const lines = limits.lines ?? 20;
  const missing = [...expected.keys()].filter((p) => !actual.has(p)).sort();
  const extra = [...actual.keys()].filter((p) => !expected.has(p)).sort();
  const changed = [...expected.keys()].filter((p) => actual.has(p) && actual.get(p) !== expected.get(p)).sort();
  if (missing.length + extra.length + changed.length === 0) return '';
  const some = (what: string, paths: string[]) => (paths.length === 0 ? [] : [
    `${what} (${paths.length}): ${paths.slice(0, files).join(', ')}${paths.length > files ? `, and ${paths.length - files} more` : ''}`,
  ]);
  const report = [
    `${missing.length + extra.length + changed.length} of ${expected.size} files differ`,
    ...some('missing', missing), ...some('not expected', extra), ...some('changed', changed),
  ];
  if (changed.length > 0) {
    const patch = createTwoFilesPatch(`expected/${changed[0]}`, `actual/${changed[0]}`, expected.get(changed[0]) ?? '', actual.get(changed[0]) ?? '').split('\n');
    report.push(...patch.slice(0, lines), ...(patch.length > lines ? [`... ${patch.length - lines} more lines of this diff`] : []));
  }
  return report.join('\n');
}

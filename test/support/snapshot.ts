import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
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

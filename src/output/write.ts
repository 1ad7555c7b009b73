import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The folders a synth owns and replaces whole, relative to the output root. */
export const OUTPUT_ROOTS = ['dist', 'argocd'] as const;

/**
 * Writes a generated tree under `root`, replacing `dist/` and `argocd/` whole so
 * files of removed pools disappear. Everything is written to a staging folder
 * first and swapped in by rename, so a failure while writing leaves the old tree.
 * @param files paths relative to `root` (each under one of {@link OUTPUT_ROOTS}) and their contents
 */
export function writeTree(root: string, files: ReadonlyMap<string, string>): void {
  mkdirSync(root, { recursive: true });
  const stage = mkdtempSync(join(root, '.synth-'));
  try {
    for (const [path, content] of files) {
      const target = join(stage, 'new', path);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, content);
    }
    mkdirSync(join(stage, 'old'));
    for (const dir of OUTPUT_ROOTS) {
      const live = join(root, dir);
      const fresh = join(stage, 'new', dir);
      if (!existsSync(fresh)) mkdirSync(fresh, { recursive: true });
      if (existsSync(live)) renameSync(live, join(stage, 'old', dir));
      renameSync(fresh, live);
    }
  } catch (err) {
    // Put back whatever was moved aside before reporting the failure.
    for (const dir of OUTPUT_ROOTS) {
      const old = join(stage, 'old', dir);
      if (existsSync(old)) {
        rmSync(join(root, dir), { recursive: true, force: true });
        renameSync(old, join(root, dir));
      }
    }
    throw err;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

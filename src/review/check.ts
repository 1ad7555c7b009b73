import { createTwoFilesPatch } from 'diff';

/** One way the output on disk differs from a fresh synth. */
export interface Drift {
  /** Path relative to the output root. */
  readonly path: string;
  /**
   * stale: content differs; missing: synth makes it but it is not there; extra: it is there
   * but synth does not make it; line-endings: the same but for CRLF where synth writes LF
   * (a git that converts line endings on checkout).
   */
  readonly kind: 'stale' | 'missing' | 'extra' | 'line-endings';
  /** A unified diff from the file on disk to the fresh one, cut to `maxLines`; empty for line-endings. */
  readonly diff: string;
}

/**
 * Compares the files of `dist/` and `argocd/` as found on disk with freshly generated ones.
 * @param maxLines lines of diff kept per file. @default 40
 */
export function checkTree(onDisk: ReadonlyMap<string, string>, fresh: ReadonlyMap<string, string>, maxLines = 40): Drift[] {
  const drifts: Drift[] = [];
  const paths = [...new Set([...onDisk.keys(), ...fresh.keys()])].sort();
  for (const path of paths) {
    const before = onDisk.get(path);
    const after = fresh.get(path);
    if (before === after) continue;
    if (before !== undefined && after !== undefined && before.replace(/\r\n/g, '\n') === after) {
      drifts.push({ path, kind: 'line-endings', diff: '' });
      continue;
    }
    const kind = before === undefined ? 'missing' : after === undefined ? 'extra' : 'stale';
    const patch = createTwoFilesPatch(`${path} (on disk)`, `${path} (generated)`, before ?? '', after ?? '', undefined, undefined, { context: 2 })
      .split('\n').slice(1).filter((l) => l !== '\\ No newline at end of file');
    const cut = patch.length > maxLines ? [...patch.slice(0, maxLines), `... ${patch.length - maxLines} more lines`] : patch;
    drifts.push({ path, kind, diff: cut.join('\n').trimEnd() });
  }
  return drifts;
}

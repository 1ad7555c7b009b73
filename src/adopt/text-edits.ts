/**
 * Adoption edits the config with the yaml Document API, which prints the whole document anew:
 * flow maps respaced (`{a: 1}` as `{ a: 1 }`), list items re-indented, quotes chosen again. The
 * user's file keeps every line adoption did not change byte for byte: the lines the reprint of
 * the unchanged file and of the edited one share are taken from the file itself, and only the
 * lines adoption changed, added or removed differ.
 */
import { diffArrays } from 'diff';
import { isDeepStrictEqual } from 'node:util';
import { parseDocument } from 'yaml';

/** The most changed lines for which untouched lines are kept (jsdiff's `maxEditLength`). */
const MAX_EDIT_LINES = 2_000;

/** How adoption prints the config: no folding of long lines. */
const PRINT_OPTIONS = { lineWidth: 0 } as const;

/**
 * `edited`, the Document API's print of `original` after adoption's edits, with each line it
 * did not change taken from `original`. When the reprint of `original` is not line for line the
 * file (a flow collection spread over lines, a comment moved), or the result would not read as
 * `edited` does, `edited` as it is.
 */
export function keepUntouchedLines(original: string, edited: string): string {
  const file = original.split('\n');
  // Reprinted as adoption prints (adopt.ts: YAML 1.1 compat), so a value it quotes anew is no change of its own.
  const reprint = parseDocument(original, { compat: 'yaml-1.1', uniqueKeys: false }).toString(PRINT_OPTIONS).split('\n');
  if (file.length !== reprint.length) return edited;
  const out: string[] = [];
  let at = 0;
  // A diff costs (lines × changes): past a few thousand changed lines (Helm values of 100,000 keys), the print as it is.
  const parts = diffArrays(reprint, edited.split('\n'), { maxEditLength: MAX_EDIT_LINES });
  if (parts === undefined) return edited;
  for (const part of parts) {
    if (part.added) out.push(...part.value);
    else if (part.removed) at += part.value.length;
    else {
      out.push(...file.slice(at, at + part.value.length));
      at += part.value.length;
    }
  }
  const text = out.join('\n');
  return isDeepStrictEqual(parseDocument(text).toJS(), parseDocument(edited).toJS()) ? text : edited;
}

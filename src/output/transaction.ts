import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { eachBounded } from './bounded';
import { FsOps } from './fs-ops';
import { isOutputPath, OUTPUT_ROOTS } from './layout';
import { OutputError } from './output-error';
import { kindOf, OutputTree } from './tree';

/**
 * A change of the output tree, written down before any file of the tree is touched.
 * Every step it implies can be done, and undone, again without harm, so a run killed
 * at any instant is finished (or undone) by the next one.
 */
export interface Journal {
  readonly version: 1;
  /** Files whose new content is staged at `new/<path>`; `replaces` when the file exists now. */
  readonly writes: readonly { readonly path: string; readonly replaces: boolean }[];
  /** Files that go away. */
  readonly deletes: readonly string[];
  /** Folders that end up with no file in them, innermost first. */
  readonly rmdirs: readonly string[];
  /** Folders the new files need, outermost first. */
  readonly mkdirs: readonly string[];
  /**
   * The outermost of {@link Journal.mkdirs}: each is staged whole and moved in by one rename
   * (a cold synth of a thousand teams is one rename, not a thousand folders and files).
   * @default [] (journals of earlier releases)
   */
  readonly moves?: readonly string[];
  /**
   * Staged and set-aside files are named by their place in the journal, not by their path: a
   * write is staged at `new/#<i>` (but in a folder of {@link Journal.moves}, staged whole at
   * `new/<path>`), a replaced file set aside at `old/#w<i>`, a deleted one at `old/#d<i>`. The
   * staging area is then two flat folders, whatever the tree: no folder to create for each file,
   * none to remove after (a change of 240 clusters' files was 2,000 folders).
   * @default false (journals of earlier releases: staged and set aside at `new/<path>`, `old/<path>`)
   */
  readonly flat?: boolean;
}

/** What a change did, file by file. */
export interface ChangeResult {
  /** Files created or rewritten. */
  readonly written: readonly string[];
  /** Files that are gone. */
  readonly removed: readonly string[];
  /** Files whose content was already right (not touched). */
  readonly unchanged: number;
}

/** The staging area of one change, inside the state folder. */
export const TXN_DIR = 'txn';

/** The files a kind of change may touch: what a journal is checked against before it is carried out. */
export interface ChangeScope {
  /** Folders that stay even when the change leaves them empty. */
  readonly roots: readonly string[];
  /** Whether a path relative to the root may be written, removed or created by the change. */
  allows(path: string): boolean;
  /** What the files are, for messages (`dist/ and argocd/`). */
  readonly name: string;
}

/** A synth's change: `dist/` and `argocd/`. */
export const OUTPUT_SCOPE: ChangeScope = {
  roots: OUTPUT_ROOTS,
  allows: (p) => isOutputPath(p) || (OUTPUT_ROOTS as readonly string[]).includes(p),
  name: 'dist/ and argocd/',
};
const JOURNAL = 'journal.json';

/**
 * The change that turns `old` into exactly `files`; files already right are left out.
 * @param kept files on disk that stay as they are, neither in `old` nor in `files` (an
 *   incremental synth's unchanged clusters, whose text it never read): their folders stay. @default - none
 */
export function planChange(old: OutputTree, files: ReadonlyMap<string, string>, scope: ChangeScope = OUTPUT_SCOPE, kept: ReadonlySet<string> = new Set()): Journal {
  const writes = [...files].filter(([path, content]) => old.files.get(path) !== content)
    .map(([path]) => ({ path, replaces: old.files.has(path) }));
  const deletes = [...old.files.keys()].filter((path) => !files.has(path) && !kept.has(path));
  const needed = new Set([...files.keys(), ...kept].flatMap(parents));
  const existing = new Set(old.dirs);
  const roots = scope.roots;
  // The roots themselves stay, even when empty.
  const rmdirs = old.dirs.filter((d) => !needed.has(d) && !roots.includes(d)).sort((a, b) => depth(b) - depth(a) || (a < b ? -1 : 1));
  const mkdirs = [...needed].filter((d) => !existing.has(d)).sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : 1));
  const created = new Set(mkdirs);
  const moves = mkdirs.filter((d) => !created.has(parents(d).pop() ?? ''));
  return { version: 1, writes, deletes, rmdirs, mkdirs, moves, flat: true };
}

/** Where a journal's files are staged and set aside in its staging area `txn` ({@link Journal.flat}). */
function placesOf(txn: string, j: Journal): { staged(i: number): string; replaced(i: number): string; deleted(i: number): string } {
  if (!j.flat) {
    return {
      staged: (i) => join(txn, 'new', j.writes[i].path),
      replaced: (i) => join(txn, 'old', j.writes[i].path),
      deleted: (i) => join(txn, 'old', j.deletes[i]),
    };
  }
  const moved = new Set(j.moves ?? []);
  return {
    staged: (i) => (parents(j.writes[i].path).some((d) => moved.has(d)) ? join(txn, 'new', j.writes[i].path) : join(txn, 'new', `#${i}`)),
    replaced: (i) => join(txn, 'old', `#w${i}`),
    deleted: (i) => join(txn, 'old', `#d${i}`),
  };
}

/** Whether a change does nothing. */
export function isEmpty(j: Journal): boolean {
  return j.writes.length === 0 && j.deletes.length === 0 && j.rmdirs.length === 0 && j.mkdirs.length === 0;
}

/**
 * Makes the change: stages every new file under `<txn>/new` and flushes it, commits the
 * journal (the instant the change becomes certain), moves the files in by renames (the
 * replaced and deleted ones into `<txn>/old`), then discards the staging area.
 * Any failure before the commit leaves the tree untouched; after it, the change is undone
 * step by step. If even that fails, the journal stays and the next run finishes the change.
 */
/** A change to make: where, its staging area, its journal and the new files' text. */
export interface Change {
  /** The root the journal's paths are relative to. */
  readonly root: string;
  /** The staging area of the change. */
  readonly txn: string;
  readonly journal: Journal;
  /** Every file of the new tree, by path. */
  readonly files: ReadonlyMap<string, string>;
}

export async function applyChange({ root, txn, journal, files }: Change, ops: FsOps, scope: ChangeScope = OUTPUT_SCOPE): Promise<ChangeResult> {
  const result = { written: journal.writes.map((w) => w.path), removed: [...journal.deletes], unchanged: files.size - journal.writes.length };
  if (isEmpty(journal)) return result;
  if (kindOf(txn) !== 'missing') ops.removeAll(txn);
  try {
    await stage(txn, journal, files, ops);
    await ops.writeDurable(join(txn, `${JOURNAL}.tmp`), `${JSON.stringify(journal)}\n`);
    ops.rename(join(txn, `${JOURNAL}.tmp`), join(txn, JOURNAL));
    ops.fsyncDir(txn);
  } catch (err) {
    discardQuietly(txn, ops);
    throw err;
  }
  try {
    rollForward(root, txn, journal, ops, scope);
  } catch (err) {
    if (err instanceof OutputError) throw err;
    try {
      rollBack(root, txn, journal, ops);
    } catch {
      throw new OutputError(`${message(err)}; the change could not be undone either: the next run finishes it`, false);
    }
    throw err;
  }
  return result;
}

/**
 * Finishes the change a killed run left: a committed journal is carried out (its new
 * files are complete on disk); staging without a journal is thrown away (the tree was
 * never touched). Returns what it did.
 */
export function recover(root: string, txn: string, ops: FsOps, scope: ChangeScope = OUTPUT_SCOPE): 'nothing' | 'discarded' | 'finished' {
  if (kindOf(txn) === 'missing') return 'nothing';
  if (kindOf(txn) !== 'dir') throw new OutputError(`${txn} is not a folder: remove it and run again`);
  if (kindOf(join(txn, JOURNAL)) !== 'file') {
    ops.removeAll(txn);
    return 'discarded';
  }
  const journal = readJournal(join(txn, JOURNAL), scope);
  try {
    rollForward(root, txn, journal, ops, scope);
  } catch (err) {
    if (err instanceof OutputError) throw err;
    rollBack(root, txn, journal, ops);
    throw new OutputError(`an interrupted change could not be finished (${message(err)}), so it was undone`);
  }
  return 'finished';
}

async function stage(txn: string, journal: Journal, files: ReadonlyMap<string, string>, ops: FsOps): Promise<void> {
  ops.mkdir(txn);
  const places = placesOf(txn, journal);
  const staged = journal.writes.map((_, i) => places.staged(i));
  const dirs = new Set([join(txn, 'new'), join(txn, 'old'), ...staged.flatMap((f) => parents(f.slice(txn.length + 1)).map((d) => join(txn, d)))]);
  for (const d of [...dirs].sort((a, b) => a.length - b.length)) ops.mkdir(d);
  // A few files open at a time: a thousand teams' files at once exceed the open-file limit (EMFILE).
  await eachBounded(journal.writes.map((w, i) => ({ w, i })), ({ w, i }) => ops.write(staged[i], files.get(w.path) ?? ''));
  // Every new file is on disk before the journal says the change may be carried out.
  await ops.flush(txn, [...staged, ...dirs]);
}

/** Carries out a committed journal; each step checks whether it was done already. */
function rollForward(root: string, txn: string, j: Journal, ops: FsOps, scope: ChangeScope): void {
  const at = (p: string) => join(root, p);
  const places = placesOf(txn, j);
  for (const [i, path] of j.deletes.entries()) {
    if (exists(at(path)) && !exists(places.deleted(i))) moveAside(at(path), places.deleted(i), txn, ops);
  }
  for (const d of j.rmdirs) if (isEmptyDir(at(d), ops)) ops.rmdir(at(d));
  // A new folder moves in whole, with every file staged in it; the writes below then skip those.
  for (const d of j.moves ?? []) if (!exists(at(d)) && exists(join(txn, 'new', d))) ops.rename(join(txn, 'new', d), at(d));
  for (const d of j.mkdirs) if (!exists(at(d))) ops.mkdir(at(d));
  for (const [i, w] of j.writes.entries()) {
    const staged = places.staged(i);
    if (!exists(staged)) continue;
    if (w.replaces && exists(at(w.path)) && !exists(places.replaced(i))) moveAside(at(w.path), places.replaced(i), txn, ops);
    ops.rename(staged, at(w.path));
  }
  // Moved in whole: its staged copy is gone (a folder that was there already took its files one by one).
  const whole = (j.moves ?? []).filter((d) => !exists(join(txn, 'new', d)));
  for (const d of touchedDirs(root, j, whole)) if (exists(d)) ops.fsyncDir(d);
  try {
    ops.unlink(join(txn, JOURNAL));
  } catch (err) {
    throw new OutputError(`${scope.name} hold the new files, but the journal of the change could not be removed (${message(err)}): the next run tidies it up`, false);
  }
  discardQuietly(txn, ops);
}

/** Undoes a committed journal, in reverse; each step checks whether there is anything to undo. */
function rollBack(root: string, txn: string, j: Journal, ops: FsOps): void {
  const at = (p: string) => join(root, p);
  const places = placesOf(txn, j);
  // Folders that moved in whole go back whole: their files are then staged again.
  for (const d of [...(j.moves ?? [])].reverse()) if (exists(at(d)) && !exists(join(txn, 'new', d))) ops.rename(at(d), join(txn, 'new', d));
  for (const [i, w] of [...j.writes.entries()].reverse()) {
    const staged = places.staged(i);
    if (!exists(staged) && exists(at(w.path))) ops.rename(at(w.path), staged);
    if (w.replaces && exists(places.replaced(i))) ops.rename(places.replaced(i), at(w.path));
  }
  for (const d of [...j.mkdirs].reverse()) if (isEmptyDir(at(d), ops)) ops.rmdir(at(d));
  for (const d of [...j.rmdirs].reverse()) if (!exists(at(d))) ops.mkdir(at(d));
  for (const [i, path] of [...j.deletes.entries()].reverse()) if (exists(places.deleted(i))) ops.rename(places.deleted(i), at(path));
  const whole = (j.moves ?? []).filter((d) => !exists(at(d)));
  for (const d of touchedDirs(root, j, whole)) if (exists(d)) ops.fsyncDir(d);
  ops.unlink(join(txn, JOURNAL));
  ops.removeAll(txn);
}

/** Moves a file of the tree to its place in the staging area's `old/` ({@link placesOf}), creating the folders it needs there (none for a flat journal). */
function moveAside(file: string, backup: string, txn: string, ops: FsOps): void {
  for (const d of parents(backup.slice(txn.length + 1))) if (!exists(join(txn, d))) ops.mkdir(join(txn, d));
  ops.rename(file, backup);
}

/**
 * The folders whose entries a change renames, so they are flushed before the journal goes. A
 * folder moved whole (`whole`, in or back) changes only its parent's entries: what is inside it
 * was flushed when it was staged (a cold synth of a thousand teams flushes a few folders, not a
 * thousand).
 */
function touchedDirs(root: string, j: Journal, whole: readonly string[]): string[] {
  const moved = new Set(whole);
  const paths = [...j.writes.map((w) => w.path), ...j.deletes, ...j.rmdirs, ...j.mkdirs];
  return [...new Set(paths.filter((p) => !parents(p).some((d) => moved.has(d))).map((p) => join(root, dirname(p))))];
}

function readJournal(path: string, scope: ChangeScope): Journal {
  const bad = () => new OutputError(`${path} is not a journal karpenter-gitops wrote: remove its folder and run again`);
  let j: Partial<Journal>;
  try {
    j = JSON.parse(readFileSync(path, 'utf8')) as Partial<Journal>;
  } catch {
    throw bad();
  }
  const paths = [...(j.writes ?? []).map((w) => w?.path), ...(j.deletes ?? []), ...(j.rmdirs ?? []), ...(j.mkdirs ?? []), ...(j.moves ?? [])];
  const valid = j.version === 1 && Array.isArray(j.writes) && Array.isArray(j.deletes) && Array.isArray(j.rmdirs) && Array.isArray(j.mkdirs)
    && (j.moves === undefined || (Array.isArray(j.moves) && j.moves.every((d) => (j.mkdirs ?? []).includes(d))))
    && (j.flat === undefined || typeof j.flat === 'boolean')
    && paths.every((p) => typeof p === 'string' && scope.allows(p));
  if (!valid) throw bad();
  return j as Journal;
}

/** Removes a staging area that holds no committed journal; one left behind is discarded by the next run. */
function discardQuietly(txn: string, ops: FsOps): void {
  try { ops.removeAll(txn); } catch { /* without a journal, the next run discards it */ }
}

function exists(path: string): boolean {
  return existsSync(path) || kindOf(path) === 'link';
}

function isEmptyDir(path: string, ops: FsOps): boolean {
  return kindOf(path) === 'dir' && ops.list(path).length === 0;
}

/** The folders above a relative path, outermost first (`dist/a/b.yaml` → `dist`, `dist/a`). */
function parents(path: string): string[] {
  const segments = path.split('/');
  return segments.slice(0, -1).map((_, i) => segments.slice(0, i + 1).join('/'));
}

function depth(path: string): number {
  return path.split('/').length;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

import { mkdirSync, readdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { FsOps, REAL_FS } from './fs-ops';
import { INIT_TXN_DIR, STATE_DIR, UPGRADE_TXN_DIR } from './layout';
import { acquireLock, OutputLock } from './lock';
import { InputsManifest, ReadManifest, readInputsManifest, writeInputsManifest } from './synth-cache';
import { OutputError } from './output-error';
import { applyChange, ChangeResult, OUTPUT_SCOPE, planChange, recover, TXN_DIR } from './transaction';
import { kindOf, listOutputTree, OutputTree, readOutputTree } from './tree';
import type { Listing } from './tree';

/**
 * The generator's state folder under `root` (the lock, and the staging areas of synth, upgrade
 * and init), made when missing; anything else there (a file, a link) is refused.
 */
export function stateFolder(root: string): string {
  const state = join(root, STATE_DIR);
  const kind = kindOf(state);
  if (kind === 'missing') mkdirSync(state);
  else if (kind !== 'dir') {
    throw new OutputError(`${STATE_DIR} is ${kind === 'link' ? 'a symbolic link' : 'not a folder'}: it is karpenter-gitops' own state folder; remove it and run again`);
  }
  return state;
}

/**
 * The output folders under one root (`dist/`, `argocd/` and the generator's state folder),
 * held under the lock for one run. The only way the generator touches them.
 */
export class OutputDir {
  /**
   * Opens the output under `root` for a run: refuses a state folder that is a link, takes
   * the lock (a second run fails at once), and finishes or discards a change a killed run
   * left behind, so what the run reads is a whole tree, old or new.
   * @param command the run, shown to a concurrent one (`synth`, `check`)
   */
  public static open(root: string, command: string, ops: FsOps = REAL_FS): OutputDir {
    mkdirSync(root, { recursive: true });
    const created = kindOf(join(root, STATE_DIR)) === 'missing';
    const state = stateFolder(root);
    for (const inside of ['lock', TXN_DIR]) {
      if (kindOf(join(state, inside)) === 'link') throw new OutputError(`${STATE_DIR}/${inside} is a symbolic link: remove it and run again`);
    }
    const lock = acquireLock(state, command);
    try {
      if (kindOf(join(state, UPGRADE_TXN_DIR)) !== 'missing') {
        throw new OutputError(`an npm run upgrade was interrupted (${STATE_DIR}/${UPGRADE_TXN_DIR} is left): run npm run upgrade -- VERSION again, it finishes or undoes that one first`);
      }
      if (kindOf(join(state, INIT_TXN_DIR)) !== 'missing') {
        throw new OutputError(`an npm run init was interrupted (${STATE_DIR}/${INIT_TXN_DIR} is left): run npm run init -- CLUSTER --terraform FILE --force again, it finishes or undoes that one first`);
      }
      // Refuse links before a leftover change renames anything into the tree.
      const listed = listOutputTree(root);
      const recovered = recover(root, join(state, TXN_DIR), ops);
      const listing = recovered === 'finished' ? listOutputTree(root) : listed;
      return new OutputDir(root, state, lock, ops, { finishedInterrupted: recovered === 'finished', createdState: created, listing });
    } catch (err) {
      lock.release();
      if (created) removeIfEmpty(state);
      throw err;
    }
  }

  private constructor(
    /** The output root. */
    public readonly root: string,
    private readonly state: string,
    private readonly lock: OutputLock,
    private readonly ops: FsOps,
    private readonly opened: {
      /** Whether opening finished a change that an earlier, killed run had committed. */
      readonly finishedInterrupted: boolean;
      /** Whether this run made the state folder (it goes again when the run leaves nothing in it). */
      readonly createdState: boolean;
      /** The files and folders of the tree once opened (before this run changed anything). */
      readonly listing: Listing;
    },
  ) {}

  /** The files and folders of `dist/` and `argocd/` as the run found them, by name (no file read). */
  public get listing(): Listing {
    return this.opened.listing;
  }

  /** Whether opening finished a change that an earlier, killed run had committed. */
  public get finishedInterrupted(): boolean {
    return this.opened.finishedInterrupted;
  }

  /**
   * `dist/` and `argocd/` as listed when the run opened them (no link is ever followed), each file
   * read now; only the files `holds` takes (a shard's), when given. A file removed since (a `git
   * checkout` while a synth builds) is not in it; one added since is the next run's to find. A
   * folder removed since makes it list the tree again: a change planned from the old listing would
   * move files into a folder that is gone.
   */
  public read(holds?: (path: string) => boolean): OutputTree {
    const listed = this.listing.dirs.every((d) => kindOf(join(this.root, d)) === 'dir');
    return readOutputTree(this.root, holds, listed ? this.listing : listOutputTree(this.root));
  }

  /**
   * Makes `dist/` and `argocd/` hold exactly `files`, atomically: a failure or a kill at
   * any instant leaves the old tree or the new one (the next run finishes a committed
   * change). Files whose content is already right are not touched.
   * @param files paths relative to the root, each under `dist/` or `argocd/`
   * @param old the tree as {@link OutputDir.read} just returned it @default - read now
   * @param kept files that stay as they are on disk, read into neither `old` nor `files` (synth's unchanged clusters) @default - none
   */
  public async replace(files: ReadonlyMap<string, string>, old: OutputTree = this.read(), kept: ReadonlySet<string> = new Set()): Promise<ChangeResult> {
    const result = await applyChange({ root: this.root, txn: join(this.state, TXN_DIR), journal: planChange(old, files, OUTPUT_SCOPE, kept), files }, this.ops);
    return { ...result, unchanged: result.unchanged + kept.size };
  }

  /** The manifest of the last synth's inputs (synth-cache.ts), when there is a valid one. */
  public readInputs(): ReadManifest | undefined {
    return readInputsManifest(this.state);
  }

  /** Replaces the manifest of inputs, whole (after {@link OutputDir.replace} succeeded). */
  public writeInputs(manifest: InputsManifest): void {
    writeInputsManifest(this.state, manifest);
  }

  /**
   * Releases the lock; a state folder this run made and left empty (a failed first run, or a
   * `check`) goes too, so a run that fails leaves nothing behind.
   */
  public close(): void {
    this.lock.release();
    if (this.opened.createdState) removeIfEmpty(this.state);
  }
}

/** Removes a folder if nothing is in it (another run may have just put its lock there: then it stays). */
function removeIfEmpty(dir: string): void {
  try {
    if (readdirSync(dir).length === 0) rmdirSync(dir);
  } catch { /* a run that started meanwhile keeps it */ }
}

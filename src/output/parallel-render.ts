import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { GeneratedFile, renderFile, sortedByPath } from './render';

/** From how many files a worker pays for itself (measured on a 2-core machine: see docs/performance.md). */
const WORKER_MIN_FILES = 300;

/** Files per block of claims: the worker is sent a new block of shared flags when the files outgrow the last. */
export const CLAIM_BLOCK = 1024;

/** A message to the worker: a block of claim flags, a file to render (with its index), or the end. */
export type RenderMessage =
  | { readonly claims: SharedArrayBuffer }
  | { readonly index: number; readonly file: GeneratedFile }
  | 'done';

/**
 * Whoever claims a file renders it: 0 unclaimed, 1 the worker's, 2 the main thread's. Both
 * threads claim with one atomic compare-and-exchange on a flag they share.
 */
export function claim(blocks: readonly Int32Array[], index: number, by: 1 | 2): boolean {
  return Atomics.compareExchange(blocks[Math.floor(index / CLAIM_BLOCK)], index % CLAIM_BLOCK, 0, by) === 0;
}

/**
 * Renders generated files to YAML on a worker thread while the main thread goes on
 * building the next ones: rendering is as costly as building, so on two cores the
 * two overlap. When the main thread has built the last file it does not wait: it renders
 * the files the worker has not reached yet, from the last one down, each file claimed by
 * one thread only. Without the bundled worker script (tests run the TypeScript sources)
 * it renders in-process, with the same result.
 */
export class ParallelRenderer {
  /**
   * Starts the worker for `files` files or more: loading it costs a node process about 0.2 s of
   * CPU, more than rendering a few hundred files takes, so a small fleet renders in-process.
   */
  public static start(workerScript: string, files: number = WORKER_MIN_FILES): ParallelRenderer {
    return new ParallelRenderer(files >= WORKER_MIN_FILES && existsSync(workerScript) ? new Worker(workerScript) : undefined);
  }

  private readonly local = new Map<string, string>();
  private readonly sent: GeneratedFile[] = [];
  private readonly blocks: Int32Array[] = [];

  private constructor(private readonly worker: Worker | undefined) {}

  /** Hands one file over for rendering. */
  public add(file: GeneratedFile): void {
    if (!this.worker) {
      this.local.set(file.path, renderFile(file));
      return;
    }
    const index = this.sent.length;
    if (index % CLAIM_BLOCK === 0) {
      const claims = new SharedArrayBuffer(CLAIM_BLOCK * Int32Array.BYTES_PER_ELEMENT);
      this.blocks.push(new Int32Array(claims));
      this.worker.postMessage({ claims } satisfies RenderMessage);
    }
    this.sent.push(file);
    this.worker.postMessage({ index, file } satisfies RenderMessage);
  }

  /** Every file added, rendered, in path order. */
  public async finish(): Promise<Map<string, string>> {
    const worker = this.worker;
    if (!worker) return sortedByPath(this.local);
    const rendered = new Promise<[string, string][]>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.postMessage('done' satisfies RenderMessage);
    });
    // The worker claims in order from the first; the first file it has claimed ends the main thread's share.
    for (let i = this.sent.length - 1; i >= 0 && claim(this.blocks, i, 2); i--) this.local.set(this.sent[i].path, renderFile(this.sent[i]));
    const theirs = await rendered;
    await worker.terminate();
    return sortedByPath(new Map([...theirs, ...this.local]));
  }

  /** Stops the worker without waiting for its work (the run failed). */
  public async cancel(): Promise<void> {
    await this.worker?.terminate();
  }
}

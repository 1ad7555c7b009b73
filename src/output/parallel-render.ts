import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { GeneratedFile, renderFile, sortedByPath } from './render';

/**
 * Renders generated files to YAML on a worker thread while the main thread goes on
 * building the next ones: rendering is as costly as building, so on two cores the
 * two overlap. Without the bundled worker script (tests run the TypeScript sources)
 * it renders in-process, with the same result.
 */
export class ParallelRenderer {
  /** Starts the worker early, so it loads while the config is being validated. */
  public static start(workerScript: string): ParallelRenderer {
    return new ParallelRenderer(existsSync(workerScript) ? new Worker(workerScript) : undefined);
  }

  private readonly local = new Map<string, string>();

  private constructor(private readonly worker: Worker | undefined) {}

  /** Hands one file over for rendering. */
  public add(file: GeneratedFile): void {
    if (this.worker) this.worker.postMessage(file);
    else this.local.set(file.path, renderFile(file));
  }

  /** Every file added, rendered, in path order. */
  public async finish(): Promise<Map<string, string>> {
    const worker = this.worker;
    if (!worker) return sortedByPath(this.local);
    const rendered = await new Promise<[string, string][]>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.postMessage('done');
    });
    await worker.terminate();
    return sortedByPath(new Map(rendered));
  }

  /** Stops the worker without waiting for its work (the run failed). */
  public async cancel(): Promise<void> {
    await this.worker?.terminate();
  }
}

import { parentPort } from 'node:worker_threads';
import { GeneratedFile, renderFile } from './output/render';

/**
 * Worker of `ParallelRenderer`: renders each file it receives, and on "done"
 * sends back every rendered file. Bundled as lib/render-worker.cjs.
 */
const rendered: [string, string][] = [];
parentPort?.on('message', (message: GeneratedFile | 'done') => {
  if (message === 'done') parentPort?.postMessage(rendered);
  else rendered.push([message.path, renderFile(message)]);
});

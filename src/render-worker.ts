import { parentPort } from 'node:worker_threads';
import { claim, RenderMessage } from './output/parallel-render';
import { renderFile } from './output/render';

/**
 * Worker of `ParallelRenderer`: renders each file it receives unless the main thread has
 * claimed it, and on "done" sends back every file it rendered. Bundled as lib/render-worker.cjs.
 */
const rendered: [string, string][] = [];
const blocks: Int32Array[] = [];
parentPort?.on('message', (message: RenderMessage) => {
  if (message === 'done') parentPort?.postMessage(rendered);
  else if ('claims' in message) blocks.push(new Int32Array(message.claims));
  else if (claim(blocks, message.index, 1)) rendered.push([message.file.path, renderFile(message.file)]);
});

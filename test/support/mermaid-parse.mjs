// Checks Mermaid diagrams with mermaid's own parser in Node, for test/support/mermaid.ts
// (parseMermaid): reads a JSON array of diagrams on stdin and writes a JSON array of the same
// length, null for a valid diagram, else mermaid's error message. A child process because
// mermaid is ESM only and Jest's CommonJS sandbox cannot import it.
import { JSDOM } from 'jsdom';

// mermaid sanitizes labels with DOMPurify, which needs a window; without one, parsing a
// flowchart fails with "DOMPurify.addHook is not a function".
const { window } = new JSDOM('');
globalThis.window = window;
globalThis.document = window.document;
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const errors = [];
for (const text of JSON.parse(Buffer.concat(chunks).toString('utf8'))) {
  try {
    const { diagramType } = await mermaid.parse(text);
    // A gantt chart's dates are resolved by the first step of its renderer (db.getTasks), not
    // by the parser: parse accepts 2024-13-45. Take that step here too.
    if (diagramType === 'gantt') (await mermaid.mermaidAPI.getDiagramFromText(text)).db.getTasks();
    errors.push(null);
  } catch (error) {
    errors.push(error instanceof Error ? error.message : String(error));
  }
}
window.close();
process.stdout.write(JSON.stringify(errors));

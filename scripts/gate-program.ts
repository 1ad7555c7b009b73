import { buildSync } from 'esbuild';
import { join } from 'node:path';

/** The entry of the drift gate program, relative to the repository. */
const ENTRY = 'src/gate/main.ts';
/** The committed program, relative to the repository. */
export const GATE_PROGRAM_FILE = 'src/gate/program.generated.ts';

/**
 * The drift gate program as the Job runs it (`node -e <text>`): src/gate/main.ts and what it
 * imports, bundled into one CommonJS text for Node 20 and later. Built relative to `root`,
 * so its only paths are the `// src/gate/…` comments esbuild writes before each module.
 */
export function buildGateProgram(root: string): string {
  const result = buildSync({
    entryPoints: [ENTRY],
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    write: false,
    minify: false,
    legalComments: 'none',
    sourcemap: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

/** The text of {@link GATE_PROGRAM_FILE}: the program, one string per line, so a change reads as a diff. */
export function gateProgramFile(program: string): string {
  return `// GENERATED FILE - DO NOT EDIT BY HAND.
//
// The drift gate program: ${ENTRY} and what it imports, bundled by esbuild into one CommonJS
// text that the drift gate Job runs as \`node -e <text>\` (no shell, no npm package).
// Regenerate after changing src/gate/: npm run gate (scripts/gen-gate.ts);
// test/gate/program.test.ts fails while this file is stale.

/**
 * The drift gate program's source text, for \`command: ["node", "-e", DRIFT_GATE_PROGRAM]\`,
 * configured by the environment variable \`GATE\` (JSON of a GateSpec, src/gate/spec.ts).
 */
export const DRIFT_GATE_PROGRAM: string = [
${program.split('\n').map((line) => `  ${JSON.stringify(line)},`).join('\n')}
].join('\\n');
`;
}

/** Where {@link GATE_PROGRAM_FILE} is under `root`. */
export function gateProgramPath(root: string): string {
  return join(root, GATE_PROGRAM_FILE);
}

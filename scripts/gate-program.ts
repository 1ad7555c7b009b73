import { buildSync } from 'esbuild';
import { join } from 'node:path';

/**
 * The entries of the gate programs, relative to the repository: the drift gate (its Job in
 * `dist/<cluster>/drift-gate/`) and the guard gate (the PreSync hook of a guarded team's pools).
 */
export const GATE_ENTRIES = { drift: 'src/gate/main.ts', guard: 'src/gate/guard-main.ts' } as const;
/** A gate program. */
export type GateProgramName = keyof typeof GATE_ENTRIES;
/** The committed programs, relative to the repository. */
export const GATE_PROGRAM_FILE = 'src/gate/program.generated.ts';

/** The constant each program is exported as, and what it is. */
const CONSTANTS: Readonly<Record<GateProgramName, { readonly name: string; readonly doc: string }>> = {
  drift: { name: 'DRIFT_GATE_PROGRAM', doc: 'The drift gate program\'s source text, the file `node /gate/gate.js` runs (its ConfigMap, model/stages.ts),\n * configured by the environment variable `GATE` (JSON of a GateSpec, src/gate/spec.ts).' },
  guard: { name: 'GUARD_GATE_PROGRAM', doc: 'The guard gate program\'s source text, for `command: ["node", "-e", GUARD_GATE_PROGRAM]`,\n * configured by the environment variable `GUARD` (JSON of a GuardSpec, src/gate/guard-spec.ts).' },
};

/**
 * A gate program as its Job runs it (`node -e <text>`, or the drift gate's `node /gate/gate.js`): its entry and what it imports, bundled
 * into one CommonJS text for Node 20 and later. Built relative to `root`, so its only paths are
 * the `// src/gate/…` comments esbuild writes before each module.
 */
export function buildGateProgram(root: string, program: GateProgramName = 'drift'): string {
  const result = buildSync({
    entryPoints: [GATE_ENTRIES[program]],
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

/** Every gate program, built relative to `root`. */
export function buildGatePrograms(root: string): Record<GateProgramName, string> {
  return { drift: buildGateProgram(root, 'drift'), guard: buildGateProgram(root, 'guard') };
}

/** The text of {@link GATE_PROGRAM_FILE}: each program, one string per line, so a change reads as a diff. */
export function gateProgramFile(programs: Readonly<Record<GateProgramName, string>>): string {
  const constant = (name: GateProgramName) => `/**
 * ${CONSTANTS[name].doc}
 */
export const ${CONSTANTS[name].name}: string = [
${programs[name].split('\n').map((line) => `  ${JSON.stringify(line)},`).join('\n')}
].join('\\n');
`;
  return `// GENERATED FILE - DO NOT EDIT BY HAND.
//
// The gate programs: ${GATE_ENTRIES.drift} (the drift gate) and ${GATE_ENTRIES.guard} (the guard gate), each
// with what it imports, bundled by esbuild into one CommonJS text that its Job runs (the drift
// gate's from its ConfigMap, \`node /gate/gate.js\`; the guard gate's as \`node -e <text>\`; no shell,
// no npm package).
// Regenerate after changing src/gate/: npm run gate (scripts/gen-gate.ts);
// test/gate/program.test.ts fails while this file is stale.

${constant('drift')}
${constant('guard')}`;
}

/** Where {@link GATE_PROGRAM_FILE} is under `root`. */
export function gateProgramPath(root: string): string {
  return join(root, GATE_PROGRAM_FILE);
}

import { writeFileSync } from 'node:fs';
import { buildGateProgram, GATE_PROGRAM_FILE, gateProgramFile, gateProgramPath } from './gate-program';

/** Writes src/gate/program.generated.ts, the drift gate program the Job runs (`npm run gate`, from the repository's root). */
const root = process.cwd();
const program = buildGateProgram(root);
writeFileSync(gateProgramPath(root), gateProgramFile(program));
process.stdout.write(`wrote ${GATE_PROGRAM_FILE} (${Buffer.byteLength(program)} bytes)\n`);

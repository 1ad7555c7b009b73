import { writeFileSync } from 'node:fs';
import { buildGatePrograms, GATE_PROGRAM_FILE, gateProgramFile, gateProgramPath } from './gate-program';

/** Writes src/gate/program.generated.ts, the gate programs the Jobs run (`npm run gate`, from the repository's root). */
const root = process.cwd();
const programs = buildGatePrograms(root);
writeFileSync(gateProgramPath(root), gateProgramFile(programs));
process.stdout.write(`wrote ${GATE_PROGRAM_FILE} (drift gate ${Buffer.byteLength(programs.drift)} bytes, guard gate ${Buffer.byteLength(programs.guard)} bytes)\n`);

import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DRIFT_GATE_PROGRAM_DIR, DRIFT_GATE_PROGRAM_KEY } from '../../src/model/stages';
import { DRIFT_GATE_PROGRAM } from '../../src/gate/program.generated';

let driftGateFile: string | undefined;

/**
 * The arguments of `node` as a gate's Job gives them: the drift gate runs its program as a file of
 * its ConfigMap (`node /gate/gate.js`: here the same name in a folder of its own, read-only as the
 * kubelet's ConfigMap volume is, mode 0644 by default), the guard gate runs `node -e <text>`.
 */
export function nodeArgs(program: string): string[] {
  if (program !== DRIFT_GATE_PROGRAM) return ['-e', program];
  if (driftGateFile === undefined) {
    const dir = mkdtempSync(join(tmpdir(), `kg${DRIFT_GATE_PROGRAM_DIR.replace(/\//g, '-')}-`));
    driftGateFile = join(dir, DRIFT_GATE_PROGRAM_KEY);
    writeFileSync(driftGateFile, program);
    chmodSync(driftGateFile, 0o444);
  }
  return [driftGateFile];
}

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { OutputDir } from '../../src/output/output-dir';

describe('the output lock', () => {
  let root: string;
  beforeEach(() => { root = mkdtempSync(join(tmpdir(), 'kg-lock-')); });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('fails a second run at once, naming the run that holds it', () => {
    const first = OutputDir.open(root, 'synth');
    try {
      expect(() => OutputDir.open(root, 'check')).toThrow(
        new RegExp(`^another karpenter-gitops synth run \\(pid ${process.pid} on .*, started .*\\) is writing this output \\(lock .*\\.karpenter-gitops/lock\\): wait for it to finish`),
      );
    } finally {
      first.close();
    }
    OutputDir.open(root, 'check').close();
    // Nothing of either run is left: the state folder the first made went with the last lock.
    expect(existsSync(join(root, '.karpenter-gitops'))).toBe(false);
  });

  it('takes over the lock of a run that was killed (its process is gone)', () => {
    // A run leaves no state folder it made and left empty (a check, a failed synth): the killed run had made it.
    mkdirSync(join(root, '.karpenter-gitops'));
    // pid 2^22 + 1 is above Linux's pid_max default, so no process has it.
    const stale = { pid: 4194305, host: hostname(), started: '2026-01-01T00:00:00.000Z', command: 'synth' };
    writeFileSync(join(root, '.karpenter-gitops/lock'), JSON.stringify(stale));
    const out = OutputDir.open(root, 'synth');
    expect(JSON.parse(readFileSync(join(root, '.karpenter-gitops/lock'), 'utf8')).pid).toBe(process.pid);
    out.close();
  });

  it('never takes over the lock of another host (its process cannot be checked)', () => {
    mkdirSync(join(root, '.karpenter-gitops'));
    writeFileSync(join(root, '.karpenter-gitops/lock'), JSON.stringify({ pid: 4194305, host: 'elsewhere', started: 'x', command: 'synth' }));
    expect(() => OutputDir.open(root, 'synth')).toThrow(/pid 4194305 on elsewhere.*if no such run exists, remove the lock file/);
  });
});

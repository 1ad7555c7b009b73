import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { OutputError } from './output-error';

/** What a lock file says about the run holding it. */
interface Owner {
  readonly pid: number;
  readonly host: string;
  readonly started: string;
  readonly command: string;
}

/** A held lock; {@link OutputLock.release} it when the run ends. */
export interface OutputLock {
  release(): void;
}

/**
 * Takes the lock of the output folders, `<stateDir>/lock`, or fails at once naming the run
 * that holds it: two runs writing the same tree would leave one that matches neither.
 *
 * A lock whose process is gone (same host, pid not running: a run killed with -9) is
 * stale and taken over. It is moved aside by one atomic rename and checked to be the
 * stale lock that was read, so two runs that find the same stale lock cannot both win.
 * (Mtime-based locks such as proper-lockfile's would call a long, CPU-bound synth stale.)
 * @param stateDir the generator's state folder, which must exist and not be a link
 * @param command what the run is, shown to a second run (`synth`, `check`)
 */
export function acquireLock(stateDir: string, command: string): OutputLock {
  const path = join(stateDir, 'lock');
  const me: Owner = { pid: process.pid, host: hostname(), started: new Date().toISOString(), command };
  const candidate = join(stateDir, `lock.${process.pid}.${randomBytes(4).toString('hex')}`);
  writeFileSync(candidate, `${JSON.stringify(me)}\n`, { flag: 'wx' });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        // link() creates `lock` only if it does not exist: the atomic test-and-set.
        linkSync(candidate, path);
        return { release: () => releaseIf(path, me) };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const text = readText(path);
      const owner = parseOwner(text);
      if (attempt > 0 || !owner || !isStale(owner)) throw held(path, owner);
      breakStale(path, text);
    }
  } finally {
    unlinkSync(candidate);
  }
}

function releaseIf(path: string, me: Owner): void {
  // Only our own lock: never remove one another run took over.
  if (parseOwner(readText(path))?.pid === me.pid) unlinkSync(path);
}

function isStale(owner: Owner): boolean {
  if (owner.host !== hostname()) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Moves a stale lock aside; if another run replaced it in between, puts that one back and fails. */
function breakStale(path: string, staleText: string): void {
  const aside = `${path}.stale.${process.pid}`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const moved = readText(aside);
  if (moved !== staleText) {
    try { linkSync(aside, path); } catch { /* a third run holds it now */ }
    unlinkSync(aside);
    throw held(path, parseOwner(moved));
  }
  unlinkSync(aside);
}

function held(path: string, owner: Owner | undefined): OutputError {
  const who = owner ? `${owner.command} run (pid ${owner.pid} on ${owner.host}, started ${owner.started})` : 'run';
  return new OutputError(`another karpenter-gitops ${who} is writing this output (lock ${path}): wait for it to finish; `
    + 'if no such run exists, remove the lock file');
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}

function parseOwner(text: string): Owner | undefined {
  try {
    const o = JSON.parse(text) as Partial<Owner>;
    return typeof o.pid === 'number' && typeof o.host === 'string'
      ? { pid: o.pid, host: o.host, started: String(o.started), command: String(o.command) } : undefined;
  } catch {
    return undefined;
  }
}

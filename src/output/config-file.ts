/**
 * The config file (`config/platform.yaml`) rewritten by a command (adopt) under the lock synth
 * takes for its output (lock.ts), for the whole run: a second run that would read the config
 * before the first wrote it fails at once instead of losing the first one's change. The new text
 * is written to a file in the state folder and renamed over the config, so a kill leaves the old
 * config or the new one; a file a killed run left there is removed by the next run holding the lock.
 */
import { basename, dirname, join } from 'node:path';
import { rmSync, renameSync, writeFileSync } from 'node:fs';
import { acquireLock } from './lock';
import { stateFolder } from './output-dir';

/** A config file held under the lock; {@link ConfigFileLock.release} it when the run ends. */
export interface ConfigFileLock {
  /** Replaces the config's text at once (write, then rename). */
  write(text: string): void;
  release(): void;
}

/**
 * The folder whose state folder holds the lock: the project (`<root>/config/platform.yaml`), or
 * the config's own folder when it is not in a `config/` folder.
 */
function projectRoot(configPath: string): string {
  const dir = dirname(configPath);
  return basename(dir) === 'config' ? dirname(dir) : dir;
}

/**
 * Takes the lock for `configPath` or fails at once naming the run that holds it.
 * @param command the run, shown to a concurrent one (`adopt`)
 */
export function lockConfigFile(configPath: string, command: string): ConfigFileLock {
  const state = stateFolder(projectRoot(configPath));
  const lock = acquireLock(state, command);
  const temporary = join(state, `${command}.${basename(configPath)}`);
  // Only the lock's owner writes it: one found now is a killed run's.
  rmSync(temporary, { force: true });
  return {
    write: (text) => {
      writeFileSync(temporary, text);
      renameSync(temporary, configPath);
    },
    release: () => lock.release(),
  };
}

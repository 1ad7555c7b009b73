import { dirname, relative, resolve } from 'node:path';

/**
 * The folder the user ran the command in. npm runs a script in the package root and
 * passes the folder it was run from as `INIT_CWD`; every process the script starts
 * inherits it, so it is ours only when this process runs where npm ran the script
 * (a test that spawns the tool in a temporary folder during `npm test` is not).
 */
export function userDir(env: NodeJS.ProcessEnv): string {
  const init = env.INIT_CWD;
  if (!init) return process.cwd();
  const pkg = env.npm_package_json;
  if (pkg && resolve(dirname(pkg)) !== process.cwd()) return process.cwd();
  return resolve(init);
}

/** Paths as the user gave them and as they are shown back. */
export class UserPaths {
  public constructor(
    /** Where the user ran the command (see {@link userDir}). */
    public readonly dir: string,
  ) {}

  /** A path the user typed, made absolute from where they ran the command. */
  public resolve(path: string): string {
    return resolve(this.dir, path);
  }

  /**
   * An absolute path as the user sees it: relative to where they ran the command,
   * or absolute when that is shorter (a folder in /tmp from a project folder).
   */
  public show(path: string): string {
    const rel = relative(this.dir, path);
    if (rel === '') return '.';
    return rel.startsWith('..') && path.length < rel.length ? path : rel;
  }
}

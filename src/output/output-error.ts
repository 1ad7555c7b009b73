/**
 * A problem with the output folders that the user must fix (a symbolic link planted in
 * `dist/`, a second run holding the lock, a folder that cannot be written). Printed as one
 * line, exit code 1, without a stack trace.
 */
export class OutputError extends Error {
  public constructor(
    message: string,
    /** Whether the output folders are exactly as they were before the run. @default true */
    public readonly unchanged: boolean = true,
  ) {
    super(message);
    this.name = 'OutputError';
  }
}

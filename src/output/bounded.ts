/**
 * How many file operations a change keeps in flight at once: each holds a file open, and the
 * open-file limit is 256 by default on macOS (1,024 on most Linux systems), shared with the
 * process's own files. More than a few dozen buys nothing: Node.js runs file operations on a
 * thread pool of 4.
 * @see https://nodejs.org/api/cli.html#uv_threadpool_sizesize
 */
export const IN_FLIGHT = 32;

/**
 * Runs `task` on every item, at most `limit` at once, in order of the items. After a failure no
 * further task starts, and the first failure is thrown only once every started task has
 * settled: whoever cleans up after it must not race a write still in flight.
 * @param limit tasks in flight at once @default IN_FLIGHT
 */
export async function eachBounded<T>(items: readonly T[], task: (item: T) => Promise<void>, limit: number = IN_FLIGHT): Promise<void> {
  let next = 0;
  let failure: { readonly reason: unknown } | undefined;
  const lane = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const item = items[next++];
      try {
        await task(item);
      } catch (reason) {
        failure ??= { reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure) throw failure.reason;
}

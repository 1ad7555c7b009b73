/**
 * How the gate programs read the API server (the drift gate, src/gate/run.ts, and the pool
 * guard, src/gate/guard.ts): a GET asked again until it has an answer to act on, a list read a
 * page at a time, and how they tell time and speak.
 */
import type { Answer, Api } from './api';
import type { ObjectList } from './objects';

/** How a gate tells time, waits and speaks: the process's in the Job, simulated in tests. */
export interface GateRuntime {
  /** Milliseconds since some fixed point. */
  now(): number;
  sleep(ms: number): Promise<void>;
  /** A line on standard output. */
  out(line: string): void;
  /** A line on standard error. */
  err(line: string): void;
}

/** Looks in a row whose reads the API server denies (401, 403) before a gate fails. */
export const DENIED_LOOKS = 5;
/** The first wait before a read is asked again; it doubles up to {@link MAX_BACKOFF_MS}. */
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;
/** Waiting lines shown in one log line; the rest are counted. */
const SHOWN_LINES = 12;

/** One read of a look: what it reads, in the words of RBAC, and its path. */
export interface Read {
  /** `nodepool web`: the subject of its waiting line. */
  readonly subject: string;
  /** `get nodepools.karpenter.sh web`: what the ClusterRole must allow. */
  readonly rule: string;
  readonly path: string;
  /** A list read, a page at a time: its answer must have `items`. @default false */
  readonly list?: boolean;
}

/** A read the API server denied. */
export interface Denial {
  readonly read: Read;
  readonly status: string;
  readonly message: string;
}

/** A name in a path. */
export const named = (name: string) => encodeURIComponent(name);

/**
 * The path of the page after the one that answered `token`: the same query with `continue`,
 * as the API server asks (the same parameters, only `continue` added).
 * @see https://github.com/kubernetes/apimachinery/blob/v0.34.9/pkg/apis/meta/v1/types.go#L375-L406 (ListOptions.limit, continue)
 */
function nextPage(read: Read, token: string): string {
  return `${read.path}&continue=${encodeURIComponent(token)}`;
}

/**
 * Reads one path until the API server gives an answer the gate can act on (200, 404, 401,
 * 403, and 410 for the next page of a list): a network error, 409, 429, 5xx or an unexpected
 * answer is logged and asked again, waiting longer each time (at least as long as
 * `Retry-After` says). It never gives up: what bounds a gate's time is its Job (the drift gate
 * has no deadline; a guard gate's Job has `activeDeadlineSeconds`).
 */
export async function read(api: Api, r: Read, runtime: GateRuntime, path = r.path): Promise<Exclude<Answer, { kind: 'retry' }>> {
  let backoff = FIRST_BACKOFF_MS;
  for (let attempt = 1; ; attempt++) {
    let a = await api.get(path);
    // A list always has its items (`[]` when none): a list without them must not read as "none".
    if (r.list && a.kind === 'ok' && listPage(a.body) === undefined) a = { kind: 'retry', reason: 'a list answer without items (unexpected)' };
    // Only a continue token expires; a 410 to anything else is the server's trouble, asked again.
    if (a.kind === 'expired' && path === r.path) a = { kind: 'retry', reason: `410 Gone (unexpected): ${a.message}` };
    if (a.kind !== 'retry') return a;
    const wait = Math.min(Math.max(backoff, (a.retryAfterSeconds ?? 0) * 1000), 2 * MAX_BACKOFF_MS);
    runtime.out(`GET ${path}: ${a.reason}; asking again in ${wait / 1000}s (attempt ${attempt})`);
    await runtime.sleep(wait);
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}

/** A whole list as a gate keeps it: what it keeps of every item, or why there is none. */
export type Listed<T> = { readonly kind: 'ok'; readonly items: readonly T[] } | Exclude<Answer, { kind: 'ok' | 'retry' | 'expired' }>;

/**
 * Every item of a list, a page at a time: each page's items reduced by `keep` before the next
 * page is asked for, until a page has no `continue`. A page may hold fewer items than asked
 * (none, even) while more remain: only `continue` says. When a `continue` token has expired
 * (410), the list starts again from the first page without it, as a client that needs a
 * consistent list must; the pages read so far are dropped, so every item is counted once, at
 * one resource version.
 * @see https://github.com/kubernetes/apimachinery/blob/v0.34.9/pkg/apis/meta/v1/types.go#L375-L406 (ListOptions.limit, continue: "it must restart their list without the continue field")
 * @see https://github.com/kubernetes/apiserver/blob/v0.34.9/pkg/storage/etcd3/errors.go#L52-L89 (an expired continue token: 410 ResourceExpired)
 */
export async function listAll<T>(api: Api, r: Read, runtime: GateRuntime, keep: (item: unknown) => T): Promise<Listed<T>> {
  let items: T[] = [];
  let path = r.path;
  let restarts = 0;
  for (;;) {
    const a = await read(api, r, runtime, path);
    if (a.kind === 'expired') {
      // At once the first time (a compaction between two pages); a server that keeps expiring them is not asked in a tight loop.
      const wait = restarts++ === 0 ? 0 : Math.min(FIRST_BACKOFF_MS * 2 ** (restarts - 2), MAX_BACKOFF_MS);
      runtime.out(`GET ${path}: 410 Gone: ${a.message}; listing again from the first page${wait ? ` in ${wait / 1000}s` : ''}`);
      if (wait) await runtime.sleep(wait);
      items = [];
      path = r.path;
      continue;
    }
    if (a.kind !== 'ok') return a;
    // read() asks again for a list answer without items.
    const page = listPage(a.body) ?? { items: [] };
    for (const item of page.items) items.push(keep(item));
    if (!page.continue) return { kind: 'ok', items };
    path = nextPage(r, page.continue);
  }
}

/**
 * A list answer's items and the token of its next page, if any (`ObjectList`); undefined when
 * the answer has no `items` (the API server always sends them, `[]` when there are none).
 */
function listPage(body: unknown): { readonly items: readonly unknown[]; readonly continue?: string } | undefined {
  const list: ObjectList<unknown> = typeof body === 'object' && body !== null ? body : {};
  if (!Array.isArray(list.items)) return undefined;
  const token = list.metadata?.continue;
  return { items: list.items, ...(typeof token === 'string' && token !== '' ? { continue: token } : {}) };
}

/** `a; b; c; … and 4 more`. */
export function joined(lines: readonly string[]): string {
  const rest = lines.length - SHOWN_LINES;
  return [...lines.slice(0, SHOWN_LINES), ...(rest > 0 ? [`… and ${rest} more`] : [])].join('; ');
}

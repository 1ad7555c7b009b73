import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { STATUS_CODES } from 'node:http';
import { join } from 'node:path';

/** Where Kubernetes mounts a pod's ServiceAccount token and the cluster's CA. */
export const SERVICEACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/**
 * Replaces {@link SERVICEACCOUNT_DIR} (tests point it at a folder of their own; the code path
 * is otherwise the same). @default - the pod's mounted ServiceAccount folder
 */
export const SERVICEACCOUNT_DIR_ENV = 'GATE_SERVICEACCOUNT_DIR';
/** Seconds a request may take before it counts as a network error. */
const REQUEST_TIMEOUT_MS = 30_000;

/** How to reach the API server from inside a pod. */
export interface ClusterConfig {
  /** `KUBERNETES_SERVICE_HOST`: a name or an IP address (IPv6 without brackets). */
  readonly host: string;
  readonly port: string;
  /** Read on every request: projected ServiceAccount tokens rotate. */
  readonly tokenFile: string;
  readonly caFile: string;
}

/**
 * The API server as client-go's `rest.InClusterConfig` finds it: `https://` and
 * `KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT` (an IPv6 address in brackets), the bearer
 * token and CA of the ServiceAccount folder. A problem when either variable is unset.
 * @see https://github.com/kubernetes/kubernetes/blob/4ade46fbf843e603eafeb32a875d49f86e0f847c/staging/src/k8s.io/client-go/rest/config.go (InClusterConfigWithContext)
 */
export function inClusterConfig(env: Readonly<Record<string, string | undefined>>): ClusterConfig | { readonly problem: string } {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '';
  if (!host || !port) return { problem: 'KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set: the gate runs in a pod of the cluster it watches' };
  // `||`: an empty variable is an unset one.
  const dir = env[SERVICEACCOUNT_DIR_ENV] || SERVICEACCOUNT_DIR;
  return { host, port, tokenFile: join(dir, 'token'), caFile: join(dir, 'ca.crt') };
}

/** The URL of the API server, for the log. */
export function serverUrl(config: ClusterConfig): string {
  return `https://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
}

/** What one GET answered, as the gate acts on it. */
export type Answer =
  /** 200, with the parsed JSON body. */
  | { readonly kind: 'ok'; readonly body: unknown }
  /** 404: the object is not there (yet). */
  | { readonly kind: 'missing' }
  /** 401 or 403: the ServiceAccount may not read it. */
  | { readonly kind: 'denied'; readonly status: string; readonly message: string }
  /** 410 Gone: what was asked for is no longer kept (a list's expired `continue` token). */
  | { readonly kind: 'expired'; readonly message: string }
  /** A network error, 409, 429, 5xx or anything unexpected: ask again later. */
  | { readonly kind: 'retry'; readonly reason: string; readonly retryAfterSeconds?: number };

/** The API server, read-only: the gate only ever GETs. */
export interface Api {
  get(path: string): Promise<Answer>;
  /** Closes the kept-alive connections. */
  close(): void;
}

/** `503 Service Unavailable`. */
const statusText = (code: number) => `${code} ${STATUS_CODES[code] ?? 'Unknown'}`;

/** The `message` of a `metav1.Status` body, or the start of the body. */
function messageOf(body: string): string {
  try {
    const status = JSON.parse(body) as { message?: unknown };
    if (typeof status.message === 'string') return status.message;
  } catch {
    // not JSON: the body itself says more than nothing
  }
  return body.slice(0, 200).replace(/\s+/g, ' ').trim();
}

/**
 * An HTTPS client of the API server with the pod's ServiceAccount: the CA read once (as
 * client-go does: when it cannot be read, a line is logged and the system's CAs are used),
 * the token read fresh on every request, connections kept alive between looks.
 */
export class KubeApi implements Api {
  private readonly agent: Agent;

  /**
   * @param userAgent what the API server's audit log names the client by
   * @default userAgent "karpenter-gitops-drift-gate"
   */
  public constructor(private readonly config: ClusterConfig, log: (line: string) => void, private readonly userAgent = 'karpenter-gitops-drift-gate') {
    let ca: Buffer | undefined;
    try {
      ca = readFileSync(config.caFile);
    } catch (err) {
      log(`cannot read the cluster CA ${config.caFile} (${(err as Error).message}): using the system's CAs`);
    }
    this.agent = new Agent({ keepAlive: true, maxSockets: 4, ca });
  }

  public get(path: string): Promise<Answer> {
    let token: string;
    try {
      token = readFileSync(this.config.tokenFile, 'utf8').trim();
    } catch (err) {
      return Promise.resolve({ kind: 'retry', reason: `cannot read the ServiceAccount token ${this.config.tokenFile}: ${(err as Error).message}` });
    }
    return new Promise<Answer>((resolve) => {
      const req = request(
        {
          host: this.config.host,
          port: this.config.port,
          path,
          method: 'GET',
          agent: this.agent,
          headers: { Authorization: `Bearer ${token}`, Accept: 'application/json', 'User-Agent': this.userAgent },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (err) => resolve({ kind: 'retry', reason: err.message }));
          res.on('end', () => resolve(answer(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'), res.headers['retry-after'])));
        },
      );
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`no answer in ${REQUEST_TIMEOUT_MS / 1000}s`)));
      req.on('error', (err) => resolve({ kind: 'retry', reason: err.message }));
      req.end();
    });
  }

  public close(): void {
    this.agent.destroy();
  }
}

/**
 * What an HTTP answer means to the gate: 404 is "not there yet", 401 and 403 a permission
 * problem, 410 an expired `continue` token (the caller starts its list again), and everything
 * else that is not 200 worth asking again (409, 429 and 5xx are transient by the API server's
 * own conventions; anything else is logged and retried too).
 * @see https://github.com/kubernetes/apimachinery/blob/v0.34.9/pkg/api/errors/errors.go#L273-L280 (NewResourceExpired: 410, reason Expired)
 */
function answer(code: number, body: string, retryAfter: string | undefined): Answer {
  if (code === 200) {
    try {
      const parsed: unknown = JSON.parse(body);
      if (typeof parsed === 'object' && parsed !== null) return { kind: 'ok', body: parsed };
    } catch {
      // reported below with what came
    }
    return { kind: 'retry', reason: `200 OK with a body that is not a JSON object: ${body.slice(0, 80)}` };
  }
  if (code === 404) return { kind: 'missing' };
  if (code === 410) return { kind: 'expired', message: messageOf(body) };
  if (code === 401 || code === 403) return { kind: 'denied', status: statusText(code), message: messageOf(body) };
  const seconds = Number(retryAfter);
  const transient = code === 409 || code === 429 || code >= 500;
  return {
    kind: 'retry',
    reason: `${statusText(code)}${transient ? '' : ' (unexpected)'}: ${messageOf(body)}`,
    ...(Number.isFinite(seconds) && seconds > 0 ? { retryAfterSeconds: seconds } : {}),
  };
}

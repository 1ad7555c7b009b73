/**
 * A stand-in for the Kubernetes API server, as far as the gate programs read it: HTTPS on
 * 127.0.0.1 (a random port) with a self-signed certificate, a bearer token, GET of one
 * NodePool, EC2NodeClass, NodeOverlay, Deployment or ValidatingAdmissionPolicyBinding and the
 * lists of NodeClaims and ValidatingAdmissionPolicies by label selector, answers and errors in
 * the API server's own JSON. Written from:
 * - the paths: https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-uris
 *   (`/apis/<group>/<version>/<plural>/<name>`, namespaced `/namespaces/<ns>/` before the plural);
 * - errors as `metav1.Status` (k8s.io/apimachinery pkg/api/errors/errors.go `NewNotFound`:
 *   `<plural>.<group> "<name>" not found`, reason NotFound, details {name, group, kind: plural};
 *   `NewForbidden`; `NewServiceUnavailable`; `NewTooManyRequests`, with Retry-After; `NewConflict`),
 *   and the authentication filter's 401 (`Unauthorized`, k8s.io/apiserver pkg/endpoints/handlers/responsewriters);
 * - the set-based label selector `key in (a,b)` and `key=value` (k8s.io/apimachinery pkg/labels/selector.go);
 *   any other form is answered 400 here, so a test fails if the gate sends one;
 * - lists: `{apiVersion, kind: <Kind>List, metadata: {resourceVersion}, items: [...]}`, items `[]` when none;
 * - chunked lists (`limit`, `continue`) as the etcd3 store serves them (k8s.io/apiserver v0.34.9
 *   pkg/storage/etcd3/store.go `GetList` l. 753-902): objects in key order (by name), the selector
 *   applied while a page fills up to `limit`, `metadata.continue` set when a further key remains
 *   (so a page may be short, even empty, and still have a next one); every page of one list at the
 *   resource version of its first page (types.go l. 384-390: "a consistent snapshot"); a `continue`
 *   token that has expired answered `410` with reason `Expired` and the message of
 *   `handleCompactedErrorForPaging` (errors.go l. 52-89). {@link expireContinueTokensAfter} expires every
 *   token issued so far (as an etcd compaction does); {@link ignoreLimit} makes the stand-in answer
 *   every list whole, as k8s.io/apimachinery v0.34.9 pkg/apis/meta/v1/types.go l. 380-381 allows
 *   ("Servers may choose not to support the limit argument").
 *
 * Upstream: MODELS.kubernetes (test/support/upstream.ts names the release; its test fails once the project moves past it).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { SimObject } from './karpenter';

/** Plural, group and kind of each resource the stand-in serves. */
const RESOURCES = {
  NodePool: { plural: 'nodepools', group: 'karpenter.sh', path: /^\/apis\/karpenter\.sh\/v1\/nodepools\/([^/]+)$/ },
  EC2NodeClass: { plural: 'ec2nodeclasses', group: 'karpenter.k8s.aws', path: /^\/apis\/karpenter\.k8s\.aws\/v1\/ec2nodeclasses\/([^/]+)$/ },
  NodeOverlay: { plural: 'nodeoverlays', group: 'karpenter.sh', path: /^\/apis\/karpenter\.sh\/v1alpha1\/nodeoverlays\/([^/]+)$/ },
  Deployment: { plural: 'deployments', group: 'apps', path: /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/deployments\/([^/]+)$/ },
  ValidatingAdmissionPolicyBinding: {
    plural: 'validatingadmissionpolicybindings', group: 'admissionregistration.k8s.io',
    path: /^\/apis\/admissionregistration\.k8s\.io\/v1\/validatingadmissionpolicybindings\/([^/]+)$/,
  },
} as const;
/** The lists the stand-in serves, by path: their kind and the apiVersion of their list. */
const LISTS = [
  { path: /^\/apis\/karpenter\.sh\/v1\/nodeclaims$/, kind: 'NodeClaim', apiVersion: 'karpenter.sh/v1' },
  { path: /^\/apis\/admissionregistration\.k8s\.io\/v1\/validatingadmissionpolicies$/, kind: 'ValidatingAdmissionPolicy', apiVersion: 'admissionregistration.k8s.io/v1' },
] as const;

/** Reason of a `metav1.Status` per code (k8s.io/apimachinery pkg/apis/meta/v1/types.go StatusReason). */
const REASONS: Record<number, string> = {
  400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed',
  409: 'Conflict', 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable',
};

/** A self-signed certificate for 127.0.0.1, made once per test file (EC: quick to make). */
let certificate: Promise<{ cert: string; key: string }> | undefined;
function certificateFor127(): Promise<{ cert: string; key: string }> {
  certificate ??= generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [{ name: 'basicConstraints', cA: true }, { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  }).then((pems) => ({ cert: pems.cert, key: pems.private }));
  return certificate;
}

/** One request the stand-in answered. */
export interface SeenRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly url: string;
  readonly status: number;
}

/** The API server stand-in; {@link KubeApiStandIn.start} it, {@link KubeApiStandIn.close} it. */
export class KubeApiStandIn {
  /** The ServiceAccount folder the gate reads (`GATE_SERVICEACCOUNT_DIR`): `token` and `ca.crt`. */
  public readonly serviceAccountDir: string;
  public readonly requests: SeenRequest[] = [];
  private readonly objects = new Map<string, SimObject>();
  private readonly scripted: { match: RegExp; statuses: number[] }[] = [];
  private token = 'token-1';
  /** The objects of each list begun, as JSON by name, at its first page: what its continue tokens read. */
  private readonly snapshots = new Map<number, readonly { readonly labels: Record<string, string>; readonly json: string }[]>();
  private lists = 0;
  private wholeLists = false;
  /** Pages to serve before every continue token issued so far expires. @default - none expires */
  private expireAfter?: number;
  /** The JSON of the objects stored with {@link putFixed}. */
  private readonly fixed = new WeakMap<SimObject, string>();

  private constructor(private readonly server: Server, caPem: string) {
    this.serviceAccountDir = mkdtempSync(join(tmpdir(), 'kg-gate-sa-'));
    writeFileSync(join(this.serviceAccountDir, 'ca.crt'), caPem);
    this.rotateToken('token-1');
  }

  /** A stand-in listening on 127.0.0.1, on a port of its own. */
  public static async start(): Promise<KubeApiStandIn> {
    const { cert, key } = await certificateFor127();
    const server = createServer({ cert, key, keepAliveTimeout: 60_000 });
    const api = new KubeApiStandIn(server, cert);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => api.serve(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return api;
  }

  /** The environment of a pod in this cluster: the service's host and port, and the ServiceAccount folder. */
  public env(): Record<string, string> {
    return {
      KUBERNETES_SERVICE_HOST: '127.0.0.1',
      KUBERNETES_SERVICE_PORT: String((this.server.address() as AddressInfo).port),
      GATE_SERVICEACCOUNT_DIR: this.serviceAccountDir,
    };
  }

  /** A new projected token: the file changes, and the old token is no longer accepted. */
  public rotateToken(token: string): void {
    this.token = token;
    writeFileSync(join(this.serviceAccountDir, 'token'), `${token}\n`);
  }

  /** Writes the token file without the server accepting it (a token of another cluster). */
  public writeWrongToken(): void {
    writeFileSync(join(this.serviceAccountDir, 'token'), 'not-the-token');
  }

  /** Stores an object (the same object: later changes to it are served). */
  public put(...objects: SimObject[]): void {
    for (const o of objects) this.objects.set(this.key(o.kind, o.metadata.name, o.metadata.namespace), o);
  }

  /** Stores objects that do not change after: each is serialized once, not on every list (thousands of NodeClaims). */
  public putFixed(...objects: SimObject[]): void {
    for (const o of objects) this.fixed.set(o, JSON.stringify(o));
    this.put(...objects);
  }

  /** Removes an object: it is gone (404). */
  public remove(kind: keyof typeof RESOURCES | (typeof LISTS)[number]['kind'], name: string, namespace?: string): void {
    this.objects.delete(this.key(kind, name, namespace));
  }

  /** After the next `pages` pages, every continue token issued so far expires, once: its page is answered 410 (an etcd compaction). */
  public expireContinueTokensAfter(pages: number): void {
    this.expireAfter = pages;
  }

  /** Lists are answered whole from now on, whatever their `limit` (a server that does not support it). */
  public ignoreLimit(): void {
    this.wholeLists = true;
  }

  /** The next requests whose path and query match answer these codes, in order, instead of their answer (200: their answer). */
  public script(match: RegExp, ...statuses: number[]): void {
    this.scripted.push({ match, statuses });
  }

  public async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.serviceAccountDir, { recursive: true, force: true });
  }

  private key(kind: string, name: string, namespace?: string): string {
    return `${kind}/${namespace ?? ''}/${name}`;
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      this.requests.push({ method: req.method ?? '', url: req.url ?? '', status });
      res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const fail = (code: number, message: string, details?: Record<string, string>) =>
      send(code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: REASONS[code], ...(details ? { details } : {}), code }, code === 429 ? { 'Retry-After': '1' } : {});
    if (req.headers.authorization !== `Bearer ${this.token}`) return fail(401, 'Unauthorized');
    if (req.method !== 'GET') return fail(405, `the server does not allow this method on the requested resource`);
    const script = this.scripted.find((s) => s.match.test(req.url ?? '') && s.statuses.length);
    const code = script?.statuses.shift() ?? 200;
    if (code !== 200) {
      const messages: Record<number, string> = {
        403: `is forbidden: User "system:serviceaccount:karpenter:karpenter-gitops-drift-gate" cannot get this resource`,
        409: 'the object has been modified; please apply your changes to the latest version and try again',
        429: 'too many requests, please try again later',
        500: 'an error on the server ("etcdserver: request timed out") has prevented the request from succeeding',
        503: 'the server is currently unable to handle the request',
      };
      return fail(code, messages[code] ?? `scripted ${code}`);
    }
    for (const [kind, r] of Object.entries(RESOURCES)) {
      const m = r.path.exec(url.pathname);
      if (!m) continue;
      const [namespace, name] = kind === 'Deployment' ? [decodeURIComponent(m[1]), decodeURIComponent(m[2])] : [undefined, decodeURIComponent(m[1])];
      const found = this.objects.get(this.key(kind, name, namespace));
      return found ? send(200, found) : fail(404, `${r.plural}.${r.group} "${name}" not found`, { name, group: r.group, kind: r.plural });
    }
    const list = LISTS.find((l) => l.path.test(url.pathname));
    if (list) {
      const selected = selector(url.searchParams.get('labelSelector') ?? '');
      if (!selected) return fail(400, `unable to parse requirement: ${url.searchParams.get('labelSelector')}`);
      const page = this.page(list.kind, url.searchParams.get('continue') ?? undefined, Number(url.searchParams.get('limit') ?? 0), selected);
      if ('expired' in page) return fail(410, page.expired);
      return sendJson(res, this.requests, req, `{"apiVersion":"${list.apiVersion}","kind":"${list.kind}List","metadata":${JSON.stringify(page.metadata)},"items":[${page.items.join(',')}]}`);
    }
    return fail(404, 'the server could not find the requested resource');
  }

  /**
   * One page of the objects of `kind`: from the continue token's key (or the first) at its list's
   * snapshot, the selected ones up to `limit` (0: all), and the token of the next key if one remains.
   */
  private page(kind: string, token: string | undefined, limit: number, selected: (labels: Record<string, string>) => boolean): { metadata: Record<string, string>; items: string[] } | { expired: string } {
    let list: number;
    let start = 0;
    if (token === undefined) {
      list = ++this.lists;
      this.snapshots.set(list, [...this.objects.values()].filter((o) => o.kind === kind).sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))
        .map((o) => ({ labels: { ...o.metadata.labels }, json: this.fixed.get(o) ?? JSON.stringify(o) })));
    } else {
      const decoded = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { list: number; start: number };
      if (!this.snapshots.has(decoded.list)) {
        return { expired: 'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.' };
      }
      ({ list, start } = decoded);
    }
    const all = this.snapshots.get(list)!;
    const whole = this.wholeLists || limit <= 0;
    const items: string[] = [];
    let next = start;
    for (; next < all.length; next++) {
      if (!whole && items.length >= limit) break;
      if (selected(all[next].labels)) items.push(all[next].json);
    }
    const more = next < all.length;
    if (this.expireAfter !== undefined && --this.expireAfter === 0) {
      this.expireAfter = undefined;
      this.snapshots.clear();
    }
    return { metadata: { resourceVersion: String(list), ...(more ? { continue: Buffer.from(JSON.stringify({ list, start: next })).toString('base64') } : {}) }, items };
  }
}

/** Sends a JSON text already serialized (a list of thousands of objects is joined, not stringified again). */
function sendJson(res: ServerResponse, requests: SeenRequest[], req: IncomingMessage, text: string): void {
  requests.push({ method: req.method ?? '', url: req.url ?? '', status: 200 });
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(text);
}

/** A label selector of one requirement, `key in (a,b)` or `key=value`; undefined for any other form. */
function selector(text: string): ((labels: Record<string, string>) => boolean) | undefined {
  const set = /^\s*([A-Za-z0-9./_-]+)\s+in\s+\(\s*([^()]*)\)\s*$/.exec(text);
  if (set) {
    const values = set[2].split(',').map((v) => v.trim());
    return (labels) => set[1] in labels && values.includes(labels[set[1]]);
  }
  const equal = /^\s*([A-Za-z0-9./_-]+)\s*==?\s*([A-Za-z0-9._-]*)\s*$/.exec(text);
  if (equal) return (labels) => labels[equal[1]] === equal[2];
  return undefined;
}

import { Document, isMap, isScalar, parseAllDocuments, visit } from 'yaml';
import { clusterOfPath, instanceOfPath } from '../output/layout';

/** A plain map read from YAML. */
export type Body = Record<string, unknown>;

/** A generated file that does not parse as what the generator writes (a hand edit or a bad merge on the base branch). */
export class TreeError extends Error {}

/**
 * The fleet: resources that belong to no one cluster (`argocd/bootstrap.yaml`,
 * `argocd/project.yaml`, `argocd/argocd-cm-patch.yaml`).
 */
export const FLEET = '';

/**
 * A resource of a generated tree: a Kubernetes object, or a chart values file.
 *
 * Its identity is its cluster, kind, namespace and name, never its file: NodePools
 * and EC2NodeClasses are cluster-scoped, so equal pool names in two clusters are two
 * resources, and a pool whose file moves (`nodepools/<pool>.yaml` to
 * `nodepools/<team>/<pool>.yaml`) is the same resource.
 */
export interface Resource {
  /** `cluster`, `kind`, `namespace` and `name`, joined: unique in a tree. */
  readonly key: string;
  /** The cluster it belongs to (see {@link clusterOf}); {@link FLEET} for none. */
  readonly cluster: string;
  /** The object's kind; `HelmValues` for a chart values file. */
  readonly kind: string;
  /** Empty for a cluster-scoped object. */
  readonly namespace: string;
  /** The object's name; a values file's path. */
  readonly name: string;
  /** The file it is in, relative to the output root. */
  readonly file: string;
  readonly body: Body;
}

/**
 * The generated files of one side of a review (the git base, or a fresh synth),
 * read into resources only when asked: a pull request changes few files, and
 * parsing YAML is most of what a review of a large fleet would otherwise cost.
 */
export class GeneratedTree {
  private readonly parsed = new Map<string, readonly Resource[]>();

  /**
   * @param files path (relative to the output root) to text
   * @param where what the files are, for errors (`origin/main`, `the working tree`)
   * @param documents the documents a synth rendered into `files`, by path: read from here, a
   *   file is not parsed back from the text that was just written (test/review/tree.test.ts holds
   *   that both give the same resources). @default - every file is parsed from its text
   */
  public constructor(
    public readonly files: ReadonlyMap<string, string>,
    public readonly where: string,
    private readonly documents: ReadonlyMap<string, readonly unknown[]> = new Map(),
  ) {}

  /** The resources of one file, in document order; none for a file that is not YAML or not in the tree. */
  public resourcesIn(file: string): readonly Resource[] {
    let resources = this.parsed.get(file);
    if (!resources) {
      const text = this.files.get(file);
      const docs = this.documents.get(file);
      resources = text === undefined || !file.endsWith('.yaml') ? [] : read(file, docs ? bodiesOf(file, docs, this.where) : documentsOf(file, text, this.where), this.where);
      this.parsed.set(file, resources);
    }
    return resources;
  }

  /** Every cluster that has a `dist/<cluster>/` folder. */
  public clusters(): Set<string> {
    const out = new Set<string>();
    for (const file of this.files.keys()) {
      const cluster = clusterOfPath(file);
      if (cluster !== undefined) out.add(cluster);
    }
    return out;
  }
}


/**
 * The cluster a resource belongs to: the `dist/<cluster>/` folder it lives in;
 * under `argocd/`, the cluster whose `dist/<cluster>/` every source path of an
 * Application points into (the root Application `argocd/<cluster>.yaml`);
 * otherwise the {@link FLEET}.
 */
export function clusterOf(file: string, body: Body): string {
  const folder = clusterOfPath(file);
  if (folder !== undefined) return folder;
  if (body.kind !== 'Application') return FLEET;
  const clusters = new Set(sourcePaths(body).map((s) => clusterOfPath(`${s.path}/`) ?? FLEET));
  return clusters.size === 1 ? [...clusters][0] : FLEET;
}

/** One git path an Application syncs. */
export interface SourcePath {
  readonly path: string;
  /** `directory.recurse`: the folders below it too. */
  readonly recurse: boolean;
  /** `directory.include`: only the files whose path below `path` matches this glob. @default - every file */
  readonly include?: string;
  /** `directory.exclude`: not the files whose path below `path` matches this glob. @default - none left out */
  readonly exclude?: string;
}

/**
 * The git folders an Application syncs (`spec.source.path`, `spec.sources[].path`).
 * Without `directory.recurse`, Argo CD reads only the files directly in a folder; with
 * `directory.include` or `directory.exclude`, only the files whose path relative to the
 * folder the include glob matches and the exclude glob does not (the bootstrap syncs only
 * the roots, the AppProject and the Helm repository of `argocd/`, not itself or the
 * `argocd-cm` patch beside them).
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/directory/
 * @see https://github.com/argoproj/argo-cd/blob/v3.1.0/reposerver/repository/repository.go (findManifests: glob.Match on the path relative to the source path)
 */
export function sourcePaths(app: Body): SourcePath[] {
  const spec = (app.spec ?? {}) as { source?: Body; sources?: Body[] };
  return [spec.source, ...(spec.sources ?? [])].flatMap((s) => {
    if (!s || typeof s.path !== 'string') return [];
    const directory = (s.directory ?? {}) as { recurse?: unknown; include?: unknown; exclude?: unknown };
    const glob = (g: unknown) => (typeof g === 'string' && g !== '' ? g : undefined);
    const [include, exclude] = [glob(directory.include), glob(directory.exclude)];
    return [{
      path: s.path.replace(/^\.\/|\/+$/g, ''), recurse: directory.recurse === true,
      ...(include === undefined ? {} : { include }), ...(exclude === undefined ? {} : { exclude }),
    }];
  });
}

/**
 * Which owners' source paths take in a file, looked up by the file's folder and its
 * parents (for recursive paths): a migration moves thousands of files past thousands
 * of Applications.
 */
export class FolderIndex<T> {
  private readonly exact = new Map<string, Entry<T>[]>();
  private readonly below = new Map<string, Entry<T>[]>();

  public constructor(entries: readonly { readonly owner: T; readonly paths: readonly SourcePath[] }[]) {
    for (const { owner, paths } of entries) {
      for (const path of paths) {
        const entry = { owner, path, include: globRegExp(path.include), exclude: globRegExp(path.exclude) };
        push(this.exact, path.path, entry);
        if (path.recurse) push(this.below, path.path, entry);
      }
    }
  }

  /** The owners that sync a file, each once. */
  public ownersOf(file: string): T[] {
    let folder = file.slice(0, Math.max(0, file.lastIndexOf('/')));
    const out = new Set<T>();
    const add = (entries: readonly Entry<T>[] | undefined) => {
      for (const e of entries ?? []) {
        const relative = file.slice(e.path.path.length + 1);
        if ((!e.include || e.include.test(relative)) && !e.exclude?.test(relative)) out.add(e.owner);
      }
    };
    add(this.exact.get(folder));
    while (folder.includes('/')) {
      folder = folder.slice(0, folder.lastIndexOf('/'));
      add(this.below.get(folder));
    }
    return [...out];
  }
}

/** One source path of an owner, its globs compiled. */
interface Entry<T> {
  readonly owner: T;
  readonly path: SourcePath;
  readonly include?: RegExp;
  readonly exclude?: RegExp;
}

/**
 * A `directory.include`/`exclude` glob as Argo CD matches it (gobwas/glob without
 * separators): `*` any text, `/` included; `?` one character; `[...]` and `[!...]`
 * classes; `{a,b}` alternatives; `\` escapes the next character. A glob that does not
 * compile (an unclosed `{`) matches nothing, as in Argo CD.
 * @see https://github.com/gobwas/glob#syntax
 * @see https://github.com/argoproj/argo-cd/blob/v3.1.0/util/glob/glob.go
 */
function globRegExp(glob: string | undefined): RegExp | undefined {
  if (glob === undefined) return undefined;
  let out = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    const close = c === '[' ? glob.indexOf(']', i + 1) : -1;
    if (c === '\\' && i + 1 < glob.length) out += escape(glob[++i]);
    else if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '{') {
      braces++;
      out += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (c === ',' && braces > 0) out += '|';
    else if (close > i) {
      const body = glob.slice(i + 1, close).replace(/\\/g, '\\\\');
      out += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
      i = close;
    } else out += escape(c);
  }
  return braces > 0 ? /(?!)/ : new RegExp(`^${out}$`, 's');
}

function escape(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The label that marks the generator's smoke-test Deployments. */
const SMOKE_TEST_LABEL = ['app.kubernetes.io/name', 'karpenter-smoke-test'] as const;

/** Whether a resource is a pool's smoke-test Deployment. */
export function isSmokeTest(r: Resource): boolean {
  return r.kind === 'Deployment' && labelsOf(r.body)[SMOKE_TEST_LABEL[0]] === SMOKE_TEST_LABEL[1];
}

/** How a report names a resource: `NodePool web`, `smoke test web`, `chart values dist/prod/karpenter/values.yaml`. */
export function describe(r: Resource): string {
  const { kind, name } = nameOf(r);
  return `${kind} ${name}`;
}

/** The kind and name a report shows: a smoke-test Deployment is a `smoke test`, a values file `chart values`. */
export function nameOf(r: Resource): { readonly kind: string; readonly name: string } {
  if (isSmokeTest(r)) return { kind: 'smoke test', name: r.name };
  if (r.kind === 'HelmValues') return { kind: 'chart values', name: r.name };
  // Application names are unique in Argo CD's one namespace (they start with the cluster id): the namespace is noise.
  return { kind: r.kind, name: `${r.namespace && r.kind !== 'Application' ? `${r.namespace}/` : ''}${r.name}` };
}

/** `metadata.labels` of an object. */
export function labelsOf(body: Body): Record<string, string> {
  return ((body.metadata as { labels?: Record<string, string> } | undefined)?.labels) ?? {};
}

function read(file: string, docs: readonly Body[], where: string): Resource[] {
  // A YAML file of dist/ that is not a Kubernetes object is a chart values file, known by its path.
  if (docs.length === 1 && docs[0].kind === undefined && docs[0].apiVersion === undefined) {
    const cluster = clusterOfPath(file) ?? FLEET;
    return [{ key: resourceKey(cluster, 'HelmValues', '', file), cluster, kind: 'HelmValues', namespace: '', name: file, file, body: docs[0] }];
  }
  return docs.map((body, i) => {
    const meta = (body.metadata ?? {}) as { name?: unknown; namespace?: unknown };
    if (typeof body.kind !== 'string' || typeof meta.name !== 'string') {
      throw new TreeError(`${file} in ${where}: document ${i + 1} has no kind or metadata.name: fix or regenerate it there first`);
    }
    const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
    const cluster = clusterOf(file, body);
    // One Argo CD instance's bootstrap or AppProject (argocd/bootstrap.<instance>.yaml) lives in that instance's cluster: another's of the same name is another object.
    return { key: resourceKey(cluster, body.kind, namespace, meta.name, instanceOfPath(file)), cluster, kind: body.kind, namespace, name: meta.name, file, body };
  });
}

/** The key of a resource: `cluster`, `kind`, `namespace` and `name` (and an Argo CD instance's), joined. */
export function resourceKey(cluster: string, kind: string, namespace: string, name: string, instance?: string): string {
  return `${cluster}\0${kind}\0${namespace}\0${name}${instance === undefined ? '' : `\0${instance}`}`;
}

/**
 * The documents synth rendered, as a reader of their YAML would see them: plain JSON data
 * (a field left `undefined` is not written, so it is not there), each a map.
 */
function bodiesOf(file: string, docs: readonly unknown[], where: string): Body[] {
  return docs.flatMap((doc, i) => {
    if (doc === null || doc === undefined) return [];
    const body: unknown = JSON.parse(JSON.stringify(doc));
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new TreeError(`${file} in ${where}: document ${i + 1} is not a map: fix or regenerate it there first`);
    }
    return [body as Body];
  });
}

/**
 * The YAML documents of a generated file; a file that is not valid YAML, or not maps, is a
 * {@link TreeError} naming it. A file of plain `---`-separated documents is read document by
 * document, each text parsed once per process ({@link parsedDocuments}): both sides of a review,
 * and every cluster of a fleet, hold many documents that are the same text (a drift gate's
 * ServiceAccount and RBAC, a changed file's unchanged documents), and parsing is most of what a
 * review of a large change costs. Anything else (a directive, a document end marker, content on a
 * `---` line, a problem) is parsed whole, as before, so a problem is located in the file.
 */
function documentsOf(file: string, text: string, where: string): Body[] {
  const parts = plainDocuments(text);
  if (parts) {
    const out: Body[] = [];
    for (const part of parts) {
      const bodies = parsedDocuments(part);
      if (bodies === undefined) return wholeDocumentsOf(file, text, where);
      out.push(...bodies);
    }
    return out;
  }
  return wholeDocumentsOf(file, text, where);
}

/** Documents' text, by text: their bodies (deep-frozen: every reader shares them). Cleared past {@link MEMO_CHARS} characters. */
const parsedMemo = new Map<string, readonly Body[]>();
let memoChars = 0;
const MEMO_CHARS = 64 * 1024 * 1024;

/** The bodies of one document's text, or undefined when it is not valid YAML of maps (the caller then parses the file whole, for the located problem). */
function parsedDocuments(part: string): readonly Body[] | undefined {
  const known = parsedMemo.get(part);
  if (known) return known;
  const bodies: Body[] = [];
  for (const doc of parseAllDocuments(part, { uniqueKeys: false })) {
    if (doc.errors.length || duplicateKeys(doc)) return undefined;
    const body: unknown = doc.toJS();
    if (body === null && doc.contents === null) continue;
    if (!isMapBody(body)) return undefined;
    bodies.push(deepFreeze(body));
  }
  if (memoChars + part.length > MEMO_CHARS) {
    parsedMemo.clear();
    memoChars = 0;
  }
  parsedMemo.set(part, bodies);
  memoChars += part.length;
  return bodies;
}

/** The documents of a file that are separated by bare `---` lines and nothing else YAML puts between documents; undefined for any other file. */
function plainDocuments(text: string): string[] | undefined {
  // A directive (%YAML, %TAG), a document end marker, or content after a `---` marker changes how the next document reads: the whole file is parsed.
  if (/^(%|\.\.\.(\s|$)|---[ \t]*\S)/m.test(text)) return undefined;
  return text.split(/^---[ \t]*(?:\r?\n|$)/m);
}

/** Whether a parsed document is a map (what every generated document is). */
function isMapBody(value: unknown): value is Body {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Freezes a parsed body and everything in it. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** {@link documentsOf} of the whole file at once. */
function wholeDocumentsOf(file: string, text: string, where: string): Body[] {
  // yaml's own duplicate-key check compares each key with every one before it (quadratic: a
  // values file of 100,000 keys took minutes); duplicateKeys does it once per key.
  return parseAllDocuments(text, { uniqueKeys: false }).flatMap((doc, i) => {
    const error = doc.errors[0] ?? duplicateKeys(doc);
    if (error) {
      const at = error.linePos?.[0];
      const why = error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      throw new TreeError(`${file}${at ? `:${at.line}:${at.col}` : ''} in ${where} is not valid YAML (${why}): fix or regenerate it there first`);
    }
    const body: unknown = doc.toJS();
    // An empty document (a trailing `---`) holds nothing.
    if (body === null && doc.contents === null) return [];
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new TreeError(`${file} in ${where}: document ${i + 1} is not a map: fix or regenerate it there first`);
    }
    return [body as Body];
  });
}

/** The first key of a map of `doc` that an earlier key of the same map already has, as yaml would report it. */
function duplicateKeys(doc: Document): { readonly message: string; readonly linePos?: readonly { line: number; col: number }[] } | undefined {
  let found: string | undefined;
  visit(doc, {
    Map(_, map) {
      if (!isMap(map)) return undefined;
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (seen.has(key)) {
          found = `Map keys must be unique (${String(key)})`;
          return visit.BREAK;
        }
        seen.add(key);
      }
      return undefined;
    },
  });
  return found === undefined ? undefined : { message: found };
}

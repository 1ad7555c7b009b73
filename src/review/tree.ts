import { parseAllDocuments } from 'yaml';

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
   */
  public constructor(public readonly files: ReadonlyMap<string, string>, public readonly where: string) {}

  /** The resources of one file, in document order; none for a file that is not YAML or not in the tree. */
  public resourcesIn(file: string): readonly Resource[] {
    let resources = this.parsed.get(file);
    if (!resources) {
      const text = this.files.get(file);
      resources = text === undefined || !file.endsWith('.yaml') ? [] : read(file, text, this.where);
      this.parsed.set(file, resources);
    }
    return resources;
  }

  /** Every cluster that has a `dist/<cluster>/` folder. */
  public clusters(): Set<string> {
    const out = new Set<string>();
    for (const file of this.files.keys()) {
      const cluster = clusterFolder(file);
      if (cluster !== undefined) out.add(cluster);
    }
    return out;
  }
}

/** The cluster of a file under `dist/<cluster>/`; undefined elsewhere. */
export function clusterFolder(file: string): string | undefined {
  return /^dist\/([^/]+)\/./.exec(file)?.[1];
}

/**
 * The cluster a resource belongs to: the `dist/<cluster>/` folder it lives in;
 * under `argocd/`, the cluster whose `dist/<cluster>/` every source path of an
 * Application points into (the root Application `argocd/<cluster>.yaml`);
 * otherwise the {@link FLEET}.
 */
export function clusterOf(file: string, body: Body): string {
  const folder = clusterFolder(file);
  if (folder !== undefined) return folder;
  if (body.kind !== 'Application') return FLEET;
  const clusters = new Set(sourcePaths(body).map((s) => clusterFolder(`${s.path}/`) ?? FLEET));
  return clusters.size === 1 ? [...clusters][0] : FLEET;
}

/** One git path an Application syncs. */
export interface SourcePath {
  readonly path: string;
  /** `directory.recurse`: the folders below it too. */
  readonly recurse: boolean;
}

/**
 * The git folders an Application syncs (`spec.source.path`, `spec.sources[].path`).
 * Without `directory.recurse`, Argo CD reads only the files directly in a folder.
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/directory/
 */
export function sourcePaths(app: Body): SourcePath[] {
  const spec = (app.spec ?? {}) as { source?: Body; sources?: Body[] };
  return [spec.source, ...(spec.sources ?? [])].flatMap((s) => {
    if (!s || typeof s.path !== 'string') return [];
    const recurse = (s.directory as { recurse?: boolean } | undefined)?.recurse === true;
    return [{ path: s.path.replace(/^\.\/|\/+$/g, ''), recurse }];
  });
}

/** Whether an Application's source paths take in a file. */
export function syncs(paths: readonly SourcePath[], file: string): boolean {
  return new FolderIndex([{ owner: true, paths }]).ownersOf(file).length > 0;
}

/**
 * Which owners' source paths take in a file, looked up by the file's folder and its
 * parents (for recursive paths): a migration moves thousands of files past thousands
 * of Applications.
 */
export class FolderIndex<T> {
  private readonly exact = new Map<string, T[]>();
  private readonly below = new Map<string, T[]>();

  public constructor(entries: readonly { readonly owner: T; readonly paths: readonly SourcePath[] }[]) {
    for (const { owner, paths } of entries) {
      for (const p of paths) {
        push(this.exact, p.path, owner);
        if (p.recurse) push(this.below, p.path, owner);
      }
    }
  }

  /** The owners that sync a file, each once. */
  public ownersOf(file: string): T[] {
    let folder = file.slice(0, Math.max(0, file.lastIndexOf('/')));
    const out = new Set(this.exact.get(folder) ?? []);
    while (folder.includes('/')) {
      folder = folder.slice(0, folder.lastIndexOf('/'));
      for (const o of this.below.get(folder) ?? []) out.add(o);
    }
    return [...out];
  }
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

function read(file: string, text: string, where: string): Resource[] {
  const docs = documentsOf(file, text, where);
  // A YAML file of dist/ that is not a Kubernetes object is a chart values file, known by its path.
  if (docs.length === 1 && docs[0].kind === undefined && docs[0].apiVersion === undefined) {
    const cluster = clusterFolder(file) ?? FLEET;
    return [{ key: key(cluster, 'HelmValues', '', file), cluster, kind: 'HelmValues', namespace: '', name: file, file, body: docs[0] }];
  }
  return docs.map((body, i) => {
    const meta = (body.metadata ?? {}) as { name?: unknown; namespace?: unknown };
    if (typeof body.kind !== 'string' || typeof meta.name !== 'string') {
      throw new TreeError(`${file} in ${where}: document ${i + 1} has no kind or metadata.name: fix or regenerate it there first`);
    }
    const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
    const cluster = clusterOf(file, body);
    return { key: key(cluster, body.kind, namespace, meta.name), cluster, kind: body.kind, namespace, name: meta.name, file, body };
  });
}

function key(cluster: string, kind: string, namespace: string, name: string): string {
  return `${cluster}\0${kind}\0${namespace}\0${name}`;
}

/** The YAML documents of a generated file; a file that is not valid YAML, or not maps, is a {@link TreeError} naming it. */
function documentsOf(file: string, text: string, where: string): Body[] {
  return parseAllDocuments(text).flatMap((doc, i) => {
    const error = doc.errors[0];
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

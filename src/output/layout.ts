/**
 * Where every generated file lives, relative to the output root: the one owner of the
 * output's layout (contract section 4). The plan names its files with these, the Applications
 * point at these folders, the config refuses cluster ids that are files of `argocd/`, and the
 * review, `promote` and the guard read paths back with {@link clusterOfPath}; nothing else
 * spells a path of `dist/` or `argocd/`. Also the generator's own state folder beside them.
 */

/** The two top folders synth owns and replaces whole. */
export const OUTPUT_FOLDERS = { dist: 'dist', argocd: 'argocd' } as const;

/** The folders a synth owns and replaces whole, relative to the output root. */
export const OUTPUT_ROOTS = [OUTPUT_FOLDERS.dist, OUTPUT_FOLDERS.argocd] as const;

/** Files of `argocd/` beside the roots (no cluster may be called so: the config refuses it). */
export const ARGOCD_FILES = { bootstrap: 'bootstrap', project: 'project', healthPatch: 'argocd-cm-patch', helmRepository: 'helm-repository' } as const;

/** A file of `argocd/`, e.g. `argocd/bootstrap.yaml` or a cluster's root `argocd/<cluster>.yaml`. */
export function argocdFile(name: string): string {
  return `${OUTPUT_FOLDERS.argocd}/${name}.yaml`;
}

/** The files of `argocd/` each Argo CD instance has its own of, in a fleet of several (`gitops.argocd`). */
const INSTANCE_FILES = [ARGOCD_FILES.bootstrap, ARGOCD_FILES.project] as const;

/**
 * The name under `argocd/` of one Argo CD instance's bootstrap or AppProject: `bootstrap.<instance>`
 * in a fleet of several instances, `bootstrap` otherwise (`instance` undefined). The dot keeps it
 * apart from every cluster's root, `<cluster>.yaml`: a cluster id is a DNS label, without dots.
 */
export function instanceFile(file: (typeof INSTANCE_FILES)[number], instance?: string): string {
  return instance === undefined ? file : `${file}.${instance}`;
}

const INSTANCE_FILE = new RegExp(`^${OUTPUT_FOLDERS.argocd}/(?:${INSTANCE_FILES.join('|')})\\.([^/.]+)\\.yaml$`);

/**
 * The Argo CD instance whose own file this is (`argocd/bootstrap.<instance>.yaml`,
 * `argocd/project.<instance>.yaml`): its objects live in that instance's cluster, so two such files
 * may hold objects of one name. Undefined for every other path.
 */
export function instanceOfPath(path: string): string | undefined {
  return INSTANCE_FILE.exec(path)?.[1];
}

/** Fleet-wide files of `dist/`, outside every cluster's folder (so never synced to a cluster). */
export const FLEET_FILES = {
  /** The summary for people: the fleet at a glance, linking each cluster's page ({@link ClusterLayout.summary}). */
  summary: `${OUTPUT_FOLDERS.dist}/SUMMARY.md`,
  /** The summary as versioned data, which the review reads (docs/review.md); each cluster's pools are in its own ({@link ClusterLayout.summaryData}). */
  summaryData: `${OUTPUT_FOLDERS.dist}/summary.json`,
} as const;

/** The folders and files of one cluster, relative to the output root. */
export class ClusterLayout {
  public constructor(
    /** The cluster's id: its folder's name under `dist/`. */
    public readonly cluster: string,
  ) {}

  /** `dist/<cluster>`: what the cluster's Applications sync from. */
  public get dir(): string {
    return `${OUTPUT_FOLDERS.dist}/${this.cluster}`;
  }

  /**
   * `dist/<cluster>/SUMMARY.md`: the cluster's page for people (its pools, tenancy, window, stage,
   * Argo CD waves and cost ceilings), linked from `dist/SUMMARY.md`. Argo CD never reads it: no
   * Application's path is the cluster's folder itself, and a directory source reads only the
   * `*.yaml`, `*.yml`, `*.json` and `*.jsonnet` files of its own folder, not of the folders above
   * or below it unless `recurse`.
   * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/reposerver/repository/repository.go#L1965 (manifestFile)
   * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/reposerver/repository/repository.go#L2118 (getPotentiallyValidManifestFile: a name manifestFile does not match is skipped)
   * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/reposerver/repository/repository.go#L2195-L2197 (getPotentiallyValidManifests: a folder below the path is skipped unless recurse)
   */
  public get summary(): string {
    return `${this.dir}/SUMMARY.md`;
  }

  /**
   * `dist/<cluster>/summary.json`: the cluster's pools as data (model/summary-data.ts), which the
   * review reads for the clusters a change touches. Never synced, like {@link summary}: a `.json`
   * file is a manifest to a directory source only in the Application's own path, and no path is
   * the cluster's folder itself.
   */
  public get summaryData(): string {
    return `${this.dir}/summary.json`;
  }

  /** `argocd/<cluster>.yaml`: the cluster's root Application. */
  public get root(): string {
    return argocdFile(this.cluster);
  }

  /** `dist/<cluster>/apps`: the child Applications the root syncs. */
  public get appsDir(): string {
    return `${this.dir}/apps`;
  }

  /** `dist/<cluster>/apps/<file>.yaml`. */
  public app(file: string): string {
    return `${this.appsDir}/${file}.yaml`;
  }

  /**
   * `dist/<cluster>/apps/project.yaml`: the pool project with its sync windows, created by the
   * root from the cluster's own ref (no team's pools Application file is `project`: theirs are `pools-<team>`).
   */
  public get poolProject(): string {
    return this.app('project');
  }

  /** `dist/<cluster>/karpenter/values.yaml`: the controller chart's values. */
  public get controllerValues(): string {
    return `${this.dir}/karpenter/values.yaml`;
  }

  /** `dist/<cluster>/nodepools`: every team's folder (the single pools Application of earlier releases synced it whole). */
  public get poolsRoot(): string {
    return `${this.dir}/nodepools`;
  }

  /** `dist/<cluster>/nodepools/<team>`: a team's pools Application syncs it. */
  public poolsDir(team: string): string {
    return `${this.poolsRoot}/${team}`;
  }

  /** `dist/<cluster>/nodepools/<team>/<pool>.yaml`: a pool's NodePool and EC2NodeClass. */
  public pool(team: string, pool: string): string {
    return `${this.poolsDir(team)}/${pool}.yaml`;
  }

  /** `dist/<cluster>/nodepools/<team>/_buffer.yaml`: a team's CapacityBuffer. */
  public buffer(team: string): string {
    return `${this.poolsDir(team)}/_buffer.yaml`;
  }

  /** `dist/<cluster>/nodepools/<team>/_guard-gate.yaml`: the PreSync hook that holds a guarded team's pools until their policy is live. */
  public guardGate(team: string): string {
    return `${this.poolsDir(team)}/_guard-gate.yaml`;
  }

  /** `dist/<cluster>/overlays`. */
  public get overlaysDir(): string {
    return `${this.dir}/overlays`;
  }

  /** `dist/<cluster>/overlays/<name>.yaml`. */
  public overlay(name: string): string {
    return `${this.overlaysDir}/${name}.yaml`;
  }

  /** `dist/<cluster>/policies`. */
  public get policiesDir(): string {
    return `${this.dir}/policies`;
  }

  /** `dist/<cluster>/policies/team-pools.yaml`: the tenancy policies and their bindings. */
  public get tenancyPolicy(): string {
    return `${this.policiesDir}/team-pools.yaml`;
  }

  /** `dist/<cluster>/policies/guard-gate.yaml`: the ServiceAccount and read-only RBAC the cluster's guard gates run with. */
  public get guardGateRbac(): string {
    return `${this.policiesDir}/guard-gate.yaml`;
  }

  /** `dist/<cluster>/drift-gate`. */
  public get driftGateDir(): string {
    return `${this.dir}/drift-gate`;
  }

  /** `dist/<cluster>/drift-gate/gate.yaml`. */
  public get driftGate(): string {
    return `${this.driftGateDir}/gate.yaml`;
  }

  /** `dist/<cluster>/drift-gate/program.yaml`: the gate's program, a ConfigMap that changes only with the tool. */
  public get driftGateProgram(): string {
    return `${this.driftGateDir}/program.yaml`;
  }

  /** `dist/<cluster>/smoke-tests`. */
  public get smokeTestsDir(): string {
    return `${this.dir}/smoke-tests`;
  }

  /** `dist/<cluster>/smoke-tests/<pool>.yaml`. */
  public smokeTest(pool: string): string {
    return `${this.smokeTestsDir}/${pool}.yaml`;
  }

  /** `dist/<cluster>/smoke-tests/_namespace.yaml`. */
  public get smokeTestNamespace(): string {
    return `${this.smokeTestsDir}/_namespace.yaml`;
  }

  /** Every path that is the cluster's: its folder and its root (what `promote` compares between two commits). */
  public get owned(): readonly string[] {
    return [this.dir, this.root];
  }
}

/** The layout of a cluster's files. */
export function clusterLayout(cluster: { readonly id: string } | string): ClusterLayout {
  return new ClusterLayout(typeof cluster === 'string' ? cluster : cluster.id);
}

/**
 * A relative link from file `from` to path `to`, both relative to the output root and
 * `/`-separated: `../config/platform.yaml` from `dist/SUMMARY.md`, `prod/SUMMARY.md` from
 * `dist/SUMMARY.md` to `dist/prod/SUMMARY.md`. `to` may climb out of the root (`../platforms/x.yaml`).
 */
export function relativeLink(from: string, to: string): string {
  const [dir, target] = [from.split('/').slice(0, -1), to.split('/')];
  let shared = 0;
  while (shared < dir.length && shared < target.length - 1 && dir[shared] === target[shared]) shared++;
  return [...dir.slice(shared).map(() => '..'), ...target.slice(shared)].join('/');
}

const CLUSTER_FILE = new RegExp(`^${OUTPUT_FOLDERS.dist}/([^/]+)/.`);

/** The cluster of a file under `dist/<cluster>/` (its `SUMMARY.md` too); undefined elsewhere (`argocd/`, `dist/SUMMARY.md`). */
export function clusterOfPath(path: string): string | undefined {
  return CLUSTER_FILE.exec(path)?.[1];
}

/** The file (under `dist/<cluster>/apps/`) of the single pools Application of earlier releases. */
export const LEGACY_POOLS_APP_FILE = 'karpenter-nodepools';

const LEGACY_POOLS_APP = new RegExp(`^${OUTPUT_FOLDERS.dist}/([^/]+)/apps/${LEGACY_POOLS_APP_FILE}\\.yaml$`);

/** The cluster whose single pools Application of earlier releases this file is (`dist/<cluster>/apps/karpenter-nodepools.yaml`). */
export function legacyPoolsAppCluster(path: string): string | undefined {
  return LEGACY_POOLS_APP.exec(path)?.[1];
}

/**
 * The generator's own folder next to the outputs: the lock of the run in progress and the
 * staging area of a change being swapped in. Listed in `.gitignore`.
 */
export const STATE_DIR = '.karpenter-gitops';

/** Whether a path relative to the output root lies under one of {@link OUTPUT_ROOTS}, without `..` or empty segments. */
export function isOutputPath(path: string): boolean {
  const segments = path.split('/');
  return (OUTPUT_ROOTS as readonly string[]).includes(segments[0])
    && segments.length >= 2
    && segments.every((s) => s !== '' && s !== '.' && s !== '..');
}

/** The staging area of an `npm run upgrade` in progress, inside {@link STATE_DIR}. */
export const UPGRADE_TXN_DIR = 'upgrade-txn';

/** The staging area of an `npm run init` in progress (its change of `config/`), inside {@link STATE_DIR}. */
export const INIT_TXN_DIR = 'init-txn';

const ARGOCD_FLEET_NAMES = new Set<string>(Object.values(ARGOCD_FILES));
const ROOT_FILE = new RegExp(`^${OUTPUT_FOLDERS.argocd}/([^/.]+)\\.yaml$`);

/**
 * The cluster whose file this is: its folder's files ({@link clusterOfPath}) and its root
 * Application `argocd/<cluster>.yaml`; undefined for the fleet's files (`dist/SUMMARY.md`,
 * `dist/summary.json`, `argocd/bootstrap.yaml` and the other files of {@link ARGOCD_FILES}, an
 * instance's own files). What a shard (model/shard.ts) or a review's scope splits the output by.
 */
export function ownerOfPath(path: string): string | undefined {
  const folder = clusterOfPath(path);
  if (folder !== undefined) return folder;
  const root = ROOT_FILE.exec(path)?.[1];
  return root !== undefined && !ARGOCD_FLEET_NAMES.has(root) ? root : undefined;
}

const BOOTSTRAP_FILE = new RegExp(`^${OUTPUT_FOLDERS.argocd}/${ARGOCD_FILES.bootstrap}(?:\\.[^/.]+)?\\.yaml$`);

/** Whether a file is a bootstrap Application (`argocd/bootstrap.yaml`, an instance's `argocd/bootstrap.<instance>.yaml`): it syncs every cluster's root. */
export function isBootstrapPath(path: string): boolean {
  return BOOTSTRAP_FILE.test(path);
}

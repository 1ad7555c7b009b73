/**
 * A model of what Helm does with objects that already exist, written from helm v3.21.4:
 * - `helm upgrade --install NAME` runs an install when the release has no history
 *   (`cmd/helm/upgrade.go` L120-L130), else an upgrade;
 * - an install checks every rendered object that exists (`pkg/action/install.go` L352-L360), an
 *   upgrade only those not in the release's stored manifest (`pkg/action/upgrade.go` L333-L351),
 *   with `existingResourceConflict`/`checkOwnership` (`pkg/action/validate.go` L65-L124): the label
 *   `app.kubernetes.io/managed-by: Helm` and both `meta.helm.sh/release-*` annotations equal, or
 *   "invalid ownership metadata"; objects that pass are adopted (stamped with the release,
 *   `setMetadataVisitor`, L137-L172);
 * - `helm uninstall` deletes what the stored manifest lists (`pkg/action/uninstall.go` L211-L246);
 * - a release is its secrets, labelled `owner=helm`, `name=<release>` (`pkg/storage/driver/secrets.go` L216-L236).
 * `--take-ownership` (which skips the check) is not modelled: nothing can stop it.
 * Also a model of Argo CD's client-side apply of an object Helm created: annotations that are
 * neither in the manifest nor in the last-applied configuration are kept (apimachinery
 * `pkg/util/strategicpatch/patch.go` L2123-L2142), and of `kubectl annotate KEY-` and `kubectl delete secret -l`.
 *
 * Upstream: MODELS.helm (helm v3.21.4; v4.1.4 keeps the check, `pkg/action/validate.go` L106-L128).
 */

/** An object of the cluster: kind, where, and its ownership metadata. */
export interface Owned {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  /** @default - cluster-scoped */
  readonly namespace?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** A cluster as Helm sees it: objects, and the releases' stored manifests (their secrets). */
export interface HelmCluster {
  readonly objects: Owned[];
  /** `<namespace>/<release>` → the keys of the objects its manifest lists. */
  readonly releases: Map<string, string[]>;
}

const key = (o: { kind: string; namespace?: string; name: string }) => `${o.kind}/${o.namespace ?? ''}/${o.name}`;

/** `helm install` of `rendered` as release `name` in `namespace` into an empty cluster: the objects stamped, the release stored. */
export function helmInstalled(rendered: readonly Omit<Owned, 'annotations'>[], name: string, namespace: string): HelmCluster {
  const objects = rendered.map((o) => ({ ...o, labels: { ...o.labels }, annotations: { 'meta.helm.sh/release-name': name, 'meta.helm.sh/release-namespace': namespace } }));
  return { objects, releases: new Map([[`${namespace}/${name}`, objects.map(key)]]) };
}

/** Argo CD's first client-side apply of `desired` (none has a last-applied yet): labels and annotations merged, none removed. */
export function argoApply(cluster: HelmCluster, desired: readonly Omit<Owned, 'annotations'>[]): void {
  for (const d of desired) {
    const live = cluster.objects.find((o) => key(o) === key(d));
    if (live) Object.assign(live.labels, d.labels);
    else cluster.objects.push({ ...d, labels: { ...d.labels }, annotations: {} });
  }
}

/** The result of `helm upgrade --install`. */
export type HelmOutcome = { readonly adopted: readonly string[] } | { readonly refused: string };

/** `helm upgrade --install NAME -n NAMESPACE` rendering `rendered`. */
export function helmUpgradeInstall(cluster: HelmCluster, name: string, namespace: string, rendered: readonly Omit<Owned, 'annotations'>[]): HelmOutcome {
  const stored = cluster.releases.get(`${namespace}/${name}`);
  const checked = rendered.filter((r) => !(stored ?? []).includes(key(r)));
  const errors: string[] = [];
  for (const r of checked) {
    const live = cluster.objects.find((o) => key(o) === key(r));
    if (!live) continue;
    const wrong = [
      live.labels['app.kubernetes.io/managed-by'] !== 'Helm' ? 'label validation error' : '',
      live.annotations['meta.helm.sh/release-name'] !== name ? 'annotation validation error: meta.helm.sh/release-name' : '',
      live.annotations['meta.helm.sh/release-namespace'] !== namespace ? 'annotation validation error: meta.helm.sh/release-namespace' : '',
    ].filter(Boolean);
    if (wrong.length) errors.push(`${r.kind} "${r.name}" exists and cannot be imported into the current release: invalid ownership metadata; ${wrong.join('; ')}`);
  }
  if (errors.length) return { refused: errors[0] };
  const adopted = rendered.filter((r) => cluster.objects.some((o) => key(o) === key(r))).map(key);
  cluster.releases.set(`${namespace}/${name}`, rendered.map(key));
  return { adopted };
}

/** kubectl's resource names (plural, optional group) of the chart's kinds. */
const KINDS: Readonly<Record<string, string>> = {
  deployments: 'Deployment', services: 'Service', serviceaccounts: 'ServiceAccount', poddisruptionbudgets: 'PodDisruptionBudget',
  roles: 'Role', rolebindings: 'RoleBinding', clusterroles: 'ClusterRole', clusterrolebindings: 'ClusterRoleBinding', servicemonitors: 'ServiceMonitor',
};
const CLUSTER_SCOPED = new Set(['ClusterRole', 'ClusterRoleBinding']);

/** Runs one printed `kubectl annotate …` or `kubectl delete secret …` line against the cluster. */
export function kubectl(cluster: HelmCluster, line: string): void {
  const words = line.replace(/#.*$/, '').trim().split(/\s+/);
  if (words[0] !== 'kubectl') throw new Error(`not a kubectl command: ${line}`);
  const flag = (name: string) => { const i = words.indexOf(name); return i < 0 ? undefined : words[i + 1]; };
  const namespace = flag('-n');
  const selector = Object.fromEntries((flag('-l') ?? '').split(',').filter(Boolean).map((kv) => kv.split('=')));
  const positional = words.slice(2).filter((w, i, all) => !w.startsWith('-') && !['-n', '-l'].includes(all[i - 1]));
  const matches = (labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);
  if (words[1] === 'delete' && positional[0] === 'secret') {
    for (const release of [...cluster.releases.keys()]) {
      const [ns, name] = release.split('/');
      if (ns === namespace && matches({ owner: 'helm', name })) cluster.releases.delete(release);
    }
    return;
  }
  if (words[1] !== 'annotate') throw new Error(`not modelled: ${line}`);
  const kinds = positional[0].split(',').map((r) => {
    const kind = KINDS[r.split('.')[0]];
    if (!kind) throw new Error(`kubectl: the server doesn't have a resource type "${r}"`);
    return kind;
  });
  const removals = positional.slice(1).filter((w) => w.endsWith('-')).map((w) => w.slice(0, -1));
  for (const o of cluster.objects) {
    if (!kinds.includes(o.kind) || !matches(o.labels)) continue;
    // kubectl ignores -n for cluster-scoped kinds.
    if (!CLUSTER_SCOPED.has(o.kind) && o.namespace !== (namespace ?? 'default')) continue;
    for (const k of removals) delete o.annotations[k];
  }
}

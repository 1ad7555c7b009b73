import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { parse } from 'yaml';
import { CHART_VERSION } from '../release/chart-values-keys.generated';
import { loadPlatform, MAX_TERRAFORM_BYTES } from '../config/load';
import { InputError, Problem } from '../input/problems';
import { clusterIdProblem } from '../config/schema';
import { readTerraformOutputs } from '../config/terraform';
import { REAL_FS } from '../output/fs-ops';
import { INIT_TXN_DIR } from '../output/layout';
import { stateFolder } from '../output/output-dir';
import { acquireLock } from '../output/lock';
import { OutputError } from '../output/output-error';
import { applyChange, ChangeScope, planChange, recover } from '../output/transaction';
import { kindOf } from '../output/tree';
import { configState, ConfigState } from './example';
import { firstFleet, FIRST_TEAM, GitopsBlock } from './fleet';

/** The folder `init` replaces, relative to the repository root. */
export const CONFIG_DIR = 'config';

/** The `gitops.repoURL` of the example karpenter-gitops ships, and of a fleet whose old config did not say one. */
export const EXAMPLE_REPO_URL = 'https://github.com/acme/platform-gitops.git';

/** What `npm run init` is asked for. */
export interface InitRequest {
  /** The repository root: `config/` is under it. */
  readonly root: string;
  /** The id of the first cluster. */
  readonly cluster: string;
  /** The cluster's `terraform output -json` file, absolute. */
  readonly terraformFile: string;
  /** `gitops.repoURL`. @default - the old config's, or {@link EXAMPLE_REPO_URL} */
  readonly repoURL?: string;
  /** Replace `config/platform.yaml` even when `config/` is not the untouched example. @default false */
  readonly force?: boolean;
  /** How a file is named in problems and messages, given its absolute path. */
  readonly showPath: (path: string) => string;
}

/** What `init` did. */
export interface InitResult {
  /** Files written, relative to the root. */
  readonly written: readonly string[];
  /** The example's files removed, relative to the root. */
  readonly removed: readonly string[];
  /** Files of `config/` that are not the example's and were left, relative to the root. */
  readonly kept: readonly string[];
  /** The `gitops.repoURL` written, and where it came from. */
  readonly repo: { readonly url: string; readonly from: 'option' | 'example' | 'old-config' };
  /** Warnings of the new config (an output of the Terraform file that is not used). */
  readonly warnings: readonly Problem[];
  /** The example team's id. */
  readonly team: string;
}

/** `init` would lose work: `config/` is not the untouched example and `--force` was not given. */
export class InitRefused extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'InitRefused';
  }
}

/** A bad cluster id: a usage error, like any argument the command line rejects. */
export class InitUsageError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'InitUsageError';
  }
}

/** What `init` may change: `config/` only. */
const CONFIG_SCOPE: ChangeScope = {
  roots: [CONFIG_DIR],
  allows: (p) => p === CONFIG_DIR || (p.startsWith(`${CONFIG_DIR}/`) && p.split('/').every((s) => s !== '' && s !== '.' && s !== '..')),
  name: `${CONFIG_DIR}/`,
};

/**
 * Makes the repository the user's: `config/platform.yaml` becomes a fleet of one cluster
 * reading `terraform/<cluster>.json`, a copy of the Terraform outputs file, and the example's
 * files go. Everything is validated first (the cluster id, the Terraform outputs, then the
 * whole new config with the loader synth uses); on any problem nothing is written. The change
 * of `config/` is one transaction (src/output), under the lock synth takes.
 * @throws InitUsageError for a bad cluster id, InputError for problems of the Terraform file
 *   or the new config, InitRefused when `config/` holds work of the user's and `force` is not set
 */
export async function initRepository(request: InitRequest): Promise<InitResult> {
  const { root, cluster, showPath } = request;
  const idProblem = clusterIdProblem(cluster);
  if (idProblem) throw new InitUsageError(`"${cluster}" cannot be a cluster id: it ${idProblem}`);
  const configDir = join(root, CONFIG_DIR);
  const target = `terraform/${cluster}.json`;
  const shown = showPath(request.terraformFile);
  const tf = readTerraformOutputs(request.terraformFile, shown, { maxBytes: MAX_TERRAFORM_BYTES });
  if (tf.problems.length) throw new InputError([...tf.problems].sort((a, b) => a.line - b.line || a.col - b.col));
  const inConfig = relative(configDir, request.terraformFile).split(sep).join('/');
  const state = configState(configDir, (f) => f === inConfig);
  if (!state.untouched && !(request.force ?? false)) throw new InitRefused(refusal(showPath(configDir), state));
  const old = oldGitops(join(configDir, 'platform.yaml'));
  const repo = request.repoURL !== undefined ? { url: request.repoURL, from: 'option' as const }
    : old?.repoURL !== undefined ? { url: old.repoURL, from: state.untouched ? 'example' as const : 'old-config' as const }
      : { url: EXAMPLE_REPO_URL, from: 'example' as const };
  const text = readFileSync(request.terraformFile, 'utf8').replace(/^\uFEFF/, '');
  const platform = firstFleet({ cluster, gitops: { ...old, repoURL: repo.url }, karpenterVersion: CHART_VERSION });
  const warnings = validate(platform, target, text, { config: showPath(join(configDir, 'platform.yaml')), terraform: shown, showPath });

  const files = new Map([[`${CONFIG_DIR}/platform.yaml`, platform], [`${CONFIG_DIR}/${target}`, text]]);
  const replaced = [...state.exampleFiles, ...state.otherFiles.filter((f) => f === 'platform.yaml' || f === target)];
  const result = await replaceConfig(root, files, replaced);
  return {
    written: result.written,
    removed: result.removed,
    kept: state.otherFiles.filter((f) => !replaced.includes(f)).map((f) => `${CONFIG_DIR}/${f}`),
    repo,
    warnings,
    team: FIRST_TEAM,
  };
}

/** Why `init` will not replace `config/`, and the two ways on. */
function refusal(configShown: string, state: ConfigState): string {
  return `${configShown}/ is no longer the example karpenter-gitops ships (${state.changes.join(', ')}): init would replace its platform.yaml. `
    + 'Run init again with --force to replace it anyway (files other than the example\'s are kept), '
    + 'or copy your own platform.yaml and Terraform outputs over it by hand (docs/making-it-yours.md)';
}

/** The `gitops` block of the config being replaced, where it reads as one; undefined otherwise. */
function oldGitops(path: string): Partial<GitopsBlock> | undefined {
  let gitops: unknown;
  try {
    gitops = (parse(readFileSync(path, 'utf8')) as { gitops?: unknown } | null)?.gitops;
  } catch {
    return undefined; // missing or not YAML: nothing to keep
  }
  if (gitops === null || typeof gitops !== 'object') return undefined;
  const keys = ['repoURL', 'targetRevision', 'argocdNamespace', 'project'] as const;
  const kept = Object.fromEntries(keys.flatMap((k) => {
    const v = (gitops as Record<string, unknown>)[k];
    return typeof v === 'string' && v !== '' ? [[k, v]] : [];
  }));
  return Object.keys(kept).length ? kept : undefined;
}

/**
 * Loads the new config with the loader synth uses, from a scratch folder, with its files
 * named as the user will know them: `config/platform.yaml`, and the Terraform file as given.
 * Returns its warnings; throws an InputError with its problems.
 */
function validate(platform: string, target: string, terraform: string, names: { config: string; terraform: string; showPath: (path: string) => string }): Problem[] {
  const scratch = mkdtempSync(join(tmpdir(), 'karpenter-gitops-init-'));
  try {
    const configPath = join(scratch, 'platform.yaml');
    const terraformPath = join(scratch, target);
    mkdirSync(join(scratch, 'terraform'));
    writeFileSync(configPath, platform);
    writeFileSync(terraformPath, terraform);
    const showPath = (p: string) => (p === configPath ? names.config : p === terraformPath ? names.terraform : names.showPath(p));
    return [...loadPlatform(configPath, { showPath }).warnings];
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Makes `config/` hold `files` and no longer the `replaced` ones, in one transaction under the lock. */
async function replaceConfig(root: string, files: ReadonlyMap<string, string>, replaced: readonly string[]): Promise<{ written: string[]; removed: string[] }> {
  const stateDir = stateFolder(root);
  const lock = acquireLock(stateDir, 'init');
  try {
    const txn = join(stateDir, INIT_TXN_DIR);
    recover(root, txn, REAL_FS, CONFIG_SCOPE);
    const old = new Map<string, string>();
    for (const f of replaced) {
      const path = `${CONFIG_DIR}/${f}`;
      if (kindOf(join(root, path)) === 'link') throw new OutputError(`${path} is a symbolic link: init replaces only plain files; remove it and run again`);
      old.set(path, readFileSync(join(root, path), 'utf8'));
    }
    const dirs = [CONFIG_DIR, `${CONFIG_DIR}/terraform`].filter((d) => kindOf(join(root, d)) === 'dir');
    const result = await applyChange({ root, txn, journal: planChange({ files: old, dirs }, files, CONFIG_SCOPE), files }, REAL_FS, CONFIG_SCOPE);
    return { written: [...result.written], removed: [...result.removed] };
  } finally {
    lock.release();
  }
}

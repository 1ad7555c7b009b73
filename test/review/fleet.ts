/**
 * Fleets in temporary git repositories, built through the real command line: a
 * config of several clusters is synthesized and committed as the base; a test then
 * edits the config (or the generated tree) and runs `diff` against `HEAD`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { stringify } from 'yaml';
import { run } from '../../src/cli';
import { aConfig, aTerraform, Overrides, Plain, removeProjects, withDestinations, writeProject } from '../builders';

/** What a command printed and returned. */
export interface CliResult {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs the command line in-process. */
export async function cli(args: readonly string[]): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(args, { out: (l) => out.push(l), err: (l) => err.push(l) }, {});
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Teams most fleet tests use: `web` (a dedicated on-demand pool), `ml` (a GPU pool `ml-gpu` only). */
export const TEAMS: Plain = {
  web: { owner: 'web@acme.example', arch: ['amd64'], instanceCategories: ['c', 'm'], limits: { cpu: '10' } },
  ml: {
    owner: 'ml@acme.example', defaultPool: false,
    pools: { gpu: { instanceFamilies: ['g5', 'g6'], taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }], smokeTest: { resources: { 'nvidia.com/gpu': 1 } } } },
  },
};

/**
 * A config of the given clusters (each reading `terraform/<id>.json`, plus the fields
 * `overrides.clusters` gives it) and `teams` (whole, not merged) or else a copy of
 * {@link TEAMS}; other overrides are merged.
 */
export function aFleetConfig(clusters: readonly string[], overrides: Overrides = {}): Plain {
  const { teams, clusters: fields = {}, ...rest } = overrides as { teams?: Plain; clusters?: Record<string, Plain> };
  return {
    ...aConfig(rest),
    clusters: Object.fromEntries(clusters.map((c) => [c, { terraformOutputs: `terraform/${c}.json`, ...fields[c] }])),
    teams: structuredClone(teams ?? TEAMS),
  };
}

/** A fleet committed in a temporary git repository. */
export class Fleet {
  /**
   * Writes the config and one Terraform outputs file per cluster (`cluster_name` the
   * cluster id unless `eks` maps it), synthesizes, and commits everything on `main`.
   */
  public static async create(config: Plain, eks: Readonly<Record<string, string>> = {}): Promise<Fleet> {
    const clusters = Object.keys(config.clusters as Plain);
    const project = writeProject({
      config,
      terraform: Object.fromEntries(clusters.map((c) => [c, aTerraform({ cluster_name: eks[c] ?? c, karpenter_node_role_name: `KarpenterNodeRole-${c}` })])),
    });
    const fleet = new Fleet(project.dir);
    await fleet.synth();
    fleet.git('init', '-q', '-b', 'main');
    fleet.commit('base');
    return fleet;
  }

  private constructor(public readonly dir: string) {}

  public get configPath(): string {
    return join(this.dir, 'config/platform.yaml');
  }

  /** Replaces the config (and writes Terraform outputs for clusters that have none yet). */
  public configure(config: Plain, eks: Readonly<Record<string, string>> = {}): void {
    writeFileSync(this.configPath, stringify(withDestinations(config)));
    for (const c of Object.keys(config.clusters as Plain)) {
      writeFileSync(join(this.dir, `config/terraform/${c}.json`), JSON.stringify(aTerraform({ cluster_name: eks[c] ?? c, karpenter_node_role_name: `KarpenterNodeRole-${c}` })));
    }
  }

  /** Synthesizes the config into the repository's `dist/` and `argocd/`. */
  public async synth(...args: string[]): Promise<CliResult> {
    const r = await cli(['--config', this.configPath, '--outdir', this.dir, ...args]);
    if (r.code !== 0) throw new Error(`synth failed:\n${r.err}`);
    return r;
  }

  /** `diff --base HEAD` of the working tree's config, with extra arguments. */
  public diff(...extra: string[]): Promise<CliResult> {
    return cli(['diff', '--base', 'HEAD', '--config', this.configPath, '--outdir', this.dir, ...extra]);
  }

  /** A generated file's text. */
  public read(path: string): string {
    return readFileSync(join(this.dir, path), 'utf8');
  }

  /** Writes a file of the tree (`undefined` removes it). */
  public write(path: string, text: string | undefined): void {
    const file = join(this.dir, path);
    if (text === undefined) rmSync(file);
    else {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
  }

  /** The generated files of the working tree (`dist/` and `argocd/`), by path, sorted. */
  public tree(): Map<string, string> {
    const out = new Map<string, string>();
    const walk = (dir: string) => {
      if (!existsSync(dir)) return;
      for (const entry of readdirSync(dir).sort()) {
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) walk(path);
        else out.set(relative(this.dir, path), readFileSync(path, 'utf8'));
      }
    };
    for (const d of ['argocd', 'dist']) walk(join(this.dir, d));
    return out;
  }

  /** Replaces the working tree's `dist/` and `argocd/` with exactly these files. */
  public replaceTree(files: ReadonlyMap<string, string>): void {
    for (const d of ['argocd', 'dist']) rmSync(join(this.dir, d), { recursive: true, force: true });
    for (const [path, text] of files) this.write(path, text);
  }

  /** Commits everything. */
  public commit(message: string): void {
    this.git('add', '-A');
    this.git('commit', '-q', '-m', message);
  }

  public git(...args: string[]): string {
    return execFileSync('git', ['-C', this.dir, '-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { stdio: 'pipe' }).toString();
  }
}

/** Removes every fleet's directory (call from `afterAll`). */
export const removeFleets = removeProjects;

/**
 * A terminal report's lines without its grouped summary (what to approve, the rollout): the
 * header, then every change by cluster. The summary is tested in fleet-scale.test.ts.
 */
export function byCluster(report: string[]): string[] {
  const from = report.indexOf('Every change, by cluster:');
  const to = report.findIndex((l) => l.startsWith('To approve'));
  const header = report[0]?.replace(/ \(times from the head commit, [^)]*\)$/, '');
  return from < 0 || to < 0 ? [header, ...report.slice(1)] : [header, ...report.slice(1, to), ...report.slice(from + 2)];
}

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filesUnder } from '../support/snapshot';

// Real processes of `npm run synth` / `npm run check` (the bundle, as users run it), killed and raced.
const RUN = join(__dirname, '..', '..', 'scripts', 'run.cjs');

/** A project with two configs of `teams` teams on two clusters that differ in every cluster: a.yaml and b.yaml. */
function project(teams: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'kg-proc-'));
  mkdirSync(join(dir, 'config/terraform'), { recursive: true });
  for (const c of ['east', 'west']) {
    writeFileSync(join(dir, `config/terraform/${c}.json`), JSON.stringify({ cluster_name: c, karpenter_node_role_name: `KarpenterNodeRole-${c}` }));
  }
  const config = (variant: 'a' | 'b') => {
    let text = 'gitops: { repoURL: https://github.com/acme/platform-gitops.git }\nkarpenter: { version: 1.14.1 }\n'
      + 'clusters:\n  east: { terraformOutputs: terraform/east.json }\n  west: { terraformOutputs: terraform/west.json, destination: { name: west } }\n'
      + `defaults: { ami: { alias: al2023@v2025050${variant === 'a' ? 5 : 6} } }\nteams:\n`;
    // b drops every third team and adds others: files are changed, removed and added.
    for (let i = 0; i < teams; i++) {
      if (variant === 'b' && i % 3 === 0) text += `  new-${i}: { limits: { cpu: "8" } }\n`;
      else text += `  team-${i}: { limits: { cpu: "${variant === 'a' ? 10 : 20}" } }\n`;
    }
    return text;
  };
  writeFileSync(join(dir, 'config/a.yaml'), config('a'));
  writeFileSync(join(dir, 'config/b.yaml'), config('b'));
  return dir;
}

/**
 * Teams per config: enough that staging the new files, before the commit, takes about 0.1 s, so
 * a kill as the staging area appears lands before the commit. Each run costs about a second of
 * CPU whatever the size (loading the bundle), so more teams slow the test and buy little.
 */
const TEAMS = 30;

function runSync(dir: string, command: string, variant: string) {
  return spawnSync(process.execPath, [RUN, command, '--config', `config/${variant}.yaml`], { cwd: dir, encoding: 'utf8' });
}

/**
 * Resolves when `name` appears in the state folder of `dir` (which a run before made), or when
 * `ended` settles first: woken by the file system's event, not by polling, so a busy machine
 * neither spins this process nor delays the run it waits on.
 */
function appears(dir: string, name: string, ended: Promise<unknown>): Promise<void> {
  const state = join(dir, '.karpenter-gitops');
  return new Promise<void>((resolve) => {
    const watcher = watch(state, () => { if (existsSync(join(state, name))) done(); });
    function done() {
      watcher.close();
      resolve();
    }
    void ended.then(done);
    // It may have appeared before the watch began.
    if (existsSync(join(state, name))) done();
  });
}

/**
 * Which config the tree under `dir` is exactly the synth of: `a` by `check` (which first finishes
 * any interrupted change), else `b` when its files are those a whole synth of b wrote (`treeB`).
 */
function treeOf(dir: string, treeB: ReadonlyMap<string, string>): 'a' | 'b' | 'neither' {
  if (runSync(dir, 'check', 'a').status === 0) return 'a';
  const files = filesUnder(dir);
  return files.size === treeB.size && [...treeB].every(([path, text]) => files.get(path) === text) ? 'b' : 'neither';
}

describe('synth processes that are killed or race', () => {
  const dirs: string[] = [];
  afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

  it('leaves the old tree or the new one when killed with SIGKILL at any moment of its writes', async () => {
    const dir = project(TEAMS);
    dirs.push(dir);
    expect(runSync(dir, 'synth', 'a').status).toBe(0);
    /** Starts synth b; resolves when the staging area appears (or the run ends) and when the run ends. */
    const start = () => {
      const child = spawn(process.execPath, [RUN, 'synth', '--config', 'config/b.yaml'], { cwd: dir, stdio: 'ignore' });
      const exited = new Promise((resolve) => child.on('exit', resolve));
      const staging = appears(dir, 'txn', exited).then(() => Date.now());
      return { child, exited, staging };
    };
    // How long the write phase lasts: from the staging area's appearance to the end of the run.
    const probe = start();
    const writeStart = await probe.staging;
    expect(await probe.exited).toBe(0);
    const writePhase = Date.now() - writeStart;
    // What a whole synth of b wrote: a killed run's tree is b's when it is exactly this.
    const treeB = filesUnder(dir);
    expect(runSync(dir, 'synth', 'a').status).toBe(0);
    const seen: string[] = [];
    // Kills spread over the write phase: while new files are staged, at the commit, while they are renamed in.
    for (const fraction of [0, 0.2, 0.4, 0.6, 0.75, 0.9]) {
      const delay = Math.round(writePhase * fraction);
      const run = start();
      await run.staging;
      setTimeout(() => run.child.kill('SIGKILL'), delay);
      await run.exited;
      const which = treeOf(dir, treeB);
      expect({ delay, which }).not.toEqual({ delay, which: 'neither' });
      seen.push(which);
      expect(runSync(dir, 'synth', 'a').status).toBe(0);
    }
    // A kill as the staging area appears is before the commit: the old tree stays.
    expect(seen[0]).toBe('a');
  }, 300_000);

  it('refuses a second run while the first holds the lock, and the first one writes', async () => {
    const dir = project(TEAMS);
    dirs.push(dir);
    expect(runSync(dir, 'synth', 'a').status).toBe(0);
    // Run b until it holds the lock, then freeze it there (SIGSTOP): it is alive and holds the
    // lock for as long as run a needs to start and try, whatever the machine's speed.
    const first = spawn(process.execPath, [RUN, 'synth', '--config', 'config/b.yaml'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let firstErr = '';
    first.stderr.on('data', (d) => { firstErr += d; });
    const firstExit = new Promise<number | null>((resolve) => first.on('exit', resolve));
    let exited = false;
    void firstExit.then(() => { exited = true; });
    await appears(dir, 'lock', firstExit);
    // Had it ended before taking the lock, say how (its stderr), not only that it did.
    expect({ exitedBeforeTheLock: exited, stderr: exited ? firstErr : '' }).toEqual({ exitedBeforeTheLock: false, stderr: '' });
    first.kill('SIGSTOP');
    try {
      const second = runSync(dir, 'synth', 'a');
      expect(second.status).toBe(1);
      expect(second.stderr).toMatch(new RegExp(`^error: another karpenter-gitops synth run \\(pid ${first.pid} .*\\) is writing this output`, 'm'));
    } finally {
      first.kill('SIGCONT');
    }
    expect(await firstExit).toBe(0);
    expect(runSync(dir, 'check', 'b').status).toBe(0);
  }, 60_000);
});


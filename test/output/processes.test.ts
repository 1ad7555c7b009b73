import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filesUnder } from '../support/snapshot';

// Real processes of `npm run synth` / `npm run check` (the bundle, as users run it), killed and raced.
const RUN = join(__dirname, '..', '..', 'scripts', 'run.cjs');
/** Preloaded into a run to hold it at one step of its change, for a kill to land there. */
const KILL_POINT = join(__dirname, 'kill-point.cjs');

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
 * Teams per config: enough that the change adds, rewrites and removes files and folders. Each run
 * costs about a second of CPU whatever the size (loading the bundle), so more teams buy little.
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

describe('synth processes that are killed or race', () => {
  const dirs: string[] = [];
  afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

  /**
   * A synth of b killed with SIGKILL at one step of its change (test/output/kill-point.cjs holds
   * it there, so the kill lands there): resolves with the signal that ended it, once it has.
   */
  async function killedAt(dir: string, point: 'staging' | 'committed' | 'moving'): Promise<NodeJS.Signals | null> {
    const marker = join(dir, `killed-at-${point}`);
    const child = spawn(process.execPath, ['--require', KILL_POINT, RUN, 'synth', '--config', 'config/b.yaml'], {
      cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, KG_TEST_KILL_POINT: point, KG_TEST_KILL_MARKER: marker },
    });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    let ended = false;
    void exited.then(() => { ended = true; });
    while (!ended && !existsSync(marker)) await new Promise((resolve) => setTimeout(resolve, 10));
    // Had it ended before the step, say how: the step was never reached.
    expect({ point, reached: existsSync(marker), stderr: ended ? stderr : '' }).toEqual({ point, reached: true, stderr: '' });
    child.kill('SIGKILL');
    return (await exited).signal;
  }

  const STATE = '.karpenter-gitops';
  const txnOf = (dir: string) => join(dir, STATE, 'txn');

  it('is finished or undone by the next run when killed while staging, at the commit, and while moving files in', async () => {
    const dir = project(TEAMS);
    dirs.push(dir);
    // The trees of whole synths of b and of a: a killed run's tree is one of them once the next run has opened the output.
    expect(runSync(dir, 'synth', 'b').status).toBe(0);
    const treeB = filesUnder(dir);
    expect(runSync(dir, 'synth', 'a').status).toBe(0);
    const treeA = filesUnder(dir);
    const which = () => {
      const files = filesUnder(dir);
      const same = (tree: ReadonlyMap<string, string>) => files.size === tree.size && [...tree].every(([path, text]) => files.get(path) === text);
      return same(treeA) ? 'a' : same(treeB) ? 'b' : 'neither';
    };

    // Killed while staging: no journal, the tree untouched; the next run throws the staging away.
    expect(await killedAt(dir, 'staging')).toBe('SIGKILL');
    expect({ staged: existsSync(join(txnOf(dir), 'new')), journal: existsSync(join(txnOf(dir), 'journal.json')), tree: which() })
      .toEqual({ staged: true, journal: false, tree: 'a' });
    expect(runSync(dir, 'check', 'a').status).toBe(0);
    expect({ txn: existsSync(txnOf(dir)), tree: which() }).toEqual({ txn: false, tree: 'a' });

    // Killed once the journal is committed, before any file moved: the next run carries it out.
    expect(await killedAt(dir, 'committed')).toBe('SIGKILL');
    expect({ journal: existsSync(join(txnOf(dir), 'journal.json')), tree: which() }).toEqual({ journal: true, tree: 'a' });
    expect(runSync(dir, 'check', 'b').status).toBe(0);
    expect({ txn: existsSync(txnOf(dir)), tree: which() }).toEqual({ txn: false, tree: 'b' });

    // Killed halfway through moving the files in: the tree is neither, the journal says what is left.
    expect(runSync(dir, 'synth', 'a').status).toBe(0);
    expect(await killedAt(dir, 'moving')).toBe('SIGKILL');
    expect({ journal: existsSync(join(txnOf(dir), 'journal.json')), tree: which() }).toEqual({ journal: true, tree: 'neither' });
    expect(runSync(dir, 'check', 'b').status).toBe(0);
    expect({ txn: existsSync(txnOf(dir)), tree: which() }).toEqual({ txn: false, tree: 'b' });
  }, 120_000);

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


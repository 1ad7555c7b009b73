import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { aConfig, removeProjects, writeProject } from '../builders';
import { filesUnder } from '../support/snapshot';

// `npm run synth` as users run it (the bundle), in a shell whose open-file limit is macOS's default.
const RUN = join(__dirname, '..', '..', 'scripts', 'run.cjs');
const OPEN_FILES = 256;
const TEAMS = 1000;

afterAll(removeProjects);

describe('synth under an open-file limit', () => {
  it(`synthesizes a ${TEAMS.toLocaleString('en-US')}-team cluster into an empty folder under ulimit -n ${OPEN_FILES}`, () => {
    const teams = Array.from({ length: TEAMS }, (_, i) => `team-${i}`);
    const project = writeProject({ config: aConfig({ teams: Object.fromEntries(teams.map((t) => [t, {}])) }) });
    // The shell checks that the limit holds before it becomes the synth process.
    const run = spawnSync('bash', ['-c', `ulimit -n ${OPEN_FILES} && test "$(ulimit -n)" = ${OPEN_FILES} && exec "$0" "$@"`, process.execPath, RUN, 'synth'],
      { cwd: project.dir, encoding: 'utf8' });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: expect.not.stringMatching(/error/) });

    // Every team's NodePool and the Application that syncs its folder are there, whole.
    const tree = filesUnder(project.dir);
    const missing = teams.filter((t) => !/^kind: NodePool$/m.test(tree.get(`dist/demo/nodepools/${t}/${t}.yaml`) ?? '')
      || !(tree.get(`dist/demo/apps/pools-${t}.yaml`) ?? '').includes(`path: dist/demo/nodepools/${t}\n`));
    expect(missing).toEqual([]);
    // Every file the run says it wrote is on disk, and its staging area is gone.
    const written = /\((\d+) written, 0 removed, 0 unchanged\)/.exec(run.stdout.replace(/(\d),(?=\d{3})/g, '$1'));
    expect(Number(written?.[1])).toBe(tree.size);
    expect(existsSync(join(project.dir, '.karpenter-gitops', 'txn'))).toBe(false);
  }, 180_000);
});

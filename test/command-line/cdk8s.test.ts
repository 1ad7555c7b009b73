import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli';

/** A fleet config of the tests' own (test/fixtures/init/example) in a fresh folder. */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kg-cdk8s-'));
  cpSync(join(__dirname, '..', 'fixtures', 'init', 'example'), join(dir, 'config'), { recursive: true });
  return dir;
}

async function cli(args: string[], env: NodeJS.ProcessEnv) {
  const err: string[] = [];
  const code = await run(args, { out: () => undefined, err: (l) => err.push(l) }, env);
  return { code, err: err.join('\n') };
}

describe('run by npx cdk8s synth (CDK8S_OUTDIR set)', () => {
  let dir: string;
  beforeEach(() => {
    dir = project();
    const config = join(dir, 'config/platform.yaml');
    writeFileSync(config, readFileSync(config, 'utf8').replace('cpu: "10"', 'cpu: "1x0"'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('says, on a failure, that the cdk8s CLI deleted dist/ before it ran, and how to get it back', async () => {
    // What cdk8s-cli's synth does: rmSync(outdir) first, then the app with CDK8S_OUTDIR=outdir.
    const r = await cli(['--config', join(dir, 'config/platform.yaml')], { CDK8S_OUTDIR: join(dir, 'dist') });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^1 problem\(s\) found; nothing was written, but the cdk8s CLI deleted .*dist\/ before it ran karpenter-gitops: restore it with git checkout -- .*dist\/ \(npm run synth leaves it as it was when a run fails\)$/m);
    expect(existsSync(join(dir, 'dist'))).toBe(false);
  });

  it('says only "nothing was written" when the folder is there (cdk8s synth --stdout passes a fresh one)', async () => {
    const r = await cli(['--config', join(dir, 'config/platform.yaml')], { CDK8S_OUTDIR: mkdtempSync(join(dir, 'stdout-')) });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^1 problem\(s\) found; nothing was written$/m);
  });
});

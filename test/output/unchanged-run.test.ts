/**
 * A synth with nothing to do (src/output/unchanged-run.ts) reads no config and plans nothing,
 * so what decides it must see every change a full synth would act on: an input file edited
 * (the config or a cluster's Terraform outputs), a generated file edited, removed or added, a
 * stray folder, another day or tool (the key), a shard's run. Each case here is a real synth of a
 * project, the change, then the decision; and where the decision is "run", the CLI's synth then
 * makes the tree a full synth makes.
 */
import { mkdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../../src/cli';
import { loadPlan } from '../../src/model/checks';
import { readInputsManifest } from '../../src/output/synth-cache';
import { listOutputTree, readOutputTree } from '../../src/output/tree';
import { runKey, unchangedRun } from '../../src/output/unchanged-run';
import { synthesize } from '../../src/synth';
import { aConfig, aTerraform, removeProjects, writeProject } from '../builders';

afterAll(removeProjects);

const cli = async (args: string[]) => {
  const out: string[] = [];
  const code = await run(args, { out: (l) => out.push(l), err: () => undefined }, {});
  return { code, out };
};

/** A project of two clusters, synthesized once; `decide()` is what the next plain synth would decide. */
async function synthesized() {
  const project = writeProject({ config: aConfig({ clusters: { other: { terraformOutputs: 'terraform/other.json' } } }), terraform: { demo: aTerraform(), other: aTerraform() } });
  const root = project.dir;
  expect((await cli(['synth', '--config', project.configPath, '--outdir', root])).code).toBe(0);
  const state = join(root, '.karpenter-gitops');
  const decide = (key?: string) => {
    const read = readInputsManifest(state);
    return unchangedRun(read, key ?? read?.manifest.run?.key ?? '', root, listOutputTree(root));
  };
  /** The CLI's plain synth, then whether the tree is exactly what a full synth makes. */
  const resynth = async () => {
    const result = await cli(['synth', '--config', project.configPath, '--outdir', root]);
    const full = synthesize(loadPlan(project.configPath).platform, { configFile: 'config/platform.yaml' });
    return { ...result, asFull: JSON.stringify([...readOutputTree(root).files].sort()) === JSON.stringify([...full].sort()) };
  };
  return { ...project, root, decide, resynth };
}

describe('a synth with nothing to do', () => {
  it('is found after a synth, and still when an input is touched without a change (its bytes are read then, and the record refreshed)', async () => {
    const p = await synthesized();
    expect(p.decide()).toBeDefined();
    const later = new Date(Date.now() + 10_000);
    utimesSync(p.configPath, later, later);
    expect(p.decide()).toMatchObject({ refreshed: true });
    const again = await p.resynth();
    expect(again).toMatchObject({ code: 0, asFull: true });
    expect(again.out).toContain('nothing changed');
    // The refreshed record holds the file's new time.
    expect(readInputsManifest(join(p.root, '.karpenter-gitops'))?.manifest.run?.inputs[p.configPath]?.mtimeMs).toBe(statSync(p.configPath).mtimeMs);
  });

  it.each([
    ['the config edited', (p: Awaited<ReturnType<typeof synthesized>>) => writeFileSync(p.configPath, readFileSync(p.configPath, 'utf8').replace(/maxPods: \d+|$/, (m) => (m ? m : '\n# a comment\n')))],
    ['a cluster\'s Terraform outputs edited', (p: Awaited<ReturnType<typeof synthesized>>) => {
      writeFileSync(p.terraformPath('other'), JSON.stringify({ ...aTerraform(), karpenter_interruption_queue_name: { value: 'Karpenter-other-v2' } }, null, 2));
    }],
    ['a generated file edited', (p: Awaited<ReturnType<typeof synthesized>>) => {
      const file = join(p.root, 'dist', 'demo', 'SUMMARY.md');
      writeFileSync(file, `${readFileSync(file, 'utf8')}edited\n`);
    }],
    ['a generated file removed', (p: Awaited<ReturnType<typeof synthesized>>) => rmSync(join(p.root, 'dist', 'summary.json'))],
    ['a file added under dist/', (p: Awaited<ReturnType<typeof synthesized>>) => writeFileSync(join(p.root, 'dist', 'demo', 'stray.yaml'), 'kind: ConfigMap\n')],
    ['an empty folder added under argocd/', (p: Awaited<ReturnType<typeof synthesized>>) => mkdirSync(join(p.root, 'argocd', 'stray'))],
  ])('is not found when %s; the synth then makes what a full synth makes', async (_, change) => {
    const p = await synthesized();
    change(p);
    expect(p.decide()).toBeUndefined();
    expect(await p.resynth()).toMatchObject({ code: 0, asFull: true });
    expect(p.decide()).toBeDefined();
  });

  it('is not found when an input is replaced by a link, even to the same bytes (a full run checks where it leads again)', async () => {
    const p = await synthesized();
    const copy = join(p.dir, 'config', 'platform-copy.yaml');
    writeFileSync(copy, readFileSync(p.configPath));
    rmSync(p.configPath);
    symlinkSync(copy, p.configPath);
    expect(p.decide()).toBeUndefined();
    expect(await p.resynth()).toMatchObject({ code: 0, asFull: true });
  });

  it('is not found on another day, with another tool, or after a shard\'s synth', async () => {
    const p = await synthesized();
    const key = { tool: 't', today: '2026-12-07', configPath: p.configPath, root: p.root, cwd: '/' };
    expect(runKey({ ...key, today: '2026-12-08' })).not.toBe(runKey(key));
    expect(runKey({ ...key, tool: 'u' })).not.toBe(runKey(key));
    expect(p.decide(runKey(key))).toBeUndefined();
    expect((await cli(['synth', '--config', p.configPath, '--outdir', p.root, '--shard', '1/2'])).code).toBe(0);
    expect(p.decide()).toBeUndefined();
  });
});

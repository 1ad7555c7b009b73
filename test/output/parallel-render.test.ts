import { buildSync } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLAIM_BLOCK, claim, ParallelRenderer } from '../../src/output/parallel-render';
import { GeneratedFile, renderFile } from '../../src/output/render';

/** Files enough to span two blocks of claims, with strings the writer must quote. */
function files(n: number): GeneratedFile[] {
  return Array.from({ length: n }, (_, i) => ({
    path: `dist/c${i % 7}/nodepools/t${i}/p${i}.yaml`,
    docs: [{ apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: `p${i}`, labels: { n: String(i), on: 'yes' } } }, { kind: 'EC2NodeClass', spec: { userData: `line\n${i}` } }],
  }));
}

describe('ParallelRenderer with its worker (lib/render-worker.cjs, bundled here from src/render-worker.ts)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'render-worker-'));
  const script = join(dir, 'render-worker.cjs');
  buildSync({ entryPoints: [join(__dirname, '../../src/render-worker.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: script, logLevel: 'silent' });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('renders every file exactly once, as the main thread alone would, whichever thread claimed it', async () => {
    const all = files(CLAIM_BLOCK + 100);
    const renderer = ParallelRenderer.start(script);
    for (const f of all) renderer.add(f);
    const rendered = await renderer.finish();
    expect([...rendered.keys()]).toEqual(all.map((f) => f.path).sort());
    for (const f of all) expect(rendered.get(f.path)).toBe(renderFile(f));
  });

  it('gives the same files without its worker (the TypeScript sources under test)', async () => {
    const all = files(50);
    const renderer = ParallelRenderer.start(join(dir, 'no-such-worker.cjs'));
    for (const f of all) renderer.add(f);
    expect(await renderer.finish()).toEqual(new Map(all.map((f) => [f.path, renderFile(f)] as const).sort(([a], [b]) => (a < b ? -1 : 1))));
  });
});

describe('claim', () => {
  it('gives each file to the first thread that claims it, and to no other', () => {
    const blocks = [new Int32Array(new SharedArrayBuffer(CLAIM_BLOCK * 4)), new Int32Array(new SharedArrayBuffer(CLAIM_BLOCK * 4))];
    expect(claim(blocks, CLAIM_BLOCK + 4, 1)).toBe(true);
    expect(claim(blocks, CLAIM_BLOCK + 4, 2)).toBe(false);
    expect(claim(blocks, 3, 2)).toBe(true);
    expect(claim(blocks, 3, 1)).toBe(false);
    expect(blocks[1][4]).toBe(1);
    expect(blocks[0][3]).toBe(2);
  });
});

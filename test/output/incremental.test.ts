/**
 * Contract 9.5: a synth rebuilds only the clusters whose inputs changed, with the same result as a
 * full one. A fleet of 60 clusters written by the bench's writer (bench/fleet.mjs) takes random
 * edits one after the other (a team field, a group value, a cluster's Terraform outputs, a window,
 * a cluster's labels, a cluster removed and added back, a generated file edited or removed by
 * hand, nothing at all); after each, the incremental synth's dist/ and argocd/ are exactly the
 * files a full synth makes, and a synth whose edit touches one cluster renders at most that one.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { run } from '../../src/cli';
import { loadPlan } from '../../src/model/checks';
import { readOutputTree } from '../../src/output/tree';
import { synthesize } from '../../src/synth';

const CLUSTERS = 60;
const EDITS = 24;
const SEED = Number(process.env.INCREMENTAL_SEED ?? 47);

const dir = mkdtempSync(join(tmpdir(), 'kg-incremental-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const config = join(dir, 'platform.yaml');

/** mulberry32: a seeded generator, so a failure names the seed that reproduces it. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A synth of the fleet: its exit code, its errors, its output, and how many clusters it rendered
 * (`--verbose` says; without it, a synth with nothing to do renders nothing and says so,
 * output/unchanged-run.ts).
 */
const synth = async (outdir: string, configPath: string = config, verbose = true) => {
  const err: string[] = [];
  const out: string[] = [];
  const code = await run(['synth', '--config', configPath, '--outdir', outdir, ...(verbose ? ['--verbose'] : [])], { out: (l) => out.push(l), err: (l) => err.push(l) }, {});
  const rendered = out.map((l) => /^rendered ([0-9,]+) of /.exec(l)?.[1]).find((n) => n !== undefined);
  return { code, err: err.join('\n'), out: out.join('\n'), rendered: Number(rendered?.replace(/,/g, '')) };
};

/** One edit: what it did, and whether it touches one cluster's files only (then at most one is rendered). */
interface Edit { readonly kind: number; readonly name: string; readonly oneCluster: boolean }

/** Makes one random edit of the fleet's config, Terraform outputs or output. */
function edits(next: () => number, ids: readonly string[], removed: Map<string, unknown>): Edit {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
  const doc = parseDocument(readFileSync(config, 'utf8'));
  const save = () => writeFileSync(config, doc.toString({ lineWidth: 0 }));
  const present = ids.filter((id) => !removed.has(id));
  const kind = Math.floor(next() * 10);
  const id = pick(present);
  switch (kind) {
    case 0: doc.setIn(['teams', `team-${Math.floor(next() * 3)}`, 'limits', 'cpu'], String(100 + Math.floor(next() * 300))); save(); return { kind, name: 'team limit', oneCluster: false };
    case 1: doc.setIn(['teams', `team-${Math.floor(next() * 3)}`, 'instanceCategories'], pick([['c', 'm'], ['m', 'r'], ['c', 'm', 'r']])); save(); return { kind, name: 'team categories', oneCluster: false };
    case 2: doc.setIn(['groups', 'prod', 'karpenter', 'controller', 'replicas'], 2 + Math.floor(next() * 4)); save(); return { kind, name: 'group replicas', oneCluster: false };
    case 3: doc.setIn(['groups', 'dev', 'overrides', 'expireAfter'], `${24 * (1 + Math.floor(next() * 14))}h`); save(); return { kind, name: 'group expireAfter', oneCluster: false };
    case 4: {
      const file = join(dir, 'terraform', `${id}.json`);
      const outputs = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      writeFileSync(file, JSON.stringify({ ...outputs, karpenter_interruption_queue_name: `Karpenter-${id}-${Math.floor(next() * 1000)}` }));
      return { kind, name: `terraform of ${id}`, oneCluster: true };
    }
    case 5: doc.setIn(['windows', pick(['prod-eu', 'prod-us', 'prod-ap']), 'start'], `${String(18 + Math.floor(next() * 6)).padStart(2, '0')}:00`); save(); return { kind, name: 'window start', oneCluster: false };
    case 6: doc.setIn(['clusters', id, 'labels', 'geo'], pick(['eu', 'us', 'ap'])); save(); return { kind, name: `labels of ${id}`, oneCluster: false };
    case 7: {
      if (removed.size) {
        const [back, entry] = [...removed][0];
        removed.delete(back);
        doc.setIn(['clusters', back], entry);
        save();
        return { kind, name: `${back} added back`, oneCluster: true };
      }
      removed.set(id, doc.getIn(['clusters', id]));
      doc.deleteIn(['clusters', id]);
      save();
      return { kind, name: `${id} removed`, oneCluster: false };
    }
    case 8: {
      const path = pick([...readOutputTree(dir).files.keys()].filter((p) => p.startsWith(`dist/${id}/nodepools/`)));
      if (next() < 0.5) unlinkSync(join(dir, path));
      else writeFileSync(join(dir, path), `${readFileSync(join(dir, path), 'utf8')}# edited by hand\n`);
      return { kind, name: `${path} edited by hand`, oneCluster: true };
    }
    default: return { kind, name: 'nothing', oneCluster: true };
  }
}

it(`gives a full synth's files after each of ${EDITS} random edits of a ${CLUSTERS}-cluster fleet, rendering only what changed (seed ${SEED})`, async () => {
  const writer = join(__dirname, '..', '..', 'bench', 'fleet.mjs');
  execFileSync(process.execPath, ['--input-type=module', '-e', `import { writeFleet } from ${JSON.stringify(writer)}; writeFleet(${JSON.stringify(dir)}, ${CLUSTERS}, 3, 'al2023@v20260507');`]);
  const ids = loadPlan(config).plan.clusters.map((c) => c.id);
  expect(await synth(dir)).toMatchObject({ code: 0, rendered: CLUSTERS });
  const next = random(SEED);
  const removed = new Map<string, unknown>();
  const seen = new Set<number>();
  for (let i = 0; i < EDITS; i++) {
    const before = readFileSync(config, 'utf8');
    const edit = edits(next, ids, removed);
    // Every other edit is followed by a plain synth, the one that may find nothing to do: it must not miss an edit.
    const result = await synth(dir, config, i % 2 === 0);
    expect({ edit: edit.name, seed: SEED, code: result.code, err: result.err }).toMatchObject({ code: 0 });
    const full = synthesize(loadPlan(config).platform, { configFile: 'platform.yaml' });
    const written = readOutputTree(dir).files;
    expect({ edit: edit.name, paths: [...written.keys()].sort() }).toEqual({ edit: edit.name, paths: [...full.keys()].sort() });
    for (const [path, text] of full) if (written.get(path) !== text) throw new Error(`after "${edit.name}" (seed ${SEED}), ${path} differs from a full synth's`);
    if (i % 2 === 1) {
      // A plain synth after an edit of nothing finds nothing to do, and prints what the last one did of the fleet.
      if (edit.kind === 9) expect(result.out).toMatch(/^\d+ clusters, [\d,]+ pools of 3 teams; Karpenter .*\nnothing changed\n.*\(0 written, 0 removed, \d+ unchanged\)$/);
    } else {
      if (edit.oneCluster) expect({ edit: edit.name, rendered: result.rendered }).toEqual({ edit: edit.name, rendered: Math.min(result.rendered, 1) });
      if (edit.kind === 9) expect(result.rendered).toBe(0);
    }
    seen.add(edit.kind);
    if (edit.kind === 9) expect(readFileSync(config, 'utf8')).toBe(before);
  }
  // And a full synth of a copy of the config, into an empty folder, writes the same tree.
  const fresh = join(dir, 'fresh');
  cpSync(join(dir, 'terraform'), join(fresh, 'terraform'), { recursive: true });
  cpSync(config, join(fresh, 'platform.yaml'));
  expect(await synth(fresh, join(fresh, 'platform.yaml'))).toMatchObject({ code: 0, rendered: CLUSTERS - removed.size });
  expect(readOutputTree(fresh).files).toEqual(readOutputTree(dir).files);
  // The seed tries most kinds of edit.
  expect(seen.size).toBeGreaterThanOrEqual(8);
}, 600_000);

/**
 * The rooms of src/ (docs/architecture.md), read from the imports of every source file by
 * dependency-cruiser (TypeScript's own parser: type-only imports count, an `import` inside a
 * string does not) under the rules of .dependency-cruiser.cjs: what each room may import, and
 * no cycle between rooms. A room is a folder of src/; a file directly in src/ (cli.ts, main.ts,
 * synth.ts, render-worker.ts) is a room of its own.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import type { ICruiseResult } from 'dependency-cruiser';

const ROOT = join(__dirname, '..');
const SRC = join(ROOT, 'src');
/** The rooms' rules, which `npx depcruise src` applies too. */
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

/** One import of one file: the room it is in, and what it imports (a room of src/, `imports`, or `pkg:<package>`). */
interface Import {
  readonly file: string;
  readonly from: string;
  readonly to: string;
  /** The file imported, relative to src/ (`output/layout.ts`), or the package. */
  readonly target: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The room of a path relative to src/ (`/`-separated). */
function roomOf(path: string): string {
  const [first, ...rest] = path.split('/');
  return rest.length ? first : first.replace(/\.ts$/, '');
}

/**
 * dependency-cruiser over `src/` of each root, with the rooms' rules: every module, what it
 * imports, and each import that breaks a rule. One child process for all (test/support/depcruise.mjs).
 */
function cruise(roots: readonly string[]): ICruiseResult[] {
  const run = spawnSync(process.execPath, [join(__dirname, 'support', 'depcruise.mjs'), CONFIG, ...roots], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (run.error || run.status !== 0) throw new Error(`dependency-cruiser: ${run.error?.message ?? run.stderr}`);
  return JSON.parse(run.stdout) as ICruiseResult[];
}

/** Every import of src/ (static, dynamic, `export … from`, type-only), by what it resolves to. */
function importsOf(result: ICruiseResult): Import[] {
  return result.modules.filter((m) => m.source.startsWith('src/')).flatMap((m) => m.dependencies.map((d): Import => {
    const file = m.source.slice('src/'.length);
    if (d.coreModule) return { file, from: roomOf(file), to: `pkg:node:${d.module.replace(/^node:/, '')}`, target: d.module };
    if (d.resolved.startsWith('imports/')) return { file, from: roomOf(file), to: 'imports', target: d.resolved };
    if (d.resolved.startsWith('src/') && !d.couldNotResolve) {
      const target = d.resolved.slice('src/'.length);
      return { file, from: roomOf(file), to: roomOf(target), target };
    }
    return { file, from: roomOf(file), to: d.couldNotResolve ? `unresolved:${d.module}` : `pkg:${d.module}`, target: d.module };
  }));
}

/**
 * Each import that breaks the rule of .dependency-cruiser.cjs named `rule` (which must be one of
 * its rules), as `from -> to`, or for a cycle `from -> … -> from`.
 */
function violations(result: ICruiseResult, rule: string): string[] {
  if (!result.summary.ruleSetUsed?.forbidden?.some((r) => r.name === rule)) throw new Error(`.dependency-cruiser.cjs has no rule ${rule}`);
  return result.summary.violations.filter((v) => v.rule.name === rule).map((v) => [v.from, ...(v.cycle?.map((c) => c.name) ?? [v.to])].join(' -> '));
}

/**
 * A src/ that breaks some rules once each, and a generator that writes code importing what it
 * may not itself import: the rules must find the first and not the second.
 */
const FIXTURE: Readonly<Record<string, string>> = {
  'src/input/writer.ts': "import { b } from './b';\nexport const code = `import { plan } from '../model/plan';\\n${b}`;\n",
  'src/input/b.ts': "export const b = 'b';\n",
  'src/model/plan.ts': 'export const plan = 1;\n',
  'src/charts/chart.ts': "import { platform } from '../config/platform';\nexport const chart = platform;\n",
  'src/config/platform.ts': 'export const platform = 1;\n',
  'src/config/pool.ts': "import { NodePool } from '../../imports/karpenter.sh';\nexport const pool = NodePool;\n",
  'imports/karpenter.sh.ts': 'export class NodePool {}\n',
  'src/quantity/a.ts': "import type { B } from './b';\nexport interface A { readonly b?: B }\n",
  'src/quantity/b.ts': "import type { C } from './c';\nexport interface B { readonly c?: C }\n",
  'src/quantity/c.ts': "import type { A } from './a';\nexport interface C { readonly a?: A }\n",
  'src/gate/run.ts': "import { readFileSync } from 'node:fs';\nimport { z } from 'zod';\nexport const run = [readFileSync, z];\n",
};
const fixtureRoot = mkdtempSync(join(tmpdir(), 'karpenter-gitops-rooms-'));
afterAll(() => rmSync(fixtureRoot, { recursive: true, force: true }));
for (const [path, text] of Object.entries(FIXTURE)) {
  mkdirSync(dirname(join(fixtureRoot, path)), { recursive: true });
  writeFileSync(join(fixtureRoot, path), text);
}
const [cruised, fixture] = cruise([ROOT, fixtureRoot]);
const all = importsOf(cruised);
// Every folder and top-level file of src/, whether it imports anything or not (a leaf room imports nothing).
const ROOMS = [...new Set(sourceFiles(SRC).map((path) => roomOf(relative(SRC, path).split(sep).join('/'))))].sort();
const isRoom = (to: string) => ROOMS.includes(to);
/** The room graph: room to the other rooms it imports. */
function roomGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>(ROOMS.map((r) => [r, new Set()]));
  for (const i of all) if (isRoom(i.to) && i.to !== i.from) graph.get(i.from)!.add(i.to);
  return graph;
}

/** Every cycle of rooms, each as `a -> b -> a`, found by a depth-first walk from each room. */
function cycles(graph: Map<string, Set<string>>): string[] {
  const found = new Set<string>();
  const walk = (path: string[]) => {
    for (const next of graph.get(path[path.length - 1]) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) {
        const cycle = path.slice(at);
        // One name per cycle: start it at its smallest room.
        const start = cycle.indexOf([...cycle].sort()[0]);
        found.add([...cycle.slice(start), ...cycle.slice(0, start), cycle[start]].join(' -> '));
      } else {
        walk([...path, next]);
      }
    }
  };
  for (const room of graph.keys()) walk([room]);
  return [...found].sort();
}

/**
 * Cycles between rooms that are documented in docs/architecture.md with the reason they
 * stay. None today: keep it that way, or list one here and there with its reason.
 */
const DOCUMENTED_CYCLES: readonly string[] = [];

describe('the rooms of src/', () => {
  it('finds the imports it checks (the reader is not blind)', () => {
    expect(ROOMS).toEqual(expect.arrayContaining(['catalog', 'charts', 'config', 'constructs', 'gate', 'input', 'model', 'output', 'quantity', 'release', 'schedule', 'synth']));
    expect(all.filter((i) => i.from === 'charts' && i.to === 'constructs').length).toBeGreaterThan(0);
    expect(all.filter((i) => i.from === 'constructs' && i.to === 'imports').length).toBeGreaterThan(0);
    expect(all.filter((i) => i.from === 'charts' && i.to === 'pkg:cdk8s').length).toBeGreaterThan(0);
    expect(all.filter((i) => i.from === 'gate' && i.to === 'pkg:node:https').length).toBeGreaterThan(0);
    expect(all.filter((i) => i.to.startsWith('unresolved:')).map((i) => `${i.file} -> ${i.target}`)).toEqual([]);
  });

  it('charts/ render the plan: they import model types and constructs, never config/', () => {
    expect(violations(cruised, 'charts-render-the-plan')).toEqual([]);
  });

  it('constructs/ take model types, never config/', () => {
    expect(violations(cruised, 'constructs-take-model-types')).toEqual([]);
  });

  it('input/ knows no other room of src/', () => {
    expect(violations(cruised, 'input-knows-no-room')).toEqual([]);
  });

  it('catalog/ knows neither config/ nor model/', () => {
    expect(violations(cruised, 'catalog-knows-neither-config-nor-model')).toEqual([]);
  });

  it('release/ imports nothing but release/ and the leaf quantity/', () => {
    expect(violations(cruised, 'release-is-a-leaf')).toEqual([]);
  });

  it('config/ and model/ are plain data: no cdk8s, no constructs, no imports/', () => {
    expect(violations(cruised, 'plain-data-has-no-cdk8s')).toEqual([]);
  });

  it('model/ builds on config/, release/ and the leaf rooms only (the plan is derived, never rendered; from output/ only the layout)', () => {
    expect(violations(cruised, 'model-builds-on-config-and-leaves')).toEqual([]);
    expect(violations(cruised, 'only-the-layout-of-output')).toEqual([]);
  });

  it('quantity/ and schedule/ (time arithmetic of maintenance windows) know no other room of src/', () => {
    expect(violations(cruised, 'quantity-is-a-leaf')).toEqual([]);
    expect(violations(cruised, 'schedule-is-a-leaf')).toEqual([]);
  });

  it('gate/ (the drift gate program, run alone as node -e in the Job) knows no other room of src/ and no npm package: node: built-ins only', () => {
    expect(violations(cruised, 'gate-runs-alone')).toEqual([]);
  });

  it('breaks no rule of .dependency-cruiser.cjs', () => {
    expect(cruised.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.cycle?.map((c) => c.name).join(' -> ') ?? v.to}`)).toEqual([]);
  });

  it('no cycle between rooms, except the documented ones', () => {
    expect(cycles(roomGraph())).toEqual(DOCUMENTED_CYCLES);
  });

  it('no file of src/ imports itself through others (file by file, type imports included)', () => {
    // Not blind: the plan's imports are there, a type-only one too.
    expect(all.filter((i) => i.file === 'model/plan.ts').map((i) => i.target)).toEqual(expect.arrayContaining(['model/cost.ts', 'output/layout.ts', 'config/platform.ts']));
    expect(violations(cruised, 'no-file-cycle')).toEqual([]);
  });

  it('reads code, not strings, and the rules can fail: a template string\'s import is none; a room\'s forbidden import, imports/ in config/, a file cycle, a package in gate/ are found', () => {
    expect(importsOf(fixture).filter((i) => i.file === 'input/writer.ts').map((i) => i.target)).toEqual(['input/b.ts']);
    expect(violations(fixture, 'input-knows-no-room')).toEqual([]);
    expect(violations(fixture, 'charts-render-the-plan')).toEqual(['src/charts/chart.ts -> src/config/platform.ts']);
    expect(violations(fixture, 'no-file-cycle')).toEqual(['src/quantity/a.ts -> src/quantity/b.ts -> src/quantity/c.ts -> src/quantity/a.ts']);
    expect(violations(fixture, 'gate-runs-alone')).toEqual(['src/gate/run.ts -> zod']);
    expect(violations(fixture, 'plain-data-has-no-cdk8s')).toEqual(['src/config/pool.ts -> imports/karpenter.sh.ts']);
  });

  it('finds a cycle when there is one (the check can fail)', () => {
    const graph = new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['a'])], ['d', new Set(['a'])]]);
    expect(cycles(graph)).toEqual(['a -> b -> c -> a']);
  });
});

describe('docs/architecture.md', () => {
  /** The table of rooms: per row, the rooms (and `imports`) its last column names in backticks; undefined for `all`. */
  function documented(): Map<string, Set<string> | undefined> {
    const text = readFileSync(join(__dirname, '..', 'docs', 'architecture.md'), 'utf8');
    const rows = new Map<string, Set<string> | undefined>();
    for (const line of text.split('\n')) {
      const m = /^\| `src\/([^`/]+?)(?:\/|\.ts)`(?:, `src\/([^`/]+?)\.ts`)? \|.*\| ([^|]*) \|$/.exec(line);
      if (!m) continue;
      const names = [...m[3].matchAll(/`([^`]+)`/g)].map((x) => x[1]).filter((n) => ROOMS.includes(n) || n === 'imports');
      const all = m[3].trim() === 'all';
      for (const room of [m[1], m[2]].filter((r): r is string => r !== undefined)) rows.set(room, all ? undefined : new Set(names));
    }
    return rows;
  }

  it('has a row for every room of src/', () => {
    expect(ROOMS.filter((r) => !documented().has(r))).toEqual([]);
  });

  it('names, for every room, exactly the rooms it imports (the table is read from the code: it fails when they disagree)', () => {
    const disagree: string[] = [];
    for (const [room, names] of documented()) {
      if (names === undefined) continue;
      const actual = new Set(all.filter((i) => i.from === room && i.to !== room && (isRoom(i.to) || i.to === 'imports')).map((i) => i.to));
      const missing = [...actual].filter((r) => !names.has(r)).sort();
      const extra = [...names].filter((r) => !actual.has(r)).sort();
      if (missing.length || extra.length) disagree.push(`${room}: imports ${missing.join(', ') || 'nothing more'} the table does not name; the table names ${extra.join(', ') || 'nothing more'} it does not import`);
    }
    expect(disagree).toEqual([]);
  });
});

describe('the output layout', () => {
  /** Code (not comments) of every source file but the layout that spells a path under dist/ or argocd/. */
  function spelt(): string[] {
    const found: string[] = [];
    for (const path of sourceFiles(SRC)) {
      const file = relative(SRC, path).split(sep).join('/');
      if (file === 'output/layout.ts') continue;
      readFileSync(path, 'utf8').split('\n').forEach((line, i) => {
        const code = line.replace(/\/\/.*$/, '');
        if (/^\s*(\*|\/\*\*)/.test(code)) return;
        // A path is a literal that starts with dist/ or argocd/ and goes on (prose says `dist/ and argocd/`).
        if (/[`'"](dist|argocd)\/[\w$]/.test(code)) found.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    return found;
  }

  it('has one owner: no file but src/output/layout.ts spells a path of dist/ or argocd/', () => {
    expect(spelt()).toEqual([]);
  });
});

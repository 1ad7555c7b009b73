/**
 * The rooms of src/ (docs/architecture.md), read from the import statements of every source
 * file: what each room may import, and no cycle between rooms. A room is a folder of src/;
 * a file directly in src/ (cli.ts, main.ts, synth.ts, render-worker.ts) is a room of its own.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';

const SRC = join(__dirname, '..', 'src');

/** One import of one file: the room it is in, and what it imports (a room of src/, `imports`, or `pkg:<package>`). */
interface Import {
  readonly file: string;
  readonly from: string;
  readonly to: string;
  /** The module imported, relative to src/ (`output/layout`), or the package. */
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

/** Every `import … from`, `import '…'`, `export … from` and `import('…')` of src/. */
function imports(): Import[] {
  const found: Import[] = [];
  for (const path of sourceFiles(SRC)) {
    const file = relative(SRC, path).split(sep).join('/');
    const text = readFileSync(path, 'utf8');
    const specifiers = [
      ...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+['"]([^'"]+)['"]/gm),
      ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
      ...text.matchAll(/\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g),
    ].map((m) => m[1]);
    for (const specifier of specifiers) {
      let to = `pkg:${specifier}`;
      let target = specifier;
      if (specifier.startsWith('.')) {
        target = posix.normalize(posix.join(posix.dirname(file), specifier));
        to = target.startsWith('../imports/') ? 'imports' : roomOf(target);
      }
      found.push({ file, from: roomOf(file), to, target });
    }
  }
  return found;
}

const all = imports();
// Every folder and top-level file of src/, whether it imports anything or not (a leaf room imports nothing).
const ROOMS = [...new Set(sourceFiles(SRC).map((path) => roomOf(relative(SRC, path).split(sep).join('/'))))].sort();
const isRoom = (to: string) => ROOMS.includes(to);
/** `file -> target` for each import of a room that is not one of `allowed` (rooms, `imports`, or packages by prefix). */
function outside(room: string, allowed: (to: string) => boolean): string[] {
  return all.filter((i) => i.from === room && !allowed(i.to)).map((i) => `${i.file} -> ${i.to}`);
}
const CDK8S = (to: string) => to === 'imports' || to === 'pkg:constructs' || to.startsWith('pkg:cdk8s');

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

/** Every file of src/ and the files of src/ it imports (relative imports that name a file). */
function fileGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const i of all) {
    const edges = graph.get(i.file) ?? [];
    graph.set(i.file, edges);
    const file = [`${i.target}.ts`, `${i.target}/index.ts`].find((f) => !f.startsWith('..') && existsSync(join(SRC, f)));
    if (file !== undefined) edges.push(file);
  }
  return graph;
}

/** The strongly connected components of a graph (Tarjan), each sorted: a component of two or more files is a cycle. */
function stronglyConnected(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    out.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
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
  });

  it('charts/ render the plan: they import model types and constructs, never config/', () => {
    expect(outside('charts', (to) => !isRoom(to) || ['model', 'constructs'].includes(to))).toEqual([]);
  });

  it('constructs/ take model types, never config/', () => {
    expect(outside('constructs', (to) => !isRoom(to) || ['model', 'constructs'].includes(to))).toEqual([]);
  });

  it('input/ knows no other room of src/', () => {
    expect(outside('input', (to) => !isRoom(to) || to === 'input')).toEqual([]);
  });

  it('catalog/ knows neither config/ nor model/', () => {
    expect(outside('catalog', (to) => !['config', 'model'].includes(to))).toEqual([]);
  });

  it('release/ imports nothing but release/ and the leaf quantity/', () => {
    expect(outside('release', (to) => !isRoom(to) || ['release', 'quantity'].includes(to))).toEqual([]);
  });

  it('config/ and model/ are plain data: no cdk8s, no constructs, no imports/', () => {
    expect(outside('config', (to) => !CDK8S(to))).toEqual([]);
    expect(outside('model', (to) => !CDK8S(to))).toEqual([]);
  });

  it('model/ builds on config/, release/ and the leaf rooms only (the plan is derived, never rendered; from output/ only the layout)', () => {
    expect(outside('model', (to) => !isRoom(to) || ['model', 'config', 'input', 'release', 'quantity', 'catalog', 'schedule', 'gate', 'output'].includes(to))).toEqual([]);
    expect(all.filter((i) => ['model', 'config'].includes(i.from) && i.to === 'output' && i.target !== 'output/layout').map((i) => `${i.file} -> ${i.target}`)).toEqual([]);
  });

  it('quantity/ and schedule/ (time arithmetic of maintenance windows) know no other room of src/', () => {
    expect(outside('quantity', (to) => !isRoom(to) || to === 'quantity')).toEqual([]);
    expect(outside('schedule', (to) => !isRoom(to) || to === 'schedule')).toEqual([]);
  });

  it('gate/ (the drift gate program, run alone as node -e in the Job) knows no other room of src/ and no npm package: node: built-ins only', () => {
    expect(outside('gate', (to) => to === 'gate' || to.startsWith('pkg:node:'))).toEqual([]);
  });

  it('no cycle between rooms, except the documented ones', () => {
    expect(cycles(roomGraph())).toEqual(DOCUMENTED_CYCLES);
  });

  it('no file of src/ imports itself through others (file by file, type imports included)', () => {
    const graph = fileGraph();
    // Not blind: the plan's imports are there, a type-only one too.
    expect(graph.get('model/plan.ts')).toEqual(expect.arrayContaining(['model/cost.ts', 'output/layout.ts', 'config/platform.ts']));
    expect(stronglyConnected(graph).filter((c) => c.length > 1)).toEqual([]);
  });

  it('finds a file cycle when there is one (the check can fail)', () => {
    const graph = new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts']], ['d.ts', ['a.ts']]]);
    expect(stronglyConnected(graph).filter((c) => c.length > 1)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
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

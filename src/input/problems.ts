/**
 * One problem found in an input file, reported as
 * `file:line:col: path: message` (see the contract's error format).
 */
export interface Problem {
  /** Path of the file, as the user would type it (relative to the working directory). */
  readonly file: string;
  /** 1-based line; 0 when the problem concerns the whole file. */
  readonly line: number;
  /** 1-based column; 0 when the problem concerns the whole file. */
  readonly col: number;
  /** Dotted field path (`teams.web.arch[0]`); empty for the whole file. */
  readonly path: string;
  /** What is wrong, what is allowed and, where not obvious, the fix. Lowercase, no trailing period. */
  readonly message: string;
  /**
   * The cluster the message is about, when it names one (`cluster prod-eu-01 runs ...`,
   * `clusters.prod-eu-01.karpenter.version`): problems that differ only in the cluster they name
   * are printed as one line with the count ({@link collapseShared}).
   * @default - about no one cluster
   */
  readonly cluster?: string;
  /**
   * The config refuses, by design, a state Karpenter's CRDs accept and a cluster may run (a static
   * pool whose limits.nodes leaves no room to replace a drifted node): `adopt` says the cluster runs
   * it, not that adoption wrote a config it should not have. @default false
   */
  readonly refusesRunningState?: boolean;
  /**
   * The problems a shared line stands for, one per cluster ({@link collapseShared}): what
   * `synth --verbose` lists one by one.
   * @default - it stands for itself
   */
  readonly grouped?: readonly Problem[];
}

/** Formats a problem as one line: `file:line:col: path: message`. */
export function formatProblem(p: Problem): string {
  const where = p.line > 0 ? `${p.file}:${p.line}:${p.col}` : p.file;
  return p.path ? `${where}: ${p.path}: ${p.message}` : `${where}: ${p.message}`;
}

/** The problems ordered by file (in order of first appearance), line and column; equal places keep their order. */
export function inFileOrder(problems: readonly Problem[]): Problem[] {
  const files = [...new Set(problems.map((p) => p.file))];
  return [...problems].sort((a, b) => files.indexOf(a.file) - files.indexOf(b.file) || a.line - b.line || a.col - b.col);
}

/** How many clusters a shared problem names before "and N more". */
const NAMED_CLUSTERS = 3;

/**
 * Every problem once: the same problem twice is printed once, and problems at the same place
 * whose messages differ only in the cluster they name (the {@link Problem.cluster} field, as a
 * whole word of the message) are one line, the first's message prefixed with the count and
 * the first few clusters: `on 80 clusters (prod-eu-01, prod-us-01, prod-ap-01 and 77 more),
 * as on the first: ...`. The order is that of each line's first problem.
 */
export function collapseShared(problems: readonly Problem[]): Problem[] {
  const groups = new Map<string, { first: Problem; clusters: string[]; members: Problem[] }>();
  for (const p of problems) {
    const named = p.cluster !== undefined && wordAt(p.message, p.cluster).length > 0 ? p.cluster : undefined;
    const message = named === undefined ? p.message : withoutWord(p.message, named);
    const key = JSON.stringify([p.file, p.line, p.col, p.path, named === undefined ? 'once' : 'per cluster', message]);
    const group = groups.get(key);
    if (!group) groups.set(key, { first: p, clusters: named === undefined ? [] : [named], members: [p] });
    else if (named !== undefined && !group.clusters.includes(named)) {
      group.clusters.push(named);
      group.members.push(p);
    }
  }
  return [...groups.values()].map(({ first, clusters, members }) => {
    if (clusters.length < 2) return first;
    const { cluster: _first, ...rest } = first;
    return { ...rest, message: `on ${clusters.length} clusters (${listed(clusters)}), as on the first: ${first.message}`, grouped: members };
  });
}

/** `a and b`, `a, b and c`, `a, b, c and 5 more`. */
function listed(names: readonly string[]): string {
  if (names.length <= NAMED_CLUSTERS) return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
  return `${names.slice(0, NAMED_CLUSTERS).join(', ')} and ${names.length - NAMED_CLUSTERS} more`;
}

/** Where `word` occurs in `text` as a whole word: not inside a longer id (ids are letters, digits and "-"). */
function wordAt(text: string, word: string): number[] {
  const at: number[] = [];
  const idChar = (c: string | undefined) => c !== undefined && /[A-Za-z0-9-]/.test(c);
  for (let i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + 1)) {
    if (!idChar(text[i - 1]) && !idChar(text[i + word.length])) at.push(i);
  }
  return at;
}

/** `text` with each whole-word `word` replaced by a mark no message holds. */
function withoutWord(text: string, word: string): string {
  let out = '';
  let from = 0;
  for (const i of wordAt(text, word)) {
    out += `${text.slice(from, i)}\u0000`;
    from = i + word.length;
  }
  return out + text.slice(from);
}

/** `problem` about `cluster` when its message names that cluster (as a whole word); else unchanged. */
export function aboutCluster(problem: Problem, cluster: string): Problem {
  return problem.cluster === undefined && wordAt(problem.message, cluster).length > 0 ? { ...problem, cluster } : problem;
}

/**
 * Thrown when the inputs are invalid. Carries every problem of the run, so the user fixes
 * them all in one go: each once, and one shared by many clusters as one line ({@link collapseShared}).
 */
export class InputError extends Error {
  public readonly problems: readonly Problem[];

  public constructor(problems: readonly Problem[]) {
    const collapsed = collapseShared(problems);
    super(collapsed.map(formatProblem).join('\n'));
    this.name = 'InputError';
    this.problems = collapsed;
  }
}

/** A path into a parsed document: map keys and list indexes. */
export type FieldPath = readonly (string | number)[];

/** Renders a field path the way users read it: `teams.web.arch[0]`. */
export function renderPath(path: FieldPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z0-9_-]+$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/**
 * The Applications Argo CD reports (`kubectl -n argocd get applications.argoproj.io -o json`),
 * read with a schema: what promotion and the rollout page read of them, and nothing they do not.
 * A file that is not such a list is a problem located at its line and field, never a promotion
 * decided on a guess (a `revisions` given as a string would match any substring of it).
 *
 * Fields, as argo-cd v3.5.1 `pkg/apis/application/v1alpha1/types.go` declares them:
 * `ApplicationSpec.Source`/`Sources` (l. 77-99), `ApplicationDestination` `server`/`name`
 * (l. 1195-1201), `SyncStatus.Revision` string and `Revisions` []string (l. 1942-1950),
 * `AppHealthStatus` (l. 1954-1963), `OperationState` (l. 1451-1465), `ApplicationCondition`
 * `type`/`message` (l. 1920-1927).
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/pkg/apis/application/v1alpha1/types.go
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { zodProblems } from '../input/issues';
import { formatProblem } from '../input/problems';
import { SourceFile } from '../input/source';

const source = z.looseObject({
  repoURL: z.string().optional(),
  path: z.string().optional(),
  chart: z.string().optional(),
  targetRevision: z.string().optional(),
});

const application = z.looseObject({
  metadata: z.looseObject({ name: z.string().min(1) }),
  spec: z.looseObject({
    source: source.optional(),
    sources: z.array(source).optional(),
    destination: z.looseObject({ server: z.string().optional(), name: z.string().optional() }).optional(),
  }).optional(),
  status: z.looseObject({
    sync: z.looseObject({ status: z.string().optional(), revision: z.string().optional(), revisions: z.array(z.string()).optional() }).optional(),
    health: z.looseObject({ status: z.string().optional(), message: z.string().optional(), lastTransitionTime: z.string().optional() }).optional(),
    operationState: z.looseObject({ phase: z.string().optional(), message: z.string().optional(), finishedAt: z.string().optional(), startedAt: z.string().optional() }).optional(),
    conditions: z.array(z.looseObject({ type: z.string(), message: z.string().optional() })).optional(),
    reconciledAt: z.string().optional(),
  }).optional(),
});

/** A list as kubectl prints it. */
const applicationList = z.looseObject({ items: z.array(application) });

/** One Application as promotion reads it. */
export type LiveApplication = z.infer<typeof application>;

/** The Applications of one file, and where they came from. */
export interface ApplicationsRead {
  /** The file as the user named it (or `stdin`). */
  readonly from: string;
  readonly items: readonly LiveApplication[];
}

/**
 * Parses one file's text. JSON.parse first (an instance's list of a thousand clusters is tens of
 * megabytes, and positions cost); only a file that fails the schema is parsed again with
 * positions, so each problem names its line.
 */
export function parseApplications(text: string, from: string): { readonly read?: ApplicationsRead; readonly problems: readonly string[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { problems: [`${from}: not JSON (${err instanceof Error ? err.message : String(err)}): give kubectl -n argocd get applications.argoproj.io -o json`] };
  }
  const located = (schema: z.ZodType, issues: readonly z.core.$ZodIssue[]) => {
    const problems = zodProblems(SourceFile.parse(text, from), schema, json, issues).map(formatProblem);
    return { problems: problems.length ? problems : [`${from}: not a list of Argo CD Applications (kubectl -n argocd get applications.argoproj.io -o json)`] };
  };
  // A List when it has items (kubectl get … -o json), else one Application (kubectl get application NAME -o json).
  if (typeof json === 'object' && json !== null && 'items' in json) {
    const list = applicationList.safeParse(json);
    return list.success ? { read: { from, items: list.data.items }, problems: [] } : located(applicationList, list.error.issues);
  }
  const one = application.safeParse(json);
  return one.success ? { read: { from, items: [one.data] }, problems: [] } : located(application, one.error.issues);
}

/** Reads each file (`-` is stdin): the files read, and every problem of every file. */
export function readApplicationsFiles(files: readonly string[], resolve: (file: string) => string): { readonly files: readonly ApplicationsRead[]; readonly problems: readonly string[] } {
  const read: ApplicationsRead[] = [];
  const problems: string[] = [];
  for (const file of files) {
    const from = file === '-' ? 'stdin' : file;
    let text: string;
    try {
      text = readFileSync(file === '-' ? 0 : resolve(file), 'utf8');
    } catch (err) {
      problems.push(`cannot read the Applications from ${from}: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    const one = parseApplications(text, from);
    problems.push(...one.problems);
    if (one.read) read.push(one.read);
  }
  return { files: read, problems };
}

/**
 * The Applications of several Argo CD instances (one file each) by name, and a problem for each
 * name found in two files: the promotion could not tell which one a cluster's is (the generator
 * names every Application after its cluster, so a name in two instances is the same file read
 * twice, or a cluster deployed by both).
 */
export function mergeApplications(files: readonly ApplicationsRead[]): { readonly byName: ReadonlyMap<string, LiveApplication>; readonly problems: readonly string[] } {
  const seen = new Map<string, string>();
  const byName = new Map<string, LiveApplication>();
  const problems: string[] = [];
  for (const { from, items } of files) {
    for (const app of items) {
      const name = app.metadata.name;
      const first = seen.get(name);
      if (first !== undefined) {
        problems.push(`Application ${name} is in ${first} and in ${from}: give each Argo CD instance's Applications once (the same file twice, or a cluster two instances deploy?)`);
        continue;
      }
      seen.set(name, from);
      byName.set(name, app);
    }
  }
  return { byName, problems };
}

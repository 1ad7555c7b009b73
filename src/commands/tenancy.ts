import type { CommandLine, CommandSpec } from '../command-line/args';
import { CONFIG_OPTION, formatOption } from '../command-line/options';
import { LiveItem, preflight, Preflight } from '../fit/preflight';
import { MAX_EXPORT_BYTES } from '../adopt/live';
import { InputError, Problem } from '../input/problems';
import { SourceFile } from '../input/source';
import { loadPlan } from '../model/checks';
import { Context, locations } from './context';
import { EXIT } from './reporter';

/** What to export for `tenancy preflight`: the objects the policies judge, and kube-system's service accounts. */
export const PREFLIGHT_EXPORT = 'kubectl get pods,podtemplates,replicationcontrollers,deployments,replicasets,statefulsets,daemonsets,jobs,cronjobs -A -o yaml';
/** The second export: who kube-controller-manager's controllers are. */
export const PREFLIGHT_IDENTITIES = 'kubectl get serviceaccounts -n kube-system -o yaml';

/** An export with nothing in it: what a kubectl that failed leaves behind. */
const EMPTY = 'the export is empty: the kubectl command failed or printed nothing; export again';

/** `npm run tenancy`: what the tenancy policies would refuse of a running cluster. */
export const spec = {
  name: 'tenancy',
  summary: 'preflight: what the tenancy policies would refuse under Deny of what a cluster runs',
  description: 'tenancy preflight --live FILE[,FILE] --cluster CLUSTER: reads what a cluster runs (FILE:\n'
    + 'kubectl get pods,podtemplates,replicationcontrollers,deployments,replicasets,statefulsets,\n'
    + 'daemonsets,jobs,cronjobs -A -o yaml; and kubectl get serviceaccounts -n kube-system -o yaml)\n'
    + 'and evaluates each object with the cluster\'s generated policies, as the API server will when\n'
    + 'the object is next applied or changed, or its controller next makes a pod: every object Deny\n'
    + 'would refuse, and whether kube-controller-manager runs the controllers under the service\n'
    + 'accounts the policies know them by. Run it before the cluster\'s tenancy action becomes Deny\n'
    + '(docs/tenancy.md).',
  argument: {
    name: 'preflight', pattern: /^preflight$/,
    missing: 'tenancy needs a subcommand: npm run tenancy -- preflight --live FILE --cluster CLUSTER',
    invalid: 'tenancy takes one subcommand: preflight',
  },
  options: [
    { name: 'live', value: 'FILE', help: 'what the cluster runs, kubectl get ... -o yaml, files comma-separated (FILE,FILE)', required: 'tenancy preflight needs --live FILE' },
    { name: 'cluster', value: 'CLUSTER', help: 'the cluster of the config the export is of (required when several clusters have a tenancy policy)' },
    formatOption(['terminal', 'json'], '; json prints one object: judged, findings, identities'),
    CONFIG_OPTION,
  ],
  examples: [
    `${PREFLIGHT_EXPORT} > prod.workloads.yaml`,
    `${PREFLIGHT_IDENTITIES} > prod.sa.yaml`,
    'npm run tenancy -- preflight --live prod.workloads.yaml,prod.sa.yaml --cluster prod',
  ],
  notes: 'exit codes: 0 nothing would be refused, 1 problems in the export or the config, 2 bad command line, 3 something would be refused (or an identity is missing)',
} as const satisfies CommandSpec;

/** `tenancy preflight`: the findings of every export file against the cluster's policies. */
export function run({ options }: CommandLine<typeof spec>, context: Context): number {
  const { say } = context;
  const { configPath } = locations(context, options);
  const problems: Problem[] = [];
  const sources = options.live.split(',').filter((f) => f !== '').flatMap((file) => {
    try {
      const docs = SourceFile.readDocuments(say.paths.resolve(file), { maxBytes: MAX_EXPORT_BYTES }, file);
      if (docs.length === 0) problems.push({ file, line: 0, col: 0, path: '', message: EMPTY });
      return docs;
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      problems.push(...err.problems);
      return [];
    }
  });
  problems.push(...sources.flatMap((s) => s.problems));
  const items = sources.flatMap((s) => itemsOf(s, problems));
  let loaded: ReturnType<typeof loadPlan> | undefined;
  try {
    loaded = loadPlan(configPath, say.loadOptions);
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    problems.push(...err.problems);
  }
  if (problems.length > 0 || !loaded) {
    for (const p of problems) say.problem(p);
    say.err(`${problems.length} problem(s) found`);
    return EXIT.failed;
  }
  const guarded = loaded.plan.clusters.filter((c) => c.tenancyPolicy !== undefined);
  const chosen = options.cluster === undefined ? (guarded.length === 1 ? guarded[0] : undefined) : loaded.plan.clusters.find((c) => c.id === options.cluster);
  if (!chosen) {
    say.err(options.cluster === undefined
      ? `tenancy preflight needs --cluster: ${guarded.length === 0 ? 'no cluster has a tenancy policy' : `clusters with a tenancy policy: ${guarded.map((c) => c.id).join(', ')}`}`
      : `no cluster ${options.cluster} in the config (its clusters: ${loaded.plan.clusters.map((c) => c.id).join(', ')})`);
    return EXIT.usage;
  }
  const policy = chosen.tenancyPolicy?.model;
  if (!policy) {
    say.out(`cluster ${chosen.id} has no tenancy policy (no team of it lists namespaces): nothing is judged`);
    return EXIT.ok;
  }
  const found = preflight(policy, items);
  if (options.format === 'json') say.out(JSON.stringify({ cluster: chosen.id, action: policy.action, ...found }, null, 2));
  else for (const line of preflightLines(chosen.id, policy.action, found)) say.out(line);
  return found.findings.length > 0 || (found.identities?.missing.length ?? 0) > 0 ? EXIT.gate : EXIT.ok;
}

/** The objects of one export document: a List's items, or the document itself. */
function itemsOf(source: SourceFile, problems: Problem[]): LiveItem[] {
  const value = source.value;
  if (value === null || value === undefined) {
    problems.push(source.problem([], EMPTY));
    return [];
  }
  const doc = typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : {};
  const items = typeof doc.kind === 'string' && doc.kind.endsWith('List') ? doc.items : [doc];
  return Array.isArray(items) ? items.filter((i): i is LiveItem => i !== null && typeof i === 'object' && !Array.isArray(i)) : [];
}

/** The terminal report. */
function preflightLines(cluster: string, action: string, found: Preflight): string[] {
  const lines = [`cluster ${cluster} (tenancy action ${action}): ${found.findings.length === 0 ? 'nothing' : `${found.findings.length} object(s)`} `
    + `the policies would refuse under Deny, of ${found.judged} judged`];
  for (const f of found.findings) {
    const when = f.when === 'next-pod' ? 'when its creator next makes a pod' : 'when it is next applied or its template changes';
    const more = f.more > 0 ? ` (and ${f.more} more pod(s) of the same creator)` : '';
    lines.push(`  ⊘ ${f.kind} ${f.namespace}/${f.name}${more}, ${when}: ${f.message}`);
  }
  if (found.identities === undefined) {
    lines.push(`identities: not checked (add the output of ${PREFLIGHT_IDENTITIES} to --live)`);
  } else if (found.identities.missing.length === 0) {
    lines.push('identities: kube-system has the service accounts of the DaemonSet and workload controllers, which the policies know their pods by');
  } else {
    lines.push(`identities: kube-system has no service account ${found.identities.missing.join(', ')}: kube-controller-manager does not run those controllers under their own `
      + 'accounts (--use-service-account-credentials), so under Deny each pod they make with a controller reference is judged by the DaemonSet rule, '
      + 'and refused when it could run on a pool its namespace may not use (docs/tenancy.md)');
  }
  return lines;
}

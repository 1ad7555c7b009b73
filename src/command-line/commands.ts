import { version } from '../../package.json';
import { CHART_VERSION } from '../release/chart-values-keys.generated';
import { CommandSpec, OptionSpec } from './args';

/** The exit codes of every command (contract sections 3 and 5.4). */
export const EXIT_CODES_NOTE = 'exit codes: 0 done, 1 failed (input problems, nothing written), 2 bad command line';

const CONFIG: OptionSpec = {
  name: 'config', value: 'FILE',
  help: 'the platform config, from where you run npm (default: config/platform.yaml)',
};
/** `--outdir DIR`: where dist/ and argocd/ are, said as what the command does with them. */
const outdirOption = (does: string): OptionSpec => ({
  name: 'outdir', value: 'DIR',
  help: `${does}, DIR from where you run npm (default: the repository root)`,
});
/**
 * `--cluster`, `--stage` and `--group`: which clusters fit and explain look at, each a
 * comma-separated list (the parser keeps the last of a repeated option); a cluster is chosen
 * when it meets every option given (model/cluster-sets.ts selectClusters).
 */
const SELECT_OPTIONS: readonly OptionSpec[] = [
  { name: 'cluster', value: 'CLUSTER', help: 'only these clusters: an id, or ids comma-separated (a,b)' },
  { name: 'stage', value: 'STAGE', help: 'only the clusters at these stages (2, or 2,3)' },
  { name: 'group', value: 'GROUP', help: 'only the clusters in these groups (prod, or prod-eu,prod-us); options given together must all hold' },
];
const formatOption = (choices: readonly string[], help: string): OptionSpec => ({
  name: 'format', value: 'FORMAT', choices, noun: 'format', help: `${choices.join(' or ')} (default: terminal)${help}`,
});

/** The commands `run` takes; `upgrade` has its own (src/upgrade/command.ts). */
export const COMMAND_SPECS = {
  synth: {
    name: 'synth',
    summary: 'validate the config and write dist/ and argocd/ (the default command)',
    description: 'Reads the platform config and every Terraform outputs file it names, reports every problem at once\n'
      + '(nothing is written then), and makes dist/ and argocd/ hold exactly the generated files: new and\n'
      + 'changed files written, files of removed pools removed. Prints any warnings and a short summary: how\n'
      + 'many clusters and pools, which clusters\' files changed, the files removed, and the files written,\n'
      + 'removed and unchanged.',
    options: [
      CONFIG, outdirOption('write DIR/dist and DIR/argocd'),
      { name: 'verbose', help: 'also print a row per pool (cluster, pool, arch, capacity, instance types, nodes, limits) and every file removed' },
    ],
    examples: ['npm run synth', 'npm run synth -- --config staging/platform.yaml --outdir staging', 'npm run synth -- --verbose'],
    notes: EXIT_CODES_NOTE,
  },
  check: {
    name: 'check',
    summary: 'exit 1 when dist/ or argocd/ differ from a fresh synth (the CI drift check)',
    description: 'Synthesizes in memory and compares with dist/ and argocd/ on disk, naming every stale, missing or\n'
      + 'extra file with a short diff. Writes nothing.',
    options: [CONFIG, outdirOption('compare DIR/dist and DIR/argocd on disk (nothing is written)')],
    examples: ['npm run check'],
    notes: 'exit codes: 0 up to date, 1 differs (or input problems), 2 bad command line',
  },
  diff: {
    name: 'diff',
    summary: 'what the working tree changes against a git ref (or what runs), by cluster, resource and field, loudest first',
    description: 'Compares dist/ and argocd/ as committed at REF with a fresh synth of the working tree; with --live,\n'
      + 'compares what a cluster runs (an export of its NodePools, EC2NodeClasses and NodeOverlays) with what the\n'
      + 'config makes for it. Each change says whether it deletes pools, replaces nodes, changes capacity or the\n'
      + 'controller, and why.',
    options: [
      { name: 'base', value: 'REF', help: 'the git ref to compare with, e.g. origin/main (this or --live)' },
      { name: 'live', value: 'FILE', help: 'instead of a ref: what runs, kubectl get nodepools.karpenter.sh,ec2nodeclasses.karpenter.k8s.aws,nodeoverlays.karpenter.sh -o yaml (with --cluster)' },
      { name: 'cluster', value: 'CLUSTER', help: 'with --live: the cluster the export is of' },
      CONFIG, outdirOption('compare DIR/dist and DIR/argocd as committed at REF (nothing is written)'),
      formatOption(['terminal', 'markdown'], '; markdown writes a PR comment'),
      { name: 'full', help: 'list every changed field (default: the first 8 of each resource)' },
      {
        name: 'fail-on', value: 'CLASS', choices: ['destructive', 'replaces-nodes', 'cost'], noun: 'class',
        help: 'destructive or replaces-nodes: exit 3 when the report holds a change of that class or a louder one; cost: exit 3 when a team\'s cost ceiling rises',
      },
      { name: 'report-url', value: 'URL', help: 'with --format markdown: where the full report is, linked when the comment is shortened' },
    ],
    examples: ['npm run diff -- --base origin/main', 'npm run diff -- --base origin/main --format markdown --fail-on destructive', 'npm run diff -- --live prod.live.yaml --cluster prod --fail-on replaces-nodes'],
    notes: 'exit codes: 0 done, 1 failed, 2 bad command line, 3 --fail-on found a change of that class or louder',
  },
  explain: {
    name: 'explain',
    summary: 'every resolved field of a pool with the level that set it, its instance types, prices and cost bound',
    description: 'Prints each field of the pool after inheritance with the level and the line that set it, the\n'
      + 'instance types it admits, their on-demand price range and the most the pool can cost per hour.\n'
      + 'POOL alone explains it on every cluster that has it (or those --cluster, --stage and --group\n'
      + 'choose), once for each set of clusters where it is the same.',
    argument: {
      name: '[CLUSTER/]POOL', pattern: /^(?:[^/]+\/)?[^/]+$/,
      missing: 'explain needs a pool: CLUSTER/POOL, or POOL (with --cluster, --stage or --group to choose clusters), e.g. npm run explain -- demo/web',
      invalid: 'explain takes CLUSTER/POOL or POOL, e.g. npm run explain -- demo/web',
    },
    options: [CONFIG, ...SELECT_OPTIONS, formatOption(['terminal', 'json'], '; json prints one object')],
    examples: ['npm run explain -- demo/web', 'npm run explain -- demo/ml-gpu --format json', 'npm run explain -- checkout --group prod'],
    notes: EXIT_CODES_NOTE,
  },
  fit: {
    name: 'fit',
    summary: 'which clusters and pools each workload of a manifest can run on, and why not the others',
    description: 'For each Pod, Deployment, StatefulSet, DaemonSet, Job or CronJob in MANIFEST (a YAML file, relative\n'
      + 'to where you run npm): every cluster and pool it can schedule on, and the first reason each other\n'
      + 'pool rejects it; only on the clusters --cluster, --stage and --group choose, when given. Exits 0\n'
      + 'even when nothing fits: it answers a question, it is not a gate.',
    argument: { name: 'MANIFEST', missing: 'fit needs a MANIFEST: a YAML file of Kubernetes objects' },
    options: [CONFIG, ...SELECT_OPTIONS, formatOption(['terminal', 'json'], '; json prints one object')],
    examples: ['npm run fit -- shop.yaml', 'npm run fit -- shop.yaml --format json', 'npm run fit -- shop.yaml --cluster prod-eu-01'],
    notes: 'exit codes: 0 answered, 1 problems in the manifest or the config, 2 bad command line',
  },
  init: {
    name: 'init',
    summary: 'make the cloned repository yours: config/ becomes your first cluster, the example goes',
    description: 'Replaces config/platform.yaml with a fleet of one cluster, CLUSTER, that reads\n'
      + 'terraform/CLUSTER.json: the gitops block, the Karpenter release the generator targets and one\n'
      + 'example team. Copies FILE (the cluster\'s `terraform output -json`, from where you run npm) to\n'
      + 'config/terraform/CLUSTER.json and removes the example\'s files. Checks everything first: on any\n'
      + 'problem nothing is written. Refuses when config/ is no longer the untouched example (which\n'
      + 'config/example.sha256 describes) unless --force. Then npm run synth replaces the example\'s dist/\n'
      + 'and argocd/ with your fleet\'s (docs/making-it-yours.md).',
    argument: {
      name: 'CLUSTER',
      missing: 'init needs the id of your first cluster, e.g. npm run init -- lab --terraform lab.json',
    },
    options: [
      {
        name: 'terraform', value: 'FILE', required: 'init needs --terraform FILE: the cluster\'s `terraform output -json` saved in a file',
        help: 'the cluster\'s `terraform output -json`, from where you run npm (required)',
      },
      { name: 'repo', value: 'URL', help: 'gitops.repoURL, where Argo CD reads dist/ (default: config/platform.yaml\'s)' },
      { name: 'force', help: 'replace config/platform.yaml even when config/ is not the example (other files stay)' },
    ],
    examples: [
      'npm run init -- lab --terraform ../infra/lab.json',
      'npm run init -- lab --terraform lab.json --repo https://github.com/acme/platform-gitops.git',
    ],
    notes: 'exit codes: 0 done, 1 failed (problems, or config/ not the example: nothing written), 2 bad usage',
  },
  adopt: {
    name: 'adopt',
    summary: 'take over a cluster that already runs Karpenter: write the config that makes exactly what runs',
    description: 'Reads FILE, what `kubectl get nodepools.karpenter.sh,ec2nodeclasses.karpenter.k8s.aws,nodeoverlays.karpenter.sh\n'
      + '-o yaml` prints for CLUSTER (an entry of config/platform.yaml), and writes the config under which synth makes,\n'
      + 'for that cluster, exactly those objects: the same names, the same specs once the CRD defaults apply, nothing\n'
      + 'of the generator\'s own (an adopted team). With --helm-values, the controller keeps the running release\'s\n'
      + 'values. Checks the result against FILE and every other cluster\'s files before it writes; on any problem\n'
      + 'nothing is written (docs/adopting.md).',
    argument: { name: 'CLUSTER', missing: 'adopt needs a CLUSTER of config/platform.yaml, e.g. npm run adopt -- prod --live live.yaml' },
    options: [
      { name: 'live', value: 'FILE', required: 'adopt needs --live FILE: kubectl get nodepools.karpenter.sh,ec2nodeclasses.karpenter.k8s.aws,nodeoverlays.karpenter.sh -o yaml > FILE', help: 'the cluster\'s NodePools, EC2NodeClasses and NodeOverlays as kubectl prints them, from where you run npm (required)' },
      { name: 'helm-values', value: 'FILE', help: 'helm get values karpenter -n NS -o yaml: the running controller\'s user-supplied values' },
      { name: 'namespace', value: 'NS', help: 'the namespace the running release is in (default: the config\'s karpenter.namespace)' },
      { name: 'team', value: 'TEAM', help: 'the team the NodePools become the pools of (default: platform); clusters of one shape share one' },
      CONFIG,
    ],
    examples: [
      'kubectl get nodepools.karpenter.sh,ec2nodeclasses.karpenter.k8s.aws,nodeoverlays.karpenter.sh -o yaml > prod.live.yaml',
      'helm get values karpenter -n kube-system -o yaml > prod.values.yaml',
      'npm run adopt -- prod --live prod.live.yaml --helm-values prod.values.yaml',
    ],
    notes: EXIT_CODES_NOTE,
  },
  promote: {
    name: 'promote',
    summary: 'exit 0 and print the git push that promotes SHA to STAGE when the stage before has it, healthy, soaked',
    description: 'Reads the Applications Argo CD reports (FILE: `kubectl -n argocd get applications.argoproj.io\n'
      + '-o json`, one file per Argo CD instance, comma-separated, or - for stdin). When every automated\n'
      + 'Application of every cluster of stage STAGE-1 (its root, CRDs, controller, policies, pools, overlays\n'
      + 'and drift gate) is Synced at SHA and Healthy (its drift gate done: no drifted node left), the\n'
      + 'stage\'s soak (gitops.stages) has passed since the last of them became so, as Argo CD recorded it,\n'
      + 'and the main branch (--main REF) still has SHA\'s files for the clusters of STAGE, prints the\n'
      + 'command that moves the stage ref, git push origin SHA:refs/heads/<gitops.stageRefPrefix>STAGE, and\n'
      + 'the GitHub environment to push in; otherwise names what holds it back, and why. `promote plan`\n'
      + 'prints the Argo CD instances and the stages, for the promote workflow (docs/windows.md).',
    argument: {
      name: 'STAGE|plan', pattern: /^(?:[0-9]+|plan)$/,
      missing: 'promote needs a STAGE, e.g. npm run promote -- 2 --revision SHA --applications apps.json, or plan',
      invalid: 'promote takes a STAGE, a number such as 2, or plan',
    },
    options: [
      { name: 'revision', value: 'SHA', help: 'the commit to promote (required with STAGE)' },
      { name: 'applications', value: 'FILE', help: 'kubectl -n argocd get applications.argoproj.io -o json, one file per Argo CD instance, comma-separated (FILE,FILE), or - for stdin (required with STAGE)' },
      { name: 'main', value: 'REF', help: 'the main branch: SHA is promoted only while it still has SHA\'s files for the stage\'s clusters (default origin/HEAD, else origin/main)' },
      { name: 'now', value: 'TIME', help: 'the time the soak is measured up to, e.g. 2027-01-12T09:00:00Z (default: the clock)' },
      formatOption(['terminal', 'json'], '; json prints one object: ready, blockers, push, environment, soak left (the promote workflow reads it)'),
      outdirOption('the git repository whose dist/ and argocd/ are compared at SHA and on the main branch'),
      CONFIG,
    ],
    examples: [
      'kubectl -n argocd get applications.argoproj.io -o json | npm run --silent promote -- 2 --revision "$(git rev-parse HEAD)" --applications -',
      'npm run --silent promote -- 3 --revision SHA --applications eu.json,us.json --format json',
      'npm run --silent promote -- plan --format json',
    ],
    notes: 'exit codes: 0 ready (the command is printed), 1 not ready or problems, 2 bad command line or no cluster at STAGE',
  },
} as const satisfies Record<string, CommandSpec>;

/** A command `run` takes. */
export type CommandName = keyof typeof COMMAND_SPECS;

/** What `--version` prints: this tool's version and the Karpenter release it generates for. */
export function versionText(): string {
  return `karpenter-gitops ${version} (generates for Karpenter ${CHART_VERSION})`;
}

/** The help of `npm run synth -- --help`'s parent: every command, one line each. */
export function overviewHelp(commands: readonly CommandSpec[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 3;
  return [
    versionText(),
    'Karpenter NodePools, controller values and Argo CD Applications from one platform config.',
    '',
    'usage: npm run COMMAND [-- ARGUMENTS AND OPTIONS]',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    '`npm run COMMAND -- --help` shows the options of one command and an example.',
    '--version prints the version of karpenter-gitops and of Karpenter it generates for.',
  ].join('\n');
}

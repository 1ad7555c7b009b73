/** The exit codes of most commands (contract sections 3 and 5.4). */
export const EXIT_CODES_NOTE = 'exit codes: 0 done, 1 failed (input problems, nothing written), 2 bad command line';

/** `--config FILE`: the platform config. */
export const CONFIG_OPTION = {
  name: 'config', value: 'FILE',
  help: 'the platform config, from where you run npm (default: config/platform.yaml)',
} as const;

/** `--outdir DIR`: where dist/ and argocd/ are, said as what the command does with them. */
export function outdirOption(does: string) {
  return { name: 'outdir', value: 'DIR', help: `${does}, DIR from where you run npm (default: the repository root)` } as const;
}

/**
 * `--cluster`, `--stage` and `--group`: which clusters fit and explain look at, each a
 * comma-separated list (the parser keeps the last of a repeated option); a cluster is chosen
 * when it meets every option given (model/cluster-sets.ts selectClusters).
 */
export const SELECT_OPTIONS = [
  { name: 'cluster', value: 'CLUSTER', help: 'only these clusters: an id, or ids comma-separated (a,b)' },
  { name: 'stage', value: 'STAGE', help: 'only the clusters at these stages (2, or 2,3)' },
  { name: 'group', value: 'GROUP', help: 'only the clusters in these groups (prod, or prod-eu,prod-us); options given together must all hold' },
] as const;

/** `--format FORMAT`, one of `choices`; terminal is the default. */
export function formatOption<const C extends readonly string[]>(choices: C, help: string) {
  return { name: 'format', value: 'FORMAT', choices, noun: 'format', help: `${choices.join(' or ')} (default: terminal)${help}` } as const;
}

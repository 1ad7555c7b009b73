import { stringify } from 'yaml';
import { KUBERNETES_AMIS } from '../release/ami-releases';

/** The `gitops` block of the fleet `init` writes. */
export interface GitopsBlock {
  /** The repository Argo CD reads `dist/` from. */
  readonly repoURL: string;
  /** The branch Argo CD follows. @default "main" */
  readonly targetRevision?: string;
  /** Argo CD's namespace. @default - unset: the schema's default, argocd */
  readonly argocdNamespace?: string;
  /** The Argo CD AppProject. @default - unset: the schema's default, default */
  readonly project?: string;
}

/** Properties of {@link firstFleet}. */
export interface FirstFleetProps {
  /** The cluster id: the key under `clusters`, and `terraform/<cluster>.json`. */
  readonly cluster: string;
  readonly gitops: GitopsBlock;
  /** `karpenter.version`: the release the generator is built for. */
  readonly karpenterVersion: string;
  /** `defaults.ami.alias`. @default - {@link newestKnownAl2023} */
  readonly amiAlias?: string;
}

/** The id of the example team of the first fleet. */
export const FIRST_TEAM = 'apps';

/**
 * The newest AL2023 release the generator knows of (the first built for the newest Kubernetes
 * version in src/release/ami-releases.ts): EKS builds each release for every supported version,
 * so it exists for any cluster the generator accepts.
 */
export function newestKnownAl2023(): string {
  const releases = Object.values(KUBERNETES_AMIS).map((a) => a.al2023).sort();
  return `al2023@${releases[releases.length - 1]}`;
}

/**
 * The `config/platform.yaml` of a repository made one's own: one cluster, the `gitops` block,
 * the Karpenter release the generator targets, and one example team with a default pool and
 * limits, with comments that say what each part is and where its documentation is.
 */
export function firstFleet(props: FirstFleetProps): string {
  const { cluster, gitops } = props;
  const yaml = (value: unknown) => stringify(value).trimEnd();
  const optional = (key: keyof GitopsBlock) => (gitops[key] === undefined ? [] : [`  ${key}: ${yaml(gitops[key])}`]);
  return [
    '# yaml-language-server: $schema=../schema/platform.schema.json',
    '# Your fleet. `npm run synth` turns this file into dist/ and argocd/ (commit the three together);',
    '# `npm run check` fails when they are out of date. Written by `npm run init`: edit it freely.',
    '# Every field and its default: docs/config.md. More clusters, Argo CD and delivery: docs/fleets.md.',
    '# How the repository became yours and what to commit: docs/making-it-yours.md.',
    '',
    '# Where Argo CD reads the generated files: this repository, as Argo CD clones it.',
    'gitops:',
    `  repoURL: ${yaml(gitops.repoURL)}`,
    `  targetRevision: ${yaml(gitops.targetRevision ?? 'main')}`,
    ...optional('argocdNamespace'),
    ...optional('project'),
    '',
    '# The Karpenter release the clusters run: the one this generator is built for.',
    '# `npm run upgrade -- VERSION` moves the generator to a newer release (docs/upgrades.md).',
    'karpenter:',
    `  version: ${props.karpenterVersion}`,
    '',
    '# One entry per EKS cluster: the key names dist/<cluster>/ and the cluster\'s Argo CD Applications.',
    '# Its node role, interruption queue and Kubernetes version come from `terraform output -json`,',
    '# saved in the file named here, relative to this file (docs/config.md, Terraform outputs).',
    '# Adding a cluster: docs/fleets.md, Adding a cluster, end to end.',
    'clusters:',
    `  ${cluster}:`,
    `    terraformOutputs: terraform/${cluster}.json`,
    '',
    '# Pool fields every team inherits; a team, or one of its pools, overrides them.',
    'defaults:',
    '  # The AMI release the nodes run. Moving the pin replaces every node, so move it on purpose',
    '  # (docs/upgrades.md, Kubernetes versions and AMI pins).',
    '  ami:',
    `    alias: ${props.amiAlias ?? newestKnownAl2023()}`,
    '',
    '# One entry per team. Each gets a NodePool and an EC2NodeClass named after it, tainted',
    '# dedicated=<team>:NoSchedule: only workloads that tolerate the taint land on its nodes.',
    'teams:',
    '  # An example to rename to your first team: on-demand amd64 nodes of current generations;',
    '  # the limits cap what the pool can run at once. owner and costCenter become EC2 tags.',
    `  ${FIRST_TEAM}:`,
    '    # owner: apps@example.com',
    '    instanceCategories: [c, m, r]',
    '    instanceGeneration: { gt: 5 }',
    '    limits: { cpu: "32", memory: 128Gi }',
    '',
  ].join('\n');
}

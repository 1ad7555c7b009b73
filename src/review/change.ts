/** What the review says of a pull request: its changes, resource by resource and cluster by cluster. */
import type { CostChange } from './cost';
import type { FieldChange, Risk } from './risk';
import type { Resource } from './tree';
import type { WindowChange } from './windows';

/** What a pull request does to one resource, classified. */
export interface Change {
  readonly risk: Risk;
  /** The resource as it is after the change (as it was, for a removal). */
  readonly resource: Resource;
  readonly action: 'added' | 'removed' | 'changed';
  /** What happens on the cluster, in a few words a reviewer understands. */
  readonly why: string;
  /** The fields behind this class (changed resources only), each with its own why. */
  readonly fields: readonly FieldChange[];
  /** For node replacements: the disruption budgets that pace the rollout. @default - not a node replacement */
  readonly pacedBy?: string;
}

/** A whole cluster that a pull request adds or removes. */
export interface ClusterChange {
  readonly cluster: string;
  readonly action: 'added' | 'removed';
  /** A likely rename, when a removed and an added cluster run on the same EKS cluster. @default - none */
  readonly note?: string;
  /** Its stage (null: none), as the summary data of the side it is on says (the base's for a removal). @default - unknown: no summary data */
  readonly stage?: number | null;
  /** Its window's name (null: none), as that summary data says. @default - unknown: no summary data */
  readonly window?: string | null;
}

/** Everything a pull request does to the fleet. */
export interface Review {
  /** Grouped by cluster (clusters with the loudest change first, the fleet last among equals), loudest class first within each. */
  readonly changes: readonly Change[];
  readonly clusters: readonly ClusterChange[];
  /** Teams whose cost ceiling changes (dist/summary.json at both refs). @default - none */
  readonly costs?: readonly CostChange[];
  /** What the review could not compare, and why (a ref without readable summary data). @default - none */
  readonly notes?: readonly string[];
  /** Clusters whose window changes, as the config says it (dist/summary.json at both refs). @default - none */
  readonly windows?: readonly WindowChange[];
}

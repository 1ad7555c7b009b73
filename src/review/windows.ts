import type { SummaryData, SummaryDataCluster } from '../model/summary-data';
import { compareRelease } from '../release/versions';
import { clusterLayout } from '../output/layout';
import { DAYS, type Day } from '../schedule/windows';
import type { GeneratedTree } from './tree';

/** A cluster whose root starts tracking a stage ref in this change (`stage` set, or changed). */
export interface StageAdoption {
  readonly cluster: string;
  /** The ref the root tracks at the head. */
  readonly ref: string;
  /** The ref it tracked at the base. */
  readonly was: string;
}

/** The clusters whose root (the layout's `argocd/<cluster>.yaml`, never the bootstrap) tracks another git revision at the head: a cluster moving onto (or between) stage refs, or a new `gitops.targetRevision`. */
export function stageAdoptions(base: GeneratedTree, head: GeneratedTree): StageAdoption[] {
  const revision = (tree: GeneratedTree, file: string) => tree.resourcesIn(file).filter((r) => r.kind === 'Application')
    .map((r) => ((r.body.spec as { source?: { targetRevision?: string } } | undefined)?.source?.targetRevision))[0];
  const out: StageAdoption[] = [];
  // Only the clusters' roots: argocd/bootstrap.yaml and the other fleet files are not a cluster's.
  for (const cluster of [...head.clusters()].sort()) {
    const file = clusterLayout(cluster).root;
    if (!base.files.has(file) || !head.files.has(file) || base.files.get(file) === head.files.get(file)) continue;
    const [was, ref] = [revision(base, file), revision(head, file)];
    if (was !== undefined && ref !== undefined && was !== ref) out.push({ cluster, ref, was });
  }
  return out;
}

/**
 * What a cluster moving onto a stage ref gets at merge (docs/windows.md, adopting stages): its
 * root then syncs everything of the cluster from that ref. A ref that does not exist yet holds
 * the cluster as it is until `npm run promote` creates it; a ref at another commit than the base
 * rolls the cluster to that commit's files, which may be older than what it runs: flagged.
 * `refCommit` is the commit the ref names (undefined: none); `baseCommit` the base's.
 */
export function stageAdoptionLine(a: StageAdoption, refCommit: string | undefined, baseCommit: string): string {
  if (refCommit === undefined) {
    return `cluster ${a.cluster}: its root now tracks ${a.ref} (was ${a.was}), which does not exist yet: the cluster keeps what it runs until npm run promote creates the ref; a missing ref is shown as "waits for its stage ref"`;
  }
  if (refCommit === baseCommit) return `cluster ${a.cluster}: its root now tracks ${a.ref} (was ${a.was}), at the base commit ${baseCommit.slice(0, 12)}: nothing rolls back`;
  return `WARNING: cluster ${a.cluster}: its root now tracks ${a.ref} (was ${a.was}), which is at ${refCommit.slice(0, 12)}, not the base ${baseCommit.slice(0, 12)}: `
    + `at merge the cluster syncs that commit's files, rolling back what it runs; first move the ref: git push origin ${baseCommit}:refs/heads/${a.ref}`;
}

/** A window as `dist/summary.json` holds it. */
type DataWindow = NonNullable<SummaryDataCluster['window']>;

/** A cluster's window before and after the change, as the summary data at both refs says it. */
export interface WindowChange {
  readonly cluster: string;
  /** null: the cluster had no window. */
  readonly before: DataWindow | null;
  /** null: it has none now. */
  readonly after: DataWindow | null;
}

/**
 * The clusters (on both sides) whose window changes: its name, zone, days, start or duration.
 * A window's compiled form (the Drifted budgets of every NodePool, the AppProject's sync
 * windows) is in the review as the resources it changes, in UTC cron; this says it as the
 * config does.
 */
export function windowChanges(base: SummaryData, head: SummaryData): WindowChange[] {
  const was = new Map(base.clusters.map((c) => [c.id, c.window]));
  const key = (w: DataWindow | null) => (w === null ? 'none' : JSON.stringify([w.name, w.timeZone, w.days, w.start, w.duration]));
  return head.clusters.flatMap((c) => {
    // A cluster added is said as added, with its window.
    if (!was.has(c.id)) return [];
    const before = was.get(c.id) ?? null;
    return key(before) === key(c.window) ? [] : [{ cluster: c.id, before, after: c.window }];
  });
}

/** `Mon–Thu 22:00 for 6h`: a window's days (runs of three or more as a range), start and duration, as the config writes them. */
export function windowText(w: DataWindow): string {
  const days = new Set(w.days);
  const on = DAYS.map((d) => days.has(d));
  // Start after a day off, so a run across Saturday→Sunday reads as one (`Fri–Mon`).
  const first = on.indexOf(false) < 0 ? 0 : (on.indexOf(false) + 1) % 7;
  const runs: Day[][] = [];
  for (let i = 0; i < 7; i++) {
    const d = DAYS[(first + i) % 7];
    if (!days.has(d)) continue;
    const run = runs[runs.length - 1];
    if (run && DAYS[(DAYS.indexOf(run[run.length - 1]) + 1) % 7] === d) run.push(d);
    else runs.push([d]);
  }
  const title = (d: Day) => `${d[0].toUpperCase()}${d.slice(1)}`;
  const said = runs.flatMap((r) => (r.length >= 3 ? [`${title(r[0])}–${title(r[r.length - 1])}`] : r.map(title)));
  return `${said.join(', ')} ${w.start} for ${w.duration}`;
}

/**
 * A window change as the config says it, with the UTC minutes kept before and after:
 * `window eu (Europe/Berlin): Mon–Thu 22:00 for 6h -> Sun–Thu 23:00 for 4h; kept UTC mon 21:00-tue 02:00, … -> …`.
 */
export function windowChangeText(c: WindowChange): string {
  const { before, after } = c;
  if (before === null && after === null) return 'no window';
  if (before === null) return `window none -> ${after!.name} (${after!.timeZone}): ${windowText(after!)}; kept UTC ${after!.keptUtc.join(', ')}: its pools sync, and its drifted nodes are replaced, only then`;
  if (after === null) return `window ${before.name} (${before.timeZone}): ${windowText(before)} -> none: its pools sync, and its drifted nodes are replaced, at any time`;
  const names = before.name === after.name ? before.name : `${before.name} -> ${after.name}`;
  const times = before.timeZone === after.timeZone
    ? ` (${after.timeZone}): ${windowText(before)} -> ${windowText(after)}`
    : `: ${windowText(before)} (${before.timeZone}) -> ${windowText(after)} (${after.timeZone})`;
  return `window ${names}${times}; kept UTC ${before.keptUtc.join(', ')} -> ${after.keptUtc.join(', ')}`;
}

/**
 * What a change of `compute` means for a cluster (docs/auto-mode.md), said as a note of the
 * review: the move to EKS Auto Mode is done in steps, and each says what it needs and does.
 */
export function computeNotes(base: SummaryData, head: SummaryData): string[] {
  const was = new Map(base.clusters.map((c) => [c.id, c.compute ?? 'karpenter']));
  return head.clusters.flatMap((c) => {
    const before = was.get(c.id);
    const after = c.compute ?? 'karpenter';
    if (before === undefined || before === after) return [];
    const said = `cluster ${c.id}: compute ${before} -> ${after}`;
    if (before === 'karpenter' && after === 'both') {
      return [`${said}: it starts moving to EKS Auto Mode. Turn Auto Mode on for it first, with its built-in system pool (the controller is pinned there) and without general-purpose; each pool gets an Auto Mode twin <pool>-auto, tainted eks-auto-mode:NoSchedule, so nothing moves until workloads tolerate it (docs/auto-mode.md)`];
    }
    if (before === 'both' && after === 'autoMode') {
      return [`${said}: the move to EKS Auto Mode ends. Its self-managed pools go with its controller and the CRDs' Application (without finalizer: the shared CRDs stay, EKS's). `
        + 'The controller goes at merge, the pools when their Application syncs: a node still on them then keeps its finalizer with no controller to drain it. Merge only once the old pools hold no node (the workloads moved, and their empty nodes consolidated away); their remaining nodes would drain (see the destructive lines)'];
    }
    if (before === 'karpenter' && after === 'autoMode') {
      return [`${said} in one step: its pools are deleted (every node drains) and its controller removed in the same sync, with no Auto Mode pool ready beside them; move through compute: both (docs/auto-mode.md)`];
    }
    return [`${said}: Karpenter on this cluster changes hands (docs/auto-mode.md)`];
  });
}

/**
 * What `karpenter.besideAutoMode` and a new Karpenter version mean where EKS Auto Mode runs beside
 * the cluster's own controller (docs/auto-mode.md, "The shared CRDs"): the CRDs' Application is
 * held there, so a new release's EC2NodeClass CRD is installed by a person, before the
 * controller rolls (Karpenter's upgrade guide: the CRDs first), with Argo CD's selective sync
 * (`argocd app sync --revision`, `--resource GROUP:KIND:NAME`: argo-cd
 * cmd/argocd/commands/app.go l. 2062-2063).
 */
export function sharedCrdNotes(base: SummaryData, head: SummaryData): string[] {
  const was = new Map(base.clusters.map((c) => [c.id, c]));
  return head.clusters.flatMap((c) => {
    const before = was.get(c.id);
    if (before === undefined) return [];
    const notes: string[] = [];
    // Beside Auto Mode (karpenter.besideAutoMode): CRDs held on a cluster of its own controller alone.
    const beside = (x: SummaryDataCluster) => x.heldCrdApplication !== undefined && x.compute === undefined;
    const [wasBeside, isBeside] = [beside(before), beside(c)];
    if (!wasBeside && isBeside && before.compute === undefined) {
      notes.push(`cluster ${c.id}: besideAutoMode: EKS Auto Mode runs beside its controller. Its CRDs' Application ${c.heldCrdApplication} stops syncing and loses its resources finalizer `
        + '(EKS manages nodepools.karpenter.sh and nodeclaims.karpenter.sh there); the NodePools of Auto Mode are EKS\'s, and no pool of the config changes');
    }
    if (wasBeside && !isBeside && c.compute === undefined) {
      notes.push(`cluster ${c.id}: besideAutoMode off: its CRDs' Application ${before.heldCrdApplication} syncs the karpenter-crd chart again, over the CRDs EKS manages while Auto Mode runs there; `
        + 'merge only once Auto Mode is off on the cluster (its NodePools gone)');
    }
    const held = before.heldCrdApplication !== undefined && c.heldCrdApplication !== undefined;
    if (!held || before.karpenterVersion === c.karpenterVersion) return notes;
    if (compareRelease(c.karpenterVersion, before.karpenterVersion) < 0) {
      notes.push(`cluster ${c.id}: Karpenter ${before.karpenterVersion} -> ${c.karpenterVersion}, and its CRDs' Application does not sync there (EKS Auto Mode manages the karpenter.sh CRDs): `
        + `the EC2NodeClass CRD stays that of ${before.karpenterVersion} unless someone syncs it by hand`);
    } else {
      notes.push(`cluster ${c.id}: Karpenter ${before.karpenterVersion} -> ${c.karpenterVersion}, but its CRDs' Application does not sync there (EKS Auto Mode manages the karpenter.sh CRDs): `
        + `install the EC2NodeClass CRD of ${c.karpenterVersion} by hand before its controller rolls (when this change reaches the cluster, said above): `
        + `argocd app sync ${c.heldCrdApplication} --revision ${c.karpenterVersion} --resource apiextensions.k8s.io:CustomResourceDefinition:ec2nodeclasses.karpenter.k8s.aws`);
    }
    return notes;
  });
}

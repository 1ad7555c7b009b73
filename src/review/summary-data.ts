/**
 * The review reads each ref's plan as data: `dist/summary.json` and the clusters' own
 * `dist/<cluster>/summary.json` (src/model/summary-data.ts, docs/review.md), never
 * `dist/SUMMARY.md`'s prose, whose wording is free to change. A cluster's pools are read only
 * when its file is in the tree as read: a review scoped to the clusters a change touches
 * (review/scope.ts) reads theirs, not the fleet's.
 */
import { ClusterSummaryData, SUMMARY_DATA_VERSION, SummaryData, SummaryDataPool } from '../model/summary-data';
import { clusterLayout, FLEET_FILES } from '../output/layout';
import type { GeneratedTree } from './tree';

/** The versions this review reads: 1 (each cluster's pools in the fleet's file) and 2 (in the cluster's own). */
const READABLE = [1, SUMMARY_DATA_VERSION];

const SUMMARY_DATA_PATH = FLEET_FILES.summaryData;

/** A tree's summary data, or why it has none it can read. */
export type SummaryRead = { readonly data: SummaryData } | { readonly missing: string };

/**
 * The summary data of a tree: none when the tree has no `dist/summary.json` (generated before
 * karpenter-gitops wrote one), or one of a version this review does not know.
 */
export function summaryDataOf(tree: GeneratedTree): SummaryRead {
  // Read once per tree: the cost, Kubernetes, hash-version and rollout parts of a review all ask.
  const known = reads.get(tree);
  if (known) return known;
  const read = readSummaryData(tree);
  reads.set(tree, read);
  return read;
}

const reads = new WeakMap<GeneratedTree, SummaryRead>();

/**
 * The last texts read, by text: a pull request that leaves the summary data as it was (one
 * cluster's values, say) has the same text on both sides, parsed once; at a thousand clusters it
 * is megabytes of JSON, the bulk of a small review's memory.
 */
const byText = new Map<string, SummaryData>();

function readSummaryData(tree: GeneratedTree): SummaryRead {
  const text = tree.files.get(SUMMARY_DATA_PATH);
  if (text === undefined) return { missing: `${tree.where} has no ${SUMMARY_DATA_PATH} (generated before karpenter-gitops wrote it)` };
  const known = byText.get(text);
  if (known) return { data: withPools(known, tree) };
  let data: Partial<SummaryData>;
  try {
    data = JSON.parse(text) as Partial<SummaryData>;
  } catch (err) {
    return { missing: `${SUMMARY_DATA_PATH} of ${tree.where} is not JSON (${(err as Error).message}): run npm run synth on it` };
  }
  if (!READABLE.includes(Number(data.summaryVersion))) {
    return { missing: `${SUMMARY_DATA_PATH} of ${tree.where} is version ${String(data.summaryVersion)}, not ${READABLE.join(' or ')}, which this review reads: regenerate it with this version (npm run synth)` };
  }
  // The two sides of one review, at most: older texts are let go. The fleet's file alone: the pools are each tree's.
  const fleet = data as SummaryData;
  if (byText.size >= 2) byText.delete(byText.keys().next().value ?? '');
  byText.set(text, fleet);
  return { data: withPools(fleet, tree) };
}

/**
 * Version 2's clusters with their pools, for each cluster whose own file the tree holds (a file
 * that does not parse, or is of another cluster, is left unread: the review then says less, never
 * something wrong). Version 1 holds them already.
 */
function withPools(data: SummaryData, tree: GeneratedTree): SummaryData {
  if (data.summaryVersion === 1) return data;
  return { ...data, clusters: data.clusters.map((c) => {
    const pools = clusterPools(tree.files.get(clusterLayout(c.id).summaryData), c.id);
    return pools ? { ...c, pools } : c;
  }) };
}

function clusterPools(text: string | undefined, cluster: string): readonly SummaryDataPool[] | undefined {
  if (text === undefined) return undefined;
  try {
    const own: unknown = JSON.parse(text);
    if (typeof own !== 'object' || own === null) return undefined;
    const file: Partial<Record<keyof ClusterSummaryData, unknown>> = own;
    return file.summaryVersion === SUMMARY_DATA_VERSION && file.cluster === cluster && Array.isArray(file.pools) ? file.pools : undefined;
  } catch {
    return undefined;
  }
}

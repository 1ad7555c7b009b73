/**
 * The review reads each ref's plan as data: `dist/summary.json` (src/model/summary-data.ts,
 * docs/review.md), never `dist/SUMMARY.md`'s prose, whose wording is free to change.
 */
import { SUMMARY_DATA_VERSION, SummaryData } from '../model/summary-data';
import { FLEET_FILES } from '../output/layout';
import type { GeneratedTree } from './tree';

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
  if (known) return { data: known };
  let data: Partial<SummaryData>;
  try {
    data = JSON.parse(text) as Partial<SummaryData>;
  } catch (err) {
    return { missing: `${SUMMARY_DATA_PATH} of ${tree.where} is not JSON (${(err as Error).message}): run npm run synth on it` };
  }
  if (data.summaryVersion !== SUMMARY_DATA_VERSION) {
    return { missing: `${SUMMARY_DATA_PATH} of ${tree.where} is version ${String(data.summaryVersion)}, not ${SUMMARY_DATA_VERSION}, which this review reads: regenerate it with this version (npm run synth)` };
  }
  // The two sides of one review, at most: older texts are let go.
  const summary = data as SummaryData;
  if (byText.size >= 2) byText.delete(byText.keys().next().value ?? '');
  byText.set(text, summary);
  return { data: summary };
}

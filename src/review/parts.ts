/**
 * A review in shards (contract 9.5): each of N runners reviews the files of its shard's clusters
 * (output/shard.ts) and writes its part (`diff --shard I/N --part-out FILE`); one job assembles
 * the N parts into the report (`diff --parts FILE,…`). The report is always made from assembled
 * parts, a whole review being the one part of shard 1/1, so the comment of a sharded run is the
 * comment of an unsharded one (test/review/parts.test.ts).
 *
 * What a shard cannot see alone is assembled, not guessed: a likely rename pairs a cluster
 * removed in one shard with one added in another (cluster-changes.ts `withRenames`); the changes
 * are sorted again across shards. What is the fleet's (its own files' changes, cost ceilings,
 * windows, the rollout's data and time) comes from shard 1, which holds the fleet's files.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { SummaryData, SummaryDataPool } from '../model/summary-data';
import { MAX_SHARDS, Shard } from '../output/shard';
import { sortByCluster, UnpairedReview } from './changes';
import type { Review } from './change';
import { withRenames } from './cluster-changes';
import type { FleetContext } from './report';
import { FLEET } from './tree';

/** What marks a file as a part of a review, and the version of its shape. */
const FORMAT = 'karpenter-gitops-review-part';
const VERSION = 1;

/** One shard's review, as `--part-out` writes it. */
export interface ReviewPart {
  readonly format: typeof FORMAT;
  readonly version: typeof VERSION;
  readonly shard: Shard;
  /** The ref compared with, as given (`origin/main`): the report's title. */
  readonly base: string;
  /** What was compared with it: the head ref as given, or `the working tree`. */
  readonly head: string;
  /** Its clusters' changes (and, in shard 1, the fleet's), its clusters added and removed, unpaired. */
  readonly review: UnpairedReview;
  /** Its clusters that move onto a stage ref, said first among the notes (review/windows.ts). */
  readonly adoptions: readonly { readonly cluster: string; readonly line: string }[];
  /** Shard 1: the head's summary data and the time the rollout is counted from (ISO 8601). @default - none */
  readonly fleet?: { readonly data: SummaryData; readonly at: string };
  /** The pools of its clusters the review read (the head's `dist/<cluster>/summary.json`), by cluster: the rollout's pacing reads them. @default - none */
  readonly pools?: Readonly<Record<string, readonly SummaryDataPool[]>>;
}

/** What one shard made of a review, before it is a part. */
export interface ShardReview {
  readonly shard: Shard;
  readonly base: string;
  readonly head: string;
  readonly review: UnpairedReview;
  readonly adoptions: ReviewPart['adoptions'];
  /** @default - no summary data at the head */
  readonly fleet?: FleetContext;
}

/**
 * A shard's part: its review of its scoped trees, less what belongs to shard 1 alone (the
 * fleet's changes, cost ceilings, notes and windows, read alike by every shard from the
 * fleet's files, which every shard reads).
 */
export function reviewPart({ shard, base, head, review, adoptions, fleet }: ShardReview): ReviewPart {
  const first = shard.index === 1;
  const { changes, edges, costs, notes, windows } = review;
  const pools = Object.fromEntries((fleet?.data.clusters ?? []).flatMap((c) => (c.pools ? [[c.id, c.pools] as const] : [])));
  return {
    format: FORMAT, version: VERSION, shard, base, head, adoptions, ...(Object.keys(pools).length ? { pools } : {}),
    review: {
      changes: first ? changes : changes.filter((c) => c.resource.cluster !== FLEET), edges,
      ...(first && costs ? { costs } : {}), ...(first && notes ? { notes } : {}), ...(first && windows ? { windows } : {}),
    },
    ...(first && fleet ? { fleet: { data: fleet.data, at: fleet.at.toISOString() } } : {}),
  };
}

/** The report's input, assembled from every part. */
export interface Assembled {
  readonly review: Review;
  /** The ref compared with, as given. */
  readonly base: string;
  /** @default - no rollout section: no summary data at the head */
  readonly fleet?: FleetContext;
}

/** The review the parts make together, or the problems that keep them apart (each a sentence with its fix). */
export function assemble(parts: readonly ReviewPart[]): Assembled | { readonly problems: string[] } {
  const problems = completeness(parts);
  if (problems.length) return { problems };
  const byIndex = [...parts].sort((a, b) => a.shard.index - b.shard.index);
  const first = byIndex[0];
  const adoptions = byIndex.flatMap((p) => p.adoptions).sort((a, b) => (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0)).map((a) => a.line);
  const { costs, notes: fleetNotes, windows } = first.review;
  const notes = [...adoptions, ...(fleetNotes ?? [])];
  const review: Review = {
    changes: sortByCluster(byIndex.flatMap((p) => [...p.review.changes])),
    clusters: withRenames(byIndex.flatMap((p) => [...p.review.edges])),
    ...(costs ? { costs } : {}), ...(notes.length ? { notes } : {}), ...(windows ? { windows } : {}),
  };
  if (!first.fleet) return { review, base: first.base };
  // Each shard read its own clusters' pools; the rollout reads them all.
  const pools = new Map(byIndex.flatMap((p) => Object.entries(p.pools ?? {})));
  const clusters = first.fleet.data.clusters.map((c) => (c.pools || !pools.has(c.id) ? c : { ...c, pools: pools.get(c.id) }));
  return { review, base: first.base, fleet: { data: { ...first.fleet.data, clusters }, at: new Date(first.fleet.at) } };
}

/** Whether the parts are the N shards of one review, each once. */
function completeness(parts: readonly ReviewPart[]): string[] {
  if (parts.length === 0) return ['no parts to assemble: give the file each shard wrote with --part-out'];
  const { count } = parts[0].shard;
  const { base, head } = parts[0];
  const problems: string[] = [];
  for (const p of parts) {
    if (p.shard.count !== count) problems.push(`shard ${p.shard.index}/${p.shard.count} is of a review in ${count} shards: give the parts of one run`);
    if (p.base !== base || p.head !== head) problems.push(`shard ${p.shard.index}/${p.shard.count} compares ${p.head} with ${p.base}, shard ${parts[0].shard.index} ${head} with ${base}: give the parts of one run`);
  }
  const seen = new Map<number, number>();
  for (const p of parts) seen.set(p.shard.index, (seen.get(p.shard.index) ?? 0) + 1);
  const twice = [...seen].filter(([, n]) => n > 1).map(([i]) => i);
  if (twice.length) problems.push(`shard ${twice.join(', ')} of ${count} given more than once: give each shard's part once`);
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length) problems.push(`shard ${missing.join(', ')} of ${count} missing: its job failed or its part was not downloaded; a report of fewer shards would hide their clusters`);
  return problems;
}

/** How a Map (a cost change's columns) is written in a part's JSON, and known again when read. */
const MAP_TAG = 'karpenter-gitops:map';

/** Writes a part (JSON, one line: parts of an AMI bump of a large fleet are large). */
export function writePart(path: string, part: ReviewPart): void {
  writeFileSync(path, `${JSON.stringify(part, (_key, value: unknown) => (value instanceof Map ? { [MAP_TAG]: [...value] } : value))}\n`);
}

/** A Map as {@link writePart} writes it, restored. */
function revive(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const entries: unknown = Object.getOwnPropertyDescriptor(value, MAP_TAG)?.value;
  return Object.keys(value).length === 1 && Array.isArray(entries) ? new Map(entries.filter((e) => Array.isArray(e) && e.length === 2).map((e) => [e[0], e[1]])) : value;
}

/** Reads a part this tool wrote, or says why it is not one. */
export function readPart(path: string): ReviewPart | { readonly problem: string } {
  const problem = (message: string) => ({ problem: message });
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return problem(`cannot read a review part: ${err instanceof Error ? err.message : String(err)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text, revive);
  } catch {
    // JSON.parse's message quotes the text: a file given by mistake is never echoed.
    return problem(`not a review part: not JSON (give the file diff --part-out wrote)`);
  }
  if (!isPart(value)) return problem(`not a review part of this tool (version ${VERSION}): give the file diff --part-out wrote`);
  return value;
}

/** The shape a part is checked for before its contents are trusted as the tool's own output. */
function isPart(value: unknown): value is ReviewPart {
  if (typeof value !== 'object' || value === null) return false;
  const v: { format?: unknown; version?: unknown; shard?: { index?: unknown; count?: unknown }; review?: { changes?: unknown; edges?: unknown }; adoptions?: unknown } = value;
  const index = v.shard?.index;
  const count = v.shard?.count;
  return v.format === FORMAT && v.version === VERSION && Number.isInteger(index) && Number.isInteger(count)
    && typeof count === 'number' && typeof index === 'number' && count >= 1 && count <= MAX_SHARDS && index >= 1 && index <= count
    && Array.isArray(v.review?.changes) && Array.isArray(v.review?.edges) && Array.isArray(v.adoptions);
}

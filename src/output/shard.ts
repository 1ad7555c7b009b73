/**
 * A shard of the fleet (`--shard I/N`, contract 9.5): the clusters one of N runners synthesizes,
 * checks or reviews. A cluster's shard is a hash of its id, so it stays in its shard when other
 * clusters come or go (a shard's work and cache do not move with every edit of the fleet); the
 * fleet's own files (`dist/SUMMARY.md`, `dist/summary.json`, `argocd/bootstrap.yaml`, …) belong
 * to shard 1. The shards of N together are the whole output, each file in exactly one.
 */
import { createHash } from 'node:crypto';
import { ownerOfPath } from './layout';

/** Most shards: a GitHub Actions matrix runs at most 256 jobs. @see https://docs.github.com/en/actions/writing-workflows/choosing-what-your-workflow-does/running-variations-of-jobs-in-a-workflow (a matrix generates a maximum of 256 jobs per workflow run) */
export const MAX_SHARDS = 256;

/** Shard `index` of `count`, 1-based. */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** The whole fleet: one shard of one. */
export const WHOLE: Shard = { index: 1, count: 1 };

/** `--shard I/N` read, or the problem with it (fix included). */
export function parseShard(text: string): Shard | string {
  const m = /^(\d{1,3})\/(\d{1,3})$/.exec(text.trim());
  const fix = `--shard takes I/N with 1 <= I <= N <= ${MAX_SHARDS}, e.g. --shard 2/8`;
  if (!m) return `"${text}" is not a shard: ${fix}`;
  const [index, count] = [Number(m[1]), Number(m[2])];
  if (count < 1 || count > MAX_SHARDS || index < 1 || index > count) return `shard ${text} does not exist: ${fix}`;
  return { index, count };
}

/** The shard a cluster is in: the first four bytes of its id's SHA-256, modulo the count. */
export function shardOfCluster(cluster: string, count: number): number {
  return count === 1 ? 1 : (createHash('sha256').update(cluster).digest().readUInt32BE(0) % count) + 1;
}

/** Whether a cluster (undefined: the fleet's own files) is in a shard. */
export function holdsCluster(shard: Shard, cluster: string | undefined): boolean {
  return cluster === undefined ? shard.index === 1 : shardOfCluster(cluster, shard.count) === shard.index;
}

/** Whether a file of the output (relative to the output root) is in a shard. */
export function holdsPath(shard: Shard, path: string): boolean {
  return holdsCluster(shard, ownerOfPath(path));
}

/** `shard 2/8`, or an empty string for the whole fleet. */
export function shardName(shard: Shard): string {
  return shard.count === 1 ? '' : `shard ${shard.index}/${shard.count}`;
}

/** `--shard I/N`, for synth, check and diff. */
export const SHARD_OPTION = {
  name: 'shard', value: 'I/N',
  help: `only the clusters of shard I of N (by a hash of the cluster id; the fleet's own files in shard 1), N at most ${MAX_SHARDS}: one runner of a matrix`,
} as const;

/** The problem with a command line's `--shard`, if any (a command's `constraints`). */
export function shardProblems(given: ReadonlyMap<string, string | boolean>): string[] {
  const value = given.get('shard');
  if (typeof value !== 'string') return [];
  const shard = parseShard(value);
  return typeof shard === 'string' ? [shard] : [];
}

/** The shard a command line names; the whole fleet without `--shard` (its problems are refused before a command runs). */
export function givenShard(value: string | undefined): Shard {
  if (value === undefined) return WHOLE;
  const shard = parseShard(value);
  if (typeof shard === 'string') throw new Error(`unchecked --shard: ${shard}`);
  return shard;
}

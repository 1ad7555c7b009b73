/**
 * What a Karpenter release changes in how the controller behaves (src/release/behaviour-changes.ts),
 * for this fleet: `npm run upgrade` lists each change the release brings, then the EC2NodeClasses
 * under `dist/` (what Argo CD applies to the clusters, as last synthesized) that it affects, per
 * cluster, team and pool, and what to do before a cluster moves to that release.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { BehaviourChange, changesBetween, EMPTY_SELECTOR_TERMS, EMPTY_SELECTOR_VALUES, hasChange, releaseList } from '../release/behaviour-changes';
import { minorOf } from '../release/versions';
import { clusterLayout, FLEET_FILES, OUTPUT_FOLDERS } from '../output/layout';

/** One selector term the change ignores: `amiSelectorTerms[0].name`. */
interface IgnoredTerm {
  readonly list: string;
  readonly index: number;
  readonly value: string;
}

/** An EC2NodeClass under `dist/` with selector terms that have an empty value. */
export interface AffectedClass {
  readonly cluster: string;
  readonly team: string;
  /** The pool's file name under its team's folder (`<pool>.yaml`), the pool's name. */
  readonly pool: string;
  /** The EC2NodeClass's name. */
  readonly nodeClass: string;
  /** Its file, relative to the repository root. */
  readonly path: string;
  readonly ignored: readonly IgnoredTerm[];
  /** The lists it needs (AMIs, subnets, security groups) whose every term is ignored: the class becomes NotReady. */
  readonly emptied: readonly string[];
}

type Fields = Readonly<Record<string, unknown>>;
const isFields = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);
const isEmpty = (v: unknown) => v === '' || (isFields(v) && Object.keys(v).length === 0);
const dirsOf = (dir: string) => (existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort() : []);

/** The terms of one EC2NodeClass spec that {@link EMPTY_SELECTOR_VALUES} ignores, and the needed lists it empties. */
export function ignoredTerms(spec: Fields): { ignored: IgnoredTerm[]; emptied: string[] } {
  const ignored: IgnoredTerm[] = [];
  const emptied: string[] = [];
  for (const [list, { values, needed }] of Object.entries(EMPTY_SELECTOR_TERMS)) {
    const terms = spec[list];
    if (!Array.isArray(terms)) continue;
    const hits = terms.flatMap((term, index) => (isFields(term) ? values.filter((v) => Object.hasOwn(term, v) && isEmpty(term[v])).slice(0, 1).map((value) => ({ list, index, value })) : []));
    ignored.push(...hits);
    if (needed && terms.length > 0 && hits.length === terms.length) emptied.push(list);
  }
  const group = spec.placementGroupSelector;
  if (isFields(group)) for (const value of ['id', 'name']) if (group[value] === '') ignored.push({ list: 'placementGroupSelector', index: -1, value });
  return { ignored, emptied };
}

/** Every EC2NodeClass of `dist/<cluster>/nodepools/<team>/<pool>.yaml` under `root` with terms the change ignores. */
export function affectedClasses(root: string): AffectedClass[] {
  const found: AffectedClass[] = [];
  for (const cluster of dirsOf(join(root, OUTPUT_FOLDERS.dist))) {
    const layout = clusterLayout(cluster);
    for (const team of dirsOf(join(root, layout.poolsRoot))) {
      const files = readdirSync(join(root, layout.poolsDir(team))).filter((f) => f.endsWith('.yaml')).sort();
      for (const file of files) {
        const path = `${layout.poolsDir(team)}/${file}`;
        for (const doc of parseAllDocuments(readFileSync(join(root, path), 'utf8'))) {
          const o: unknown = doc.toJS();
          if (!isFields(o) || o.kind !== 'EC2NodeClass' || !isFields(o.spec) || !isFields(o.metadata)) continue;
          const { ignored, emptied } = ignoredTerms(o.spec);
          if (ignored.length) found.push({ cluster, team, pool: file.replace(/\.yaml$/, ''), nodeClass: String(o.metadata.name), path, ignored, emptied });
        }
      }
    }
  }
  return found;
}

/** Each cluster's Karpenter release, as `dist/summary.json` holds it (none when it is missing or not of this shape). */
function clusterReleases(root: string): ReadonlyMap<string, string> {
  const file = join(root, FLEET_FILES.summaryData);
  if (!existsSync(file)) return new Map();
  const data: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const clusters = isFields(data) && Array.isArray(data.clusters) ? data.clusters : [];
  return new Map(clusters.filter(isFields).flatMap((c): [string, string][] => (typeof c.id === 'string' && typeof c.karpenterVersion === 'string' ? [[c.id, c.karpenterVersion]] : [])));
}

const termName = (t: IgnoredTerm) => (t.index < 0 ? `${t.list}.${t.value}` : `${t.list}[${t.index}].${t.value}`);

/**
 * For {@link EMPTY_SELECTOR_VALUES}: each affected class, and what happens to its nodes on a
 * release with the change. A class whose AMI, subnet or security group terms are all ignored is
 * NotReady: Karpenter launches nothing from it, and its nodes stay but are never replaced by
 * themselves (drift, expiry and repair need a launch); with some ignored the selection narrows
 * and nodes on what only those terms selected drift.
 */
function emptySelectorLines(root: string, to: string): string[] {
  const classes = affectedClasses(root);
  if (!classes.length) return [`in this fleet: no EC2NodeClass under ${OUTPUT_FOLDERS.dist}/ has such a term`];
  const releases = clusterReleases(root);
  const line = EMPTY_SELECTOR_VALUES.releases.find((r) => minorOf(r) === minorOf(to)) ?? to;
  return [`in this fleet (${OUTPUT_FOLDERS.dist}/, as last synthesized), ${classes.length} EC2NodeClass(es):`, ...classes.flatMap((c) => {
    const runs = releases.get(c.cluster);
    const now = runs !== undefined && hasChange(EMPTY_SELECTOR_VALUES, runs) ? ` (it runs ${runs}, which has the change: it is so now)` : runs !== undefined ? ` (it runs ${runs})` : '';
    const what = c.emptied.length
      ? `NotReady: every term of ${c.emptied.join(', ')} is ignored, so Karpenter launches no node from it; its nodes stay, but none is replaced by itself (drift, expiry and repair need a launch) until someone acts`
      : 'the selection narrows: nodes on what only those terms selected drift and are replaced from the other terms';
    const ami = c.ignored.some((t) => t.list === 'amiSelectorTerms' && t.value === 'name') ? ' (an AMI term meant as every AMI of an owner: name: "*" with the owner)' : '';
    return [
      `- cluster ${c.cluster}${now}, team ${c.team}, pool ${c.pool}: EC2NodeClass ${c.nodeClass} (${c.path}), ${c.ignored.map(termName).join(', ')} empty: ${what}`,
      `  to do: give each term its value in the config${ami}, npm run synth and let Argo CD sync cluster ${c.cluster} before it moves to ${line} or later`,
    ];
  })];
}

/** What each change knows of a fleet, by change id. */
const FLEET_FINDINGS: Readonly<Record<string, (root: string, to: string) => string[]>> = {
  [EMPTY_SELECTOR_VALUES.id]: emptySelectorLines,
};

/**
 * What Karpenter `to` changes in how the controller behaves against `from` (the release the
 * generator is made from), as src/release/behaviour-changes.ts lists them: what it brings, with
 * what it affects in the fleet under `root`, and what it does not have yet that `from` has (a
 * newer minor before its patch with the change).
 */
export function behaviourChanges(from: string, to: string, root: string): string[] {
  const { gained, lost } = changesBetween(from, to);
  const fleet = (c: BehaviourChange) => (FLEET_FINDINGS[c.id]?.(root, to) ?? []).map((l) => `    ${l}`);
  return [
    ...gained.flatMap((c) => [`+ ${c.issue} (Karpenter ${releaseList(c)}): ${c.summary}`, `    ${c.here}; ${c.url}`, ...fleet(c)]),
    ...lost.map((c) => {
      const line = c.releases.find((r) => minorOf(r) === minorOf(to));
      return `- ${c.issue}: Karpenter ${to} does not have it${line ? ` (the ${minorOf(to)} line has it from ${line})` : ''}, ${from} does; ${c.url}`;
    }),
  ];
}

/**
 * Adopting a cluster its groups already match (docs/adopting.md, "Adopting into an organised
 * fleet"): what the cluster's groups would change on its running objects at the first sync, said
 * instead as the cluster's own settings, so that synth makes what runs and nothing drifts: a
 * group's window (its Drifted budgets on every NodePool) as `window: null`, a group's pool
 * `overrides` as the cluster's own `overrides` with the running value, and a group's controller
 * settings as the cluster's own with the running release's. Each is said in adopt's output, so
 * the team opts into the group's settings later, one pull request at a time.
 */
import type { PlatformFile } from '../config/schema';
import { clusterSettings } from '../config/settings';
import { FEATURE_GATE_DEFAULTS, SETTINGS_RULES } from '../release/settings-rules.generated';
import { ADOPTED_BUILT_INS, type Fields } from './fields';
import { isObject } from './live';

/** What the cluster says of its own to undo its groups' changes, and what adopt tells about it. */
export interface GroupUndo {
  /** Fields to set under `clusters.<id>`, by path below it. */
  readonly edits: readonly { readonly path: readonly string[]; readonly value: unknown }[];
  /** One line each: what a group would have changed, and what the cluster says instead. */
  readonly notes: readonly string[];
  /** What a cluster's own setting cannot undo (pools that differ where a group forces one value). */
  readonly problems: readonly string[];
}

/**
 * What cluster `clusterId` must say of its own so that its groups change none of its running
 * objects.
 * @param pools the adopted pool fields, by NodePool name
 * @param controller the controller fields read from the running release's values, undefined
 *   without them (then a group's controller settings are only said)
 */
export function undoGroups(file: PlatformFile, clusterId: string, pools: ReadonlyMap<string, Fields>, controller: Fields | undefined): GroupUndo {
  const settings = clusterSettings(file, clusterId);
  const edits: { path: string[]; value: unknown }[] = [];
  const notes: string[] = [];
  const problems: string[] = [];
  const window = settings.window;
  if (window.value !== undefined && window.level === 'group') {
    edits.push({ path: ['window'], value: null });
    notes.push(`cluster ${clusterId}: window: null: group ${window.group ?? ''}'s window ${window.value} would add its Drifted budgets to every NodePool, which the running ones do not have `
      + '(remove window: null to opt in: a budget is not in the NodePool hash, no node drifts)');
  }
  const own = file.clusters[clusterId]?.overrides ?? {};
  // The groups' overrides in file order, a later group's field over an earlier one's.
  const forced = new Map<string, { group: string; value: unknown }>();
  for (const g of settings.groups) for (const [key, value] of Object.entries(g.group.overrides ?? {})) if (value !== undefined) forced.set(key, { group: g.name, value });
  for (const [key, { group, value }] of forced) {
    if (Object.hasOwn(own, key)) continue;
    const runningOf = (f: Fields) => f[key] ?? ADOPTED_BUILT_INS[key];
    // A map the group forces merges key by key into the pool's: each of its keys is undone alone.
    const paths = isObject(value) ? Object.keys(value).map((k) => [key, k]) : [[key]];
    for (const path of paths) {
      const running = new Map([...pools].map(([name, f]) => [name, path.length === 1 ? runningOf(f) : valueAt({ [key]: runningOf(f) }, path)]));
      const forcedValue = valueAt({ [key]: value }, path);
      const [first] = running.values();
      if (new Set([...running.values()].map((v) => JSON.stringify(v))).size !== 1 || first === undefined) {
        problems.push(`group ${group}'s overrides.${path.join('.')} forces ${JSON.stringify(forcedValue)} on every pool of cluster ${clusterId}, whose NodePools say `
          + `${[...running].map(([name, v]) => `${name}: ${JSON.stringify(v ?? null)}`).join(', ')}, and the cluster's own overrides say one value for every pool: `
          + `adopt the cluster before it is in group ${group} (its labels), or make its NodePools agree first`);
        continue;
      }
      if (JSON.stringify(first) === JSON.stringify(forcedValue)) continue;
      edits.push({ path: ['overrides', ...path], value: first });
      notes.push(`cluster ${clusterId}: overrides.${path.join('.')}: ${JSON.stringify(first)}, what runs: group ${group}'s overrides.${path.join('.')} would make it ${JSON.stringify(forcedValue)}`);
    }
  }
  controllerUndo(settings.karpenter.controller ?? {}, (path) => settings.sourceOf(['karpenter', 'controller', ...path]), controller, { clusterId, edits, notes, problems });
  return { edits, notes, problems };
}

/** The controller settings a group sets that the running release does not: the cluster's own is the chart's default. */
function controllerUndo(
  merged: Fields, sourceOf: (path: string[]) => { level: string; group?: string }, controller: Fields | undefined,
  out: { clusterId: string; edits: { path: string[]; value: unknown }[]; notes: string[]; problems: string[] },
): void {
  const paths = Object.entries(merged).flatMap(([key, v]) => (['featureGates', 'settings'].includes(key) && isObject(v) ? Object.keys(v).map((k) => [key, k]) : [[key]]));
  for (const path of paths) {
    const source = sourceOf(path);
    if (source.level !== 'group') continue;
    const value = valueAt(merged, path);
    const said = `group ${source.group ?? ''} sets karpenter.controller.${path.join('.')} ${JSON.stringify(value)}`;
    if (controller === undefined) {
      out.notes.push(`${said}: without --helm-values the first sync applies it to the running controller`);
      continue;
    }
    const live = valueAt(controller, path);
    if (live !== undefined) continue;
    const chartDefault = runningDefault(path);
    if (chartDefault === undefined) {
      out.problems.push(`${said}, which the running release's values do not say: adopt the cluster before it is in group ${source.group ?? ''}, or set it in the running release first`);
      continue;
    }
    if (JSON.stringify(chartDefault) === JSON.stringify(value)) continue;
    out.edits.push({ path: ['karpenter', 'controller', ...path], value: chartDefault });
    out.notes.push(`cluster ${out.clusterId}: karpenter.controller.${path.join('.')}: ${JSON.stringify(chartDefault)}, what runs (the chart's default): ${said}`);
  }
}

/**
 * The value a running release has for a controller setting its values do not say: the chart's
 * default (`replicas: 2`, charts/karpenter/values.yaml L49 at v1.14.1; the feature gates and
 * settings as the release's settings rules record them), undefined when no rule says it.
 */
function runningDefault(path: readonly string[]): unknown {
  if (path.length === 1) return path[0] === 'replicas' ? 2 : undefined;
  const [map, key] = path;
  if (map === 'featureGates') return Object.entries(FEATURE_GATE_DEFAULTS).find(([k]) => k === key)?.[1];
  return Object.entries(SETTINGS_RULES).find(([k]) => k === key)?.[1].chartDefault;
}

/** The value at a path of one or two keys. */
function valueAt(fields: Fields, path: readonly string[]): unknown {
  const [first, second] = path;
  if (second === undefined) return fields[first];
  const map = fields[first];
  return isObject(map) ? map[second] : undefined;
}

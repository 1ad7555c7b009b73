import type { FieldProvenance, Level, PoolSettings } from './platform';
import { FieldPath, renderPath } from '../input/problems';
import { MergedFields } from './resolve';
import { SourceFile } from '../input/source';
import { isPlainMap } from '../input/user-map';

/**
 * Every resolved field of a pool (maps key by key, lists and scalars whole, `ami` whole),
 * with the level that set it and its line, for `npm run explain`.
 */
export function provenance(source: SourceFile, merged: MergedFields, settings: PoolSettings): FieldProvenance[] {
  const out: FieldProvenance[] = [];
  const walk = (value: unknown, path: FieldPath) => {
    if (isPlainMap(value) && Object.keys(value).length > 0 && !(path.length === 1 && path[0] === 'ami')) {
      for (const key of Object.keys(value).sort()) walk(value[key], [...path, key]);
      return;
    }
    // A value no level wrote (a built-in default below a map a level wrote) is built-in.
    const origin = valueAt(merged.fields, path) === undefined ? undefined : merged.origin(path);
    const at = origin && source.problem(origin, '');
    out.push({
      path: renderPath(path), value, from: origin ? levelOf(origin) : 'built-in',
      ...(at ? { at: at.line > 0 ? `${at.file}:${at.line}:${at.col}` : at.file } : {}),
    });
  };
  for (const key of Object.keys(settings).sort()) walk((settings as Record<string, unknown>)[key], [key]);
  return out;
}

/** The value at `path` of plain data, or undefined when there is none. */
export function valueAt(data: unknown, path: FieldPath): unknown {
  let v = data;
  for (const seg of path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, seg)) return undefined;
    v = (v as Record<string | number, unknown>)[seg];
  }
  return v;
}

function levelOf(origin: FieldPath): Level {
  if (origin[0] === 'defaults') return 'defaults';
  if (origin[0] === 'teams') return origin[2] === 'pools' ? 'pool' : 'team';
  if (origin[0] === 'groups') return `group ${String(origin[1])}`;
  if (origin[2] === 'overrides') return 'overrides';
  return origin[4] === 'pools' ? 'cluster-pool' : 'cluster-team';
}

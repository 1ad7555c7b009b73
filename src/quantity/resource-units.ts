/**
 * The one place that says in which unit the catalog stores each resource, and the
 * conversions between a {@link Quantity} and that unit that the catalog generator,
 * fit, explain and the dry run use.
 *
 * | resource                                   | unit       | e.g. `2Gi` / `1500m` / `4` |
 * | ------------------------------------------ | ---------- | -------------------------- |
 * | cpu                                        | millicores | 1500                       |
 * | memory, ephemeral-storage, hugepages-<size>| MiB        | 2048                       |
 * | everything else (pods, nvidia.com/gpu, …)  | count      | 4                          |
 */
import { Quantity, Rounding, Unit, UNITS } from './quantity';

/** The unit of an amount in the catalog. */
export type ResourceUnit = 'millicores' | 'MiB' | 'count';

const UNIT: Readonly<Record<ResourceUnit, Unit>> = { millicores: UNITS.milli, MiB: UNITS.MiB, count: UNITS.one };

/** The unit the catalog stores `resource` in: cpu in millicores, bytes in MiB, everything else counted. */
export function catalogUnitOf(resource: string): ResourceUnit {
  if (resource === 'cpu') return 'millicores';
  if (resource === 'memory' || resource === 'ephemeral-storage' || resource.startsWith('hugepages-')) return 'MiB';
  return 'count';
}

/**
 * A quantity of `resource` in the catalog's unit. `up` or `down` give a whole number
 * rounded that way; `exact` gives the nearest double (memory of `1G` is 953.67… MiB).
 * A pod's cpu request rounds up to a whole millicore, as the API server stores it
 * (SetDefaults_ResourceList); a node's allocatable rounds down, so it never promises more.
 * @see https://github.com/kubernetes/kubernetes/blob/v1.35.0/pkg/apis/core/v1/defaults.go (SetDefaults_ResourceList)
 */
export function inCatalogUnits(resource: string, q: Quantity, rounding: Rounding | 'exact'): number {
  const unit = UNIT[catalogUnitOf(resource)];
  return rounding === 'exact' ? q.toNumber(unit) : Number(q.to(unit, rounding));
}

/**
 * An amount in the catalog's unit as people write it: `2`, `1500m`, `4Gi`, `346.94Gi`,
 * `512Mi`, `1`. Memory not a whole number of GiB shows two decimals, rounded `up` (what
 * a pod asks) or `down` (what a node offers), so a shortfall never reads as equal.
 */
export function formatAmount(resource: string, amount: number, round: Rounding = 'up'): string {
  const decimals = (n: number) => String((round === 'up' ? Math.ceil : Math.floor)(Number((n * 100).toFixed(6))) / 100);
  const unit = catalogUnitOf(resource);
  if (unit === 'millicores') return amount % 1000 === 0 ? String(amount / 1000) : `${amount}m`;
  if (unit === 'MiB') {
    if (amount >= 1024) return Number.isInteger(amount / 1024) ? `${amount / 1024}Gi` : `${decimals(amount / 1024)}Gi`;
    return `${decimals(amount)}Mi`;
  }
  return decimals(amount);
}

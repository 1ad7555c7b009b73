/**
 * Maintenance windows: a window in local time, the UTC minutes it keeps under every offset of
 * its zone, the Karpenter budgets and the Argo CD sync window it compiles into. Pure time
 * arithmetic: it knows no other room (config validates with it, the model writes with it).
 */

/** A Karpenter disruption budget, as NodePool `spec.disruption.budgets` writes it. */
export interface Budget {
  readonly nodes: string;
  readonly schedule?: string;
  readonly duration?: string;
  readonly reasons?: readonly ('Underutilized' | 'Empty' | 'Drifted' | 'Repair')[];
}

/** Days of the week in cron order (0 = Sunday), as a window's `days` writes them. */
export const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
/** One of {@link DAYS}. */
export type Day = (typeof DAYS)[number];

/** Minutes in a week: every mask below is indexed by minute of the week, Sunday 00:00 = 0. */
export const WEEK = 7 * 24 * 60;
const DAY = 24 * 60;

/**
 * The shortest window accepted. Argo CD retries an auto-sync a sync window held back only on
 * its periodic refresh (`timeout.reconciliation`, 120s by default, plus up to 60s of jitter);
 * a window shorter than a few refreshes may close before the held sync is retried.
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/docs/operator-manual/argocd-cm.yaml
 */
export const MIN_WINDOW_MINUTES = 15;

/** A named maintenance window (`windows.<name>` of platform.yaml), as written. */
export interface MaintenanceWindow {
  /** The key under `windows`. */
  readonly name: string;
  /** IANA time zone the start is written in, e.g. `Europe/Berlin`. */
  readonly timeZone: string;
  /** The days the window opens on (local time). */
  readonly days: readonly Day[];
  /** Local opening time, `HH:MM`. */
  readonly start: string;
  /** How long it stays open: `6h`, `90m`, `1h30m`. */
  readonly duration: string;
}

/** Minutes of a window duration (`6h`, `90m`, `1h30m`), or undefined when it is not one. */
export function durationMinutes(duration: string): number | undefined {
  const m = /^(?:([0-9]+)h)?(?:([0-9]+)m)?$/.exec(duration);
  if (!m || (m[1] === undefined && m[2] === undefined)) return undefined;
  return Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0);
}

/** Minutes as the NodePool CRD's budget duration writes them (`19h`, `30m`, `5h30m`). */
export function budgetDuration(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h === 0 ? `${m}m` : m === 0 ? `${h}h` : `${h}h${m}m`;
}

/** Minutes after midnight of an `HH:MM`, or undefined. */
export function startMinute(start: string): number | undefined {
  const m = /^([01][0-9]|2[0-3]):([0-5][0-9])$/.exec(start);
  return m ? Number(m[1]) * 60 + Number(m[2]) : undefined;
}

/** Whether Node's time-zone data knows `timeZone`. */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** The offset (minutes east of UTC) of `timeZone` at `at`. */
export function offsetAt(timeZone: string, at: Date): number {
  const name = offsetFormat(timeZone).formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /^GMT(?:([+-])([0-9]{2}):([0-9]{2}))?$/.exec(name);
  if (!m) throw new Error(`unexpected offset name "${name}" for ${timeZone}`);
  return m[1] === undefined ? 0 : (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/**
 * One formatter per zone: making an `Intl.DateTimeFormat` costs far more than using it (a
 * zone's 1,826 samples below took ten times as long with a new one per call).
 */
function offsetFormat(timeZone: string): Intl.DateTimeFormat {
  let format = offsetFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    offsetFormats.set(timeZone, format);
  }
  return format;
}
const offsetFormats = new Map<string, Intl.DateTimeFormat>();

/** The span {@link zoneOffsets} samples: fixed, so the output depends only on Node's tz data. */
const SAMPLE_FROM = Date.UTC(2026, 0, 1, 12);
const SAMPLE_TO = Date.UTC(2030, 11, 31, 12);
const offsetCache = new Map<string, readonly number[]>();

/**
 * Every UTC offset (minutes east) `timeZone` uses, sampled at noon UTC of every day of
 * 2026-2030, ascending. Karpenter evaluates budget schedules in UTC only, so a window must
 * hold under each of them.
 */
export function zoneOffsets(timeZone: string): readonly number[] {
  let offsets = offsetCache.get(timeZone);
  if (!offsets) {
    const seen = new Set<number>();
    for (let t = SAMPLE_FROM; t <= SAMPLE_TO; t += DAY * 60_000) seen.add(offsetAt(timeZone, new Date(t)));
    offsets = [...seen].sort((a, b) => a - b);
    offsetCache.set(timeZone, offsets);
  }
  return offsets;
}

/** `+01:00`, `-04:00`, `+05:30`. */
export function formatOffset(minutes: number): string {
  const a = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

/** The window's minutes of the week in local wall-clock time (Sunday 00:00 = 0). */
export function localMask(window: MaintenanceWindow): boolean[] {
  const mask = new Array<boolean>(WEEK).fill(false);
  const start = startMinute(window.start) ?? 0;
  const length = Math.min(durationMinutes(window.duration) ?? 0, WEEK);
  for (const day of window.days) {
    const from = DAYS.indexOf(day) * DAY + start;
    for (let i = 0; i < length; i++) mask[(from + i) % WEEK] = true;
  }
  return mask;
}

/**
 * The UTC minutes of the week inside the window whatever offset the zone is at: the
 * intersection, over every offset the zone uses, of the window mapped to UTC.
 */
export function keptMask(window: MaintenanceWindow): boolean[] {
  // A window's masks are pure in its fields: computed once per window a process meets (a fleet
  // has a few windows, on many clusters and pools).
  const key = JSON.stringify([window.timeZone, window.days, window.start, window.duration]);
  const known = keptMasks.get(key);
  if (known) return [...known];
  const kept = computeKeptMask(window);
  keptMasks.set(key, kept);
  return [...kept];
}

/** {@link keptMask}'s answers, by the window's fields. */
const keptMasks = new Map<string, readonly boolean[]>();

function computeKeptMask(window: MaintenanceWindow): boolean[] {
  const local = localMask(window);
  const offsets = zoneOffsets(window.timeZone);
  const kept = new Array<boolean>(WEEK);
  for (let u = 0; u < WEEK; u++) kept[u] = offsets.every((o) => local[(((u + o) % WEEK) + WEEK) % WEEK]);
  return kept;
}

/** A run of minutes of the week: `start` (minute of the week) and `length`, possibly wrapping Saturday→Sunday. */
export interface Run {
  readonly start: number;
  readonly length: number;
}

/** The maximal runs of `true` in a circular week mask, ordered by start; one run of WEEK when all are true. */
export function runsOf(mask: readonly boolean[]): Run[] {
  const first = mask.indexOf(false);
  if (first < 0) return [{ start: 0, length: WEEK }];
  const runs: Run[] = [];
  let start = -1;
  for (let i = 1; i <= WEEK; i++) {
    const at = (first + i) % WEEK;
    if (mask[at] && start < 0) start = i;
    if (!mask[at] && start >= 0) {
      runs.push({ start: (first + start) % WEEK, length: i - start });
      start = -1;
    }
  }
  return runs.sort((a, b) => a.start - b.start);
}

/** `mon 21:00`. */
export function weekMinute(minute: number): string {
  const m = ((minute % WEEK) + WEEK) % WEEK;
  const hhmm = m % DAY;
  return `${DAYS[Math.floor(m / DAY)]} ${String(Math.floor(hhmm / 60)).padStart(2, '0')}:${String(hhmm % 60).padStart(2, '0')}`;
}

/** `mon 21:00-tue 03:00` for each run. */
export function describeRuns(runs: readonly Run[]): string[] {
  return runs.map((r) => `${weekMinute(r.start)}-${weekMinute(r.start + r.length)}`);
}

/** Runs that open at the same time of day for the same length, as one cron with a day list. */
function cronGroups(runs: readonly Run[]): { schedule: string; minutes: number }[] {
  const groups = new Map<string, { minute: number; length: number; days: number[] }>();
  for (const r of runs) {
    const minute = r.start % DAY;
    const key = `${minute}/${r.length}`;
    const g = groups.get(key) ?? { minute, length: r.length, days: [] };
    g.days.push(Math.floor(r.start / DAY));
    groups.set(key, g);
  }
  return [...groups.values()]
    .sort((a, b) => a.days[0] * DAY + a.minute - (b.days[0] * DAY + b.minute))
    .map((g) => ({
      schedule: `${g.minute % 60} ${Math.floor(g.minute / 60)} * * ${g.days.map((d) => DAYS[d]).join(',')}`,
      minutes: g.length,
    }));
}

/** Everything a cluster's window compiles into, derived once. */
export interface WindowPlan {
  readonly window: MaintenanceWindow;
  /** The zone's UTC offsets (minutes east), ascending. */
  readonly offsets: readonly number[];
  /** The window in local time, per opening. */
  readonly local: readonly Run[];
  /** The UTC runs in which Drifted nodes may be replaced (inside the window under every offset). */
  readonly kept: readonly Run[];
  /** Minutes of the local window per week, and of the kept UTC runs. */
  readonly localMinutes: number;
  readonly keptMinutes: number;
  /**
   * The budgets that block `Drifted` outside the kept runs: `nodes: "0"`, UTC cron, one per
   * time of day and length. Empty when the window is the whole week.
   */
  readonly budgets: readonly Budget[];
  /** One sentence: which UTC hours are kept, and why. */
  readonly note: string;
}

/**
 * Compiles a window: the local runs, the UTC runs kept under every offset of the zone, and
 * the Karpenter budgets blocking Drifted in the rest of the week. Karpenter takes, per
 * reason, the most restrictive active budget, so these `nodes: "0"` budgets close Drifted
 * whatever the team's own budgets say, and leave the team's in charge inside the window.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/nodepool.go (GetAllowedDisruptionsByReason, IsActive)
 */
export function windowPlan(window: MaintenanceWindow): WindowPlan {
  const key = JSON.stringify(window);
  const known = windowPlans.get(key);
  if (known) return known;
  const plan = computeWindowPlan(window);
  windowPlans.set(key, plan);
  return plan;
}

/** {@link windowPlan}'s answers, by the window (pure in its fields; see keptMask). */
const windowPlans = new Map<string, WindowPlan>();

function computeWindowPlan(window: MaintenanceWindow): WindowPlan {
  const offsets = zoneOffsets(window.timeZone);
  const localRuns = runsOf(localMask(window));
  const kept = keptMask(window);
  const keptRuns = kept.includes(true) ? runsOf(kept) : [];
  // No kept minute is an error of the config (windows.<name>.duration); no blocked minute needs no budget.
  const blocked = kept.includes(true) && kept.includes(false) ? runsOf(kept.map((k) => !k)) : [];
  const budgets: Budget[] = cronGroups(blocked)
    .map((g) => ({ nodes: '0', reasons: ['Drifted'] as const, schedule: g.schedule, duration: budgetDuration(g.minutes) }));
  const localMinutes = localMask(window).filter(Boolean).length;
  const keptMinutes = kept.filter(Boolean).length;
  const zone = offsets.map((o) => `UTC${formatOffset(o)}`).join(' or ');
  const shift = offsets[offsets.length - 1] - offsets[0];
  const note = offsets.length > 1
    ? `${window.timeZone} is ${zone}: Karpenter reads schedules in UTC only, so Drifted nodes are replaced only in the UTC minutes inside the window at either offset `
      + `(${describeRuns(keptRuns).join(', ') || 'none'} UTC), ${budgetDuration(shift)} less than the window at each opening`
    : `${window.timeZone} is always ${zone}: Drifted nodes are replaced in ${describeRuns(keptRuns).join(', ') || 'none'} UTC, the whole window`;
  return { window, offsets, local: localRuns, kept: keptRuns, localMinutes, keptMinutes, budgets, note };
}

/** An Argo CD sync window, as `AppProject.spec.syncWindows[]` writes it. */
export interface SyncWindowModel {
  readonly kind: 'allow';
  /** 5-field cron in `timeZone`. */
  readonly schedule: string;
  readonly duration: string;
  readonly timeZone: string;
  readonly applications: readonly string[];
  /** A person may still sync by hand outside the window (an emergency fix). */
  readonly manualSync: boolean;
}

/**
 * The sync windows of a cluster's pool Applications: `allow`, in UTC, in exactly the minutes
 * the window keeps for Karpenter (the kept runs, one window per time of day and length), so
 * Argo CD syncs a pool only when Karpenter may replace the nodes it drifts: one clock for
 * both. Argo CD reads the schedule in `timeZone` (types.go `active()`); UTC has no daylight
 * saving, so the minutes are the budgets' complement exactly. Manual sync stays allowed so a
 * person can still roll out a fix outside it.
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/pkg/apis/application/v1alpha1/types.go (SyncWindow, active)
 */
export function syncWindowModels(window: MaintenanceWindow, applications: readonly string[]): SyncWindowModel[] {
  const kept = keptMask(window);
  return cronGroups(kept.includes(true) ? runsOf(kept) : []).map((g) => ({
    kind: 'allow',
    schedule: g.schedule,
    duration: budgetDuration(g.minutes),
    timeZone: 'UTC',
    applications: [...applications],
    manualSync: true,
  }));
}

/**
 * When the window next opens at or after `from`: the first local-window minute in which
 * Drifted is allowed (a kept UTC minute), scanning at most a week and a day ahead.
 * Undefined when the window has no kept minute.
 */
export function nextOpening(window: MaintenanceWindow, from: Date): Date | undefined {
  return opening(window, from);
}

/**
 * When the window next opens after `now`, or `'open'` while it is open: {@link nextOpening}
 * answers the current minute then (the minute `now` is in, rounded up). The one rule of "open
 * now" that promote's status and its per-cluster wait both say.
 */
export function nextOpeningFromNow(window: MaintenanceWindow, now: Date): Date | 'open' | undefined {
  const open = opening(window, now);
  return open !== undefined && open.getTime() - now.getTime() < 60_000 ? 'open' : open;
}

function opening(window: MaintenanceWindow, from: Date): Date | undefined {
  const kept = keptMask(window);
  const start = Math.ceil(from.getTime() / 60_000);
  // Sunday 00:00 UTC of 1970-01-04 is minute 3 * 1440 after the epoch (a Thursday).
  for (let i = 0; i <= WEEK + DAY; i++) {
    const minute = start + i;
    const ofWeek = (((minute - 3 * DAY) % WEEK) + WEEK) % WEEK;
    const previous = (((minute - 1 - 3 * DAY) % WEEK) + WEEK) % WEEK;
    if (kept[ofWeek] && (i > 0 ? !kept[previous] : true)) return new Date(minute * 60_000);
  }
  return undefined;
}

/** A NodePool with its cluster's window budgets after the team's own (docs/windows.md). */
export function withWindowBudgets<T extends { readonly budgets: readonly Budget[] }>(nodePool: T, cluster: { readonly window?: MaintenanceWindow }): T {
  if (!cluster.window) return nodePool;
  return { ...nodePool, budgets: [...nodePool.budgets, ...windowPlan(cluster.window).budgets] };
}

/** The comment atop a windowed cluster's pool files: which UTC hours the Drifted budgets keep, and why. */
export function windowHeader(window: MaintenanceWindow): string {
  const plan = windowPlan(window);
  return `# Window ${window.name}: ${window.days.join(', ')} ${window.start} for ${window.duration} (${window.timeZone}); the last ${plan.budgets.length} budget(s) block Drifted outside it.\n`
    + `# ${plan.note}.\n`;
}

import { cronNext } from '../support/karpenter-budgets';
import { BudgetSimulator } from '../support/karpenter-budgets';
import { SyncWindowSimulator } from '../support/argocd-sync-window';
import { budgetDuration, Day, MaintenanceWindow, nextOpening, nextOpeningFromNow, syncWindowModels, windowPlan } from '../../src/schedule/windows';

const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const MINUTE = 60_000;

/** Local wall-clock minute of the week (Sunday 00:00 = 0) of `at` in `timeZone`, read from Intl, not from the code under test. */
const formats = new Map<string, Intl.DateTimeFormat>();
const format = (timeZone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat => {
  const key = `${timeZone}/${JSON.stringify(options)}`;
  if (!formats.has(key)) formats.set(key, new Intl.DateTimeFormat('en-US', { timeZone, ...options }));
  return formats.get(key)!;
};
function localWeekMinute(timeZone: string, at: Date): number {
  const parts = Object.fromEntries(format(timeZone, { weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
    .formatToParts(at).map((p) => [p.type, p.value]));
  return WEEKDAYS.indexOf(parts.weekday.toLowerCase()) * 1440 + Number(parts.hour) * 60 + Number(parts.minute);
}

/** Whether a local minute of the week is in the window, from the window's own fields. */
function inWindow(w: MaintenanceWindow, minute: number): boolean {
  const [h, m] = w.start.split(':').map(Number);
  const length = /^(?:(\d+)h)?(?:(\d+)m)?$/.exec(w.duration)!;
  const len = Number(length[1] ?? 0) * 60 + Number(length[2] ?? 0);
  return w.days.some((d) => {
    const from = WEEKDAYS.indexOf(d) * 1440 + h * 60 + m;
    return ((minute - from) % 10080 + 10080) % 10080 < len;
  });
}

/** The zone's offset (minutes east) at `at`, from Intl. */
function offset(timeZone: string, at: Date): number {
  const name = format(timeZone, { timeZoneName: 'longOffset' }).formatToParts(at).find((p) => p.type === 'timeZoneName')!.value;
  const m = /GMT(?:([+-])(\d\d):(\d\d))?/.exec(name)!;
  return m[1] ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

const window = (timeZone: string, days: Day[], start: string, duration: string): MaintenanceWindow => ({ name: 'w', timeZone, days, start, duration });

/** Each zone's largest daylight-saving shift, in minutes. */
const SHIFT: Record<string, number> = {
  'Europe/Berlin': 60, 'America/New_York': 60, 'Australia/Lord_Howe': 30, 'Asia/Kolkata': 0, 'Asia/Tokyo': 0,
};

const CASES: [string, MaintenanceWindow][] = [
  ['Berlin weeknights', window('Europe/Berlin', ['mon', 'tue', 'wed', 'thu'], '22:00', '6h')],
  ['New York weeknights', window('America/New_York', ['mon', 'tue', 'wed', 'thu'], '22:00', '6h')],
  ['Lord Howe (half-hour DST)', window('Australia/Lord_Howe', ['mon', 'tue', 'wed', 'thu'], '22:00', '6h')],
  ['Kolkata (half-hour offset) across midnight', window('Asia/Kolkata', ['tue', 'fri'], '23:30', '3h')],
  ['Tokyo (no DST) across the week boundary', window('Asia/Tokyo', ['sun'], '22:00', '8h')],
  ['Berlin sunday night into monday', window('Europe/Berlin', ['sun'], '23:00', '4h30m')],
  ['New York saturday into sunday', window('America/New_York', ['sat'], '20:00', '10h')],
];

const SEASONS: [string, Date][] = [
  ['a January week', new Date(Date.UTC(2027, 0, 10, 0, 0))],
  ['a July week', new Date(Date.UTC(2027, 6, 11, 0, 0))],
  ['the week Berlin moves to summer time', new Date(Date.UTC(2027, 2, 24, 0, 0))],
];

describe('a maintenance window in Karpenter budgets (simulated minute by minute)', () => {
  it('cron-parser, like robfig/cron, returns the first fire strictly after the time given', () => {
    expect(cronNext('0 2 * * tue', new Date('2027-01-12T02:00:00Z')).toISOString()).toBe('2027-01-19T02:00:00.000Z');
    expect(cronNext('0 2 * * tue', new Date('2027-01-12T01:59:59Z')).toISOString()).toBe('2027-01-12T02:00:00.000Z');
  });

  const RESULTS: string[] = [];
  afterAll(() => expect(RESULTS.join('\n')).toMatchSnapshot());

  describe.each(CASES)('%s', (_name, w) => {
    const plan = windowPlan(w);
    const budgets = [{ nodes: '10%' }, ...plan.budgets];

    it('writes durations the NodePool CRD accepts, and few budgets', () => {
      for (const b of plan.budgets) expect(b.duration).toMatch(/^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$/);
      expect(plan.budgets.length).toBeLessThanOrEqual(7);
    });

    it.each(SEASONS)('allows Drifted at no minute outside the local window, at most minutes inside it, and Argo CD syncs in exactly those minutes, in %s', (_season, from) => {
      const days = 9;
      const to = new Date(from.getTime() + days * 1440 * MINUTE);
      const karpenter = new BudgetSimulator(budgets, from, to);
      // Argo CD syncs when any allow window is active (types.go CanSync); the windows are in UTC.
      const argo = syncWindowModels(w, ['x']).map((sw) => new SyncWindowSimulator(sw, (at) => offset(sw.timeZone, at), from, to));
      let outsideAllowed = 0;
      let inside = 0;
      let insideAllowed = 0;
      let argoMismatch = 0;
      let consolidationChanged = 0;
      for (let t = from.getTime() + 30_000; t < to.getTime(); t += MINUTE) {
        const local = inWindow(w, localWeekMinute(w.timeZone, new Date(t)));
        const drifted = karpenter.allowed(t, 'Drifted', 10) > 0;
        // The window's budgets name Drifted only: consolidation keeps the team's 10%.
        if (karpenter.allowed(t, 'Underutilized', 10) !== 1) consolidationChanged++;
        if (local) inside++;
        if (local && drifted) insideAllowed++;
        if (!local && drifted) outsideAllowed++;
        // One clock: Argo CD syncs a pool exactly in the minutes Karpenter may replace drifted nodes.
        if (argo.some((a) => a.active(t)) !== drifted) argoMismatch++;
      }
      RESULTS.push(`${_name}, ${_season}: Drifted allowed ${insideAllowed} of ${inside} minutes inside the window, ${outsideAllowed} outside`);
      expect(outsideAllowed).toBe(0);
      expect(argoMismatch).toBe(0);
      expect(consolidationChanged).toBe(0);
      // Each opening loses at most the zone's shift; openings in the span: at most one per day.
      const openings = Math.ceil(days / 7 * w.days.length) + 1;
      expect(insideAllowed).toBeGreaterThanOrEqual(inside - openings * SHIFT[w.timeZone]);
      if (SHIFT[w.timeZone] === 0) expect(insideAllowed).toBe(inside);
      expect(insideAllowed).toBeGreaterThan(0);
    });
  });

  it('compiles the Berlin weeknights into two budgets: three weekday gaps and one over the weekend', () => {
    expect(windowPlan(CASES[0][1]).budgets).toEqual([
      { nodes: '0', reasons: ['Drifted'], schedule: '0 2 * * tue,wed,thu', duration: '19h' },
      { nodes: '0', reasons: ['Drifted'], schedule: '0 2 * * fri', duration: '91h' },
    ]);
    expect(windowPlan(CASES[0][1]).note).toMatch(/UTC\+01:00 or UTC\+02:00.*mon 21:00-tue 02:00.*1h less/);
  });

  it('says when the window next opens', () => {
    // Monday 2027-01-11 12:00 UTC: Berlin (UTC+1 in winter) keeps 21:00-02:00 UTC.
    expect(nextOpening(CASES[0][1], new Date('2027-01-11T12:00:00Z'))?.toISOString()).toBe('2027-01-11T21:00:00.000Z');
    expect(budgetDuration(91 * 60)).toBe('91h');
  });

});

describe('a maintenance window, for promote (npm run promote -- status)', () => {
  it('says a window is open in its kept minutes, and when it opens next otherwise (to the minute)', () => {
    const at = (iso: string) => nextOpeningFromNow(CASES[0][1], new Date(iso));
    expect(at('2027-01-11T20:58:00Z')).toEqual(new Date('2027-01-11T21:00:00Z'));
    expect([at('2027-01-11T21:00:00Z'), at('2027-01-11T23:30:10Z'), at('2027-01-12T01:58:30Z')]).toEqual(['open', 'open', 'open']);
    // Past the window's last kept minute: the next night's opening.
    expect(at('2027-01-12T02:00:00Z')).toEqual(new Date('2027-01-12T21:00:00Z'));
  });
});

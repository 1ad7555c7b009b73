import { z } from 'zod';
import { DAYS, durationMinutes, isTimeZone, MIN_WINDOW_MINUTES, WEEK } from '../../schedule/windows';
import { distinct } from './fields';

/** A maintenance window (docs/windows.md): when Drifted nodes may be replaced and pool Applications sync. */
export const window = z.strictObject({
  timeZone: z.string().min(1).superRefine((tz, ctx) => {
    if (!isTimeZone(tz)) ctx.addIssue({ code: 'custom', message: `unknown time zone "${tz}": use an IANA name such as Europe/Berlin, America/New_York or UTC` });
  }).describe('IANA time zone the start is written in, e.g. Europe/Berlin'),
  days: distinct(z.array(z.enum(DAYS)).min(1), 'each day may appear once')
    .describe('the days the window opens on, local time: sun, mon, tue, wed, thu, fri, sat'),
  start: z.string().regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, { error: 'must be a local time "HH:MM" such as "22:00" (quote it)' }),
  duration: z.string().superRefine((d, ctx) => {
    const minutes = durationMinutes(d);
    if (minutes === undefined) ctx.addIssue({ code: 'custom', message: 'must be hours and/or minutes such as "6h", "90m" or "1h30m"' });
    else if (minutes < MIN_WINDOW_MINUTES) {
      ctx.addIssue({ code: 'custom', message: `is shorter than ${MIN_WINDOW_MINUTES}m: Argo CD retries a sync the window held back only every few minutes (timeout.reconciliation), so a shorter window may close before it does; make it at least ${MIN_WINDOW_MINUTES}m` });
    } else if (minutes >= WEEK) ctx.addIssue({ code: 'custom', message: 'covers the whole week: leave the window out instead' });
  }).describe('how long the window stays open, e.g. 6h or 1h30m (at least 15m)'),
});

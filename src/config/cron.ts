import { CronExpressionParser } from 'cron-parser';

/** The macros a disruption budget's schedule may be (the NodePool CRD's pattern). */
const MACROS = ['@annually', '@yearly', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];
const FIELDS = ['minute', 'hour', 'day of month', 'month', 'day of week'] as const;

/**
 * Why Karpenter would reject a budget schedule, or undefined when it parses. Karpenter
 * parses schedules with robfig/cron's standard parser: five fields (minute, hour, day of
 * month, month, day of week 0-6 or sun-sat), `*`, `?`, ranges, lists and steps, month and
 * day names, or one of the @ macros. cron-parser checks ranges and names; the dialect's
 * limits (no seconds field, no `L`, `W` or `#`, day of week at most 6) are checked here.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/apis/v1/nodepool.go (Budget.Schedule)
 * @see https://pkg.go.dev/github.com/robfig/cron/v3#ParseStandard
 */
export function cronProblem(schedule: string): string | undefined {
  if (schedule.startsWith('@')) return MACROS.includes(schedule) ? undefined : `unknown schedule macro "${schedule}" (allowed: ${MACROS.join(', ')})`;
  const fields = schedule.trim().split(/\s+/);
  if (fields.length !== 5) {
    return `a schedule has 5 fields (${FIELDS.join(', ')}), got ${fields.length}: e.g. "0 9 * * mon-fri"`;
  }
  for (const [i, field] of fields.entries()) {
    const bad = /[^0-9A-Za-z*?,/-]/.exec(field) ?? /[LW#]/.exec(field.replace(/[a-z]+/gi, (w) => (/^[LW]$/.test(w) ? w : '')));
    if (bad) return `${FIELDS[i]} "${field}": "${bad[0]}" is not allowed (Karpenter's cron takes numbers, names, *, ?, ranges, lists and steps)`;
  }
  const dow = fields[4].split(/[,/-]/).filter((p) => /^[0-9]+$/.test(p)).map(Number);
  if (dow.some((d) => d > 6)) return `day of week "${fields[4]}": days are 0-6 (sun-sat); 7 is not allowed`;
  // One field at a time (the others *), so the message names the field that is wrong.
  for (const [i, field] of fields.entries()) {
    try {
      CronExpressionParser.parse(fields.map((f, j) => (j === i ? f : '*')).join(' '), { strict: false });
    } catch (err) {
      return `${FIELDS[i]} "${field}": ${describe((err as Error).message)}`;
    }
  }
  return neverFires(schedule, fields);
}

/**
 * A schedule every field of which is valid but that names no day that exists (`0 0 30 2 *`,
 * `0 0 31 4 *`). Karpenter would take it, and a budget with it is active **at all times**: robfig's
 * `Next` returns the zero time when no time satisfies the schedule (robfig/cron v3 spec.go, `Next`:
 * "If no time can be found to satisfy the schedule, return the zero time"), and `IsActive` reads
 * `!schedule.Next(now - duration).After(now)`, true for the zero time
 * (kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/nodepool.go L412-L425): a `nodes: "0"` budget
 * meant for one night would hold its pool for good.
 */
function neverFires(schedule: string, fields: readonly string[]): string | undefined {
  try {
    CronExpressionParser.parse(schedule, { strict: false, tz: 'UTC' }).next();
    return undefined;
  } catch {
    return `day of month "${fields[2]}" never occurs in month "${fields[3]}": Karpenter finds no time for this schedule, and a budget whose schedule never fires is active at all times `
      + '(robfig/cron returns no next time, which Karpenter\'s IsActive reads as active): name a day the month has';
  }
}

function describe(message: string): string {
  const alias = /cannot resolve alias "([^"]*)"/.exec(message);
  if (alias) return `unknown name "${alias[1]}" (months jan-dec, days sun-sat)`;
  const range = /got value (\S+) expected range (\S+)/.exec(message);
  if (range) return `${range[1]} is out of range ${range[2]}`;
  return message.charAt(0).toLowerCase() + message.slice(1);
}

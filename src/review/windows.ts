import type { Platform } from '../config/platform';
import { windowSummary } from '../model/windows-summary';
import { nextOpening } from '../schedule/windows';

/**
 * The review's lines about windows and stages (docs/windows.md): per cluster with a window or
 * a stage, what dist/SUMMARY.md says, and when its window next lets drifted nodes be replaced,
 * counted from `now` (the working tree's review: the time it runs; tests inject it).
 */
export function windowReviewLines(platform: Platform, now: Date): string[] {
  const lines: string[] = [];
  for (const c of platform.clusters) {
    if (!c.window && c.stage === undefined) continue;
    const summary = windowSummary(platform, c).filter((l) => l !== '');
    let next = '';
    if (c.window) {
      const at = nextOpening(c.window, now);
      const minutes = at ? Math.round((at.getTime() - now.getTime()) / 60_000) : undefined;
      next = at === undefined ? ''
        : minutes === 0 ? ' Its window is open now.'
          : ` Its window next opens for drifted nodes at ${at.toISOString().replace(/:00\.000Z$/, 'Z')}, in ${Math.floor(minutes! / 60)}h${String(minutes! % 60).padStart(2, '0')}m.`;
    }
    lines.push(`cluster ${c.id}: ${summary.join(' ')}${next}`);
  }
  return lines;
}

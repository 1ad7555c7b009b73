/**
 * The README is the front door and the reference lives in docs/ (contract section 6.1): the
 * README stays short and starts with the two commands, and every relative link between the
 * pages, anchors included, leads somewhere.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

const README = 'README.md';
const PAGES = [README, ...readdirSync('docs').filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

/** The lines of a page outside fenced code blocks, with inline code blanked out. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, '``');
  });
}

/**
 * The anchor GitHub gives a heading: its text lowercased, inline code kept without the
 * backticks, every character but letters, digits, spaces, `-` and `_` dropped, spaces made
 * `-`; a repeated heading gets `-1`, `-2`, ...
 * @see https://github.com/Flet/github-slugger
 */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\p{M} _-]/gu, '').replace(/ /g, '-');
}

/** The anchors of a page's headings, as GitHub makes them. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Every relative link of a page: `[text](target)` outside code, but not URLs. */
function relativeLinks(page: string): { page: string; target: string }[] {
  const links: { page: string; target: string }[] = [];
  for (const line of prose(readFileSync(page, 'utf8'))) {
    for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(m[1])) links.push({ page, target: m[1] });
    }
  }
  return links;
}

describe('the README', () => {
  const readme = readFileSync(README, 'utf8');

  it('is the front door: at most 300 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(300);
  });

  it('starts with the two commands, before anything else', () => {
    const [, block] = /^# karpenter-gitops\n\n```sh\n([\s\S]*?)```\n/.exec(readme) ?? [];
    const commands = (block ?? '').split('\n').filter(Boolean).map((line) => line.replace(/#.*/, '').trim());
    expect(commands).toEqual(['npm ci && npm run synth', 'npm test']);
  });

  it('links every page of docs/', () => {
    const linked = new Set(relativeLinks(README).map((l) => normalize(l.target.split('#')[0])));
    const pages = PAGES.filter((p) => p !== README && existsSync(p));
    expect(pages.filter((p) => !linked.has(normalize(p)))).toEqual([]);
  });
});

describe('docs pages', () => {
  it.each(PAGES.filter((p) => p !== README))('%s starts with a title and a one-line purpose', (page) => {
    const [title, blank, purpose, after] = readFileSync(page, 'utf8').split('\n');
    expect([title, blank, purpose.length > 0, after]).toEqual([expect.stringMatching(/^# \S/), '', true, '']);
  });
});

describe('relative links', () => {
  const links = [...new Map(PAGES.flatMap(relativeLinks).map((l) => [`${l.page} ${l.target}`, l])).values()];

  it('are found (the test reads the pages)', () => {
    expect(links.length).toBeGreaterThan(10);
  });

  it.each(links.map((l) => [l.page, l.target]))('%s -> %s resolves (file, and heading when it names one)', (page, target) => {
    const [path, anchor] = target.split('#');
    const file = path === '' ? page : normalize(join(dirname(page), decodeURI(path)));
    expect({ target, exists: existsSync(file) }).toEqual({ target, exists: true });
    if (anchor !== undefined) {
      expect(statSync(file).isFile()).toBe(true);
      expect(file).toMatch(/\.md$/);
      expect([...anchors(readFileSync(file, 'utf8'))]).toContain(anchor);
    }
  });
});

describe('slug', () => {
  it.each([
    ['Will it fit? (`npm run fit`)', 'will-it-fit-npm-run-fit'],
    ['Argo CD: bootstrap once, then everything is a commit', 'argo-cd-bootstrap-once-then-everything-is-a-commit'],
    ['The gate: `--fail-on`', 'the-gate---fail-on'],
    ['dist/SUMMARY.md', 'distsummarymd'],
  ])('%s -> %s', (heading, expected) => {
    expect(slug(heading)).toBe(expected);
  });
});

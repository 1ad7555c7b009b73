import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPlatform } from '../../src/config/load';
import { synthesize } from '../../src/synth';
import { copyExample } from '../builders';
import { MermaidRender, hasChromium, mermaidBlocks, parseMermaid, renderMermaid } from './mermaid';

/** Diagrams of the kinds our Markdown carries, valid and broken, by name. */
const DIAGRAMS = {
  gantt: [
    'gantt',
    '  title Rollout of karpenter 1.5.0',
    '  dateFormat YYYY-MM-DDTHH:mm',
    '  axisFormat %a %H:%M',
    '  section stage canary',
    '  maintenance window : active, w1, 2024-06-03T09:00, 2h',
    '  demo : c1, 2024-06-03T09:00, 30m',
    '  section stage production',
    '  prod-eu, prod-us : p1, after c1, 1h',
  ].join('\n'),
  flowchart: [
    'flowchart LR',
    '  subgraph canary["stage canary"]',
    '    demo["demo<br/>us-east-1"]',
    '  end',
    '  subgraph production["stage production"]',
    '    prod_eu["prod-eu<br/>eu-west-1"]',
    '  end',
    '  canary --> production',
  ].join('\n'),
  ganttTaskWithoutColon: 'gantt\n  dateFormat YYYY-MM-DDTHH:mm\n  section stage canary\n  demo\n  production : p1, 2024-06-03T09:30, 1h',
  ganttBadDate: 'gantt\n  dateFormat YYYY-MM-DDTHH:mm\n  section stage canary\n  demo : c1, 2024-13-45T09:00, 30m',
  flowchartUnbalancedSubgraph: 'flowchart LR\n  subgraph canary["stage canary"]\n    demo["demo"]\n  canary --> production',
};
type Name = keyof typeof DIAGRAMS;
const NAMES = Object.keys(DIAGRAMS) as Name[];

/** The SUMMARY pages of the example fleet (test/fixtures/example), the fleet's then each cluster's: their diagrams must render as synth writes them. */
const SUMMARY = (() => {
  const dir = mkdtempSync(join(tmpdir(), 'kg-mermaid-'));
  try {
    const files = synthesize(loadPlatform(copyExample(dir)).platform);
    return [files.get('dist/SUMMARY.md') ?? '', ...[...files].filter(([p]) => /^dist\/[^/]+\/SUMMARY\.md$/.test(p)).map(([, text]) => text)].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
})();

// Visible in the test names where Chromium is missing; .ci/run installs it.
const RENDERS = hasChromium();
const itRenders = RENDERS ? it : it.skip;

/** The named diagrams, then the SUMMARY's: one child process and one browser for the whole file, side by side. */
const INPUT = [...NAMES.map((name) => DIAGRAMS[name]), ...mermaidBlocks(SUMMARY)];
const parsed = {} as Record<Name, string | undefined>;
let summaryParsed: (string | undefined)[] = [];
const rendered = {} as Record<Name, MermaidRender>;
let summaryRendered: MermaidRender[] = [];
beforeAll(async () => {
  const [errors, renders] = await Promise.all([parseMermaid(INPUT), RENDERS ? renderMermaid(INPUT) : []]);
  NAMES.forEach((name, i) => { parsed[name] = errors[i]; rendered[name] = renders[i]; });
  summaryParsed = errors.slice(NAMES.length);
  summaryRendered = renders.slice(NAMES.length);
}, 90_000);

describe('mermaidBlocks', () => {
  it('returns the body of every mermaid fence, in order, and nothing of other fences', () => {
    const markdown = [
      '# Title', '', '```mermaid', 'flowchart LR', '  a --> b', '```', '',
      '```yaml', 'a: 1', '```', '',
      '~~~mermaid', 'gantt', '  dateFormat YYYY-MM-DD', '~~~',
    ].join('\n');
    expect(mermaidBlocks(markdown)).toEqual(['flowchart LR\n  a --> b', 'gantt\n  dateFormat YYYY-MM-DD']);
  });

  it('reads fences as CommonMark does: longer fences, indentation, CRLF, an unclosed block', () => {
    // A four-backtick fence quotes a mermaid fence: that is text, not a diagram.
    expect(mermaidBlocks('````markdown\n```mermaid\nflowchart LR\n```\n````')).toEqual([]);
    expect(mermaidBlocks('````mermaid\nflowchart LR\n```\n  a --> b\n````')).toEqual(['flowchart LR\n```\n  a --> b']);
    expect(mermaidBlocks('  ```mermaid\n  flowchart LR\n    a --> b\n  ```')).toEqual(['flowchart LR\n  a --> b']);
    expect(mermaidBlocks('```mermaid\r\nflowchart LR\r\n```\r\n')).toEqual(['flowchart LR']);
    expect(mermaidBlocks('```mermaid\nflowchart LR\n  a --> b')).toEqual(['flowchart LR\n  a --> b']);
    expect(mermaidBlocks('```mermaidx\nx\n```\n    ```mermaid\n```')).toEqual([]);
  });

  it('finds the flowcharts of the example\'s SUMMARY pages', () => {
    expect(mermaidBlocks(SUMMARY).length).toBeGreaterThan(0);
    expect(mermaidBlocks(SUMMARY).every((block) => block.startsWith('flowchart '))).toBe(true);
  });
});

describe('parseMermaid in Node', () => {
  it('accepts a valid gantt chart and a valid flowchart', () => {
    expect([parsed.gantt, parsed.flowchart]).toEqual([undefined, undefined]);
  });

  it('fails when a gantt task has no colon', () => {
    expect(parsed.ganttTaskWithoutColon).toMatch(/^Parse error on line 4:[\s\S]*Expecting 'taskData'/);
  });

  it('fails when a gantt task has a date that does not exist, as the render does', () => {
    expect(parsed.ganttBadDate).toMatch(/^Invalid date:2024-13-45T09:00/);
  });

  it('fails when a flowchart subgraph has no end', () => {
    expect(parsed.flowchartUnbalancedSubgraph).toMatch(/^Parse error on line 5:[\s\S]*Expecting [^\n]*'end'/);
  });

  it('accepts every diagram of the example\'s SUMMARY pages', () => {
    expect(summaryParsed).toEqual(mermaidBlocks(SUMMARY).map(() => undefined));
  });

  it('answers an empty list without starting node', async () => {
    expect(await parseMermaid([])).toEqual([]);
  });
});

describe(RENDERS ? 'renderMermaid in headless Chromium' : 'renderMermaid (skipped: no /usr/bin/chromium; apt-get install chromium, as .ci/run does)', () => {
  itRenders('renders a gantt chart to an SVG with its sections and tasks', () => {
    expect(rendered.gantt.error).toBeUndefined();
    expect(rendered.gantt.svg).toMatch(/^<svg[^>]* aria-roledescription="gantt"/);
    expect(rendered.gantt.svg).toContain('stage canary');
    expect(rendered.gantt.svg).toContain('maintenance window');
    expect(rendered.gantt.svg).toContain('prod-eu, prod-us');
  });

  itRenders('renders a flowchart to an SVG with its subgraphs and nodes', () => {
    expect(rendered.flowchart.error).toBeUndefined();
    expect(rendered.flowchart.svg).toMatch(/^<svg[^>]* aria-roledescription="flowchart-v2"/);
    expect(rendered.flowchart.svg).toContain('stage production');
    expect(rendered.flowchart.svg).toContain('prod-eu');
  });

  itRenders('fails when a gantt task has a date that does not exist', () => {
    expect(rendered.ganttBadDate).toEqual({ error: expect.stringMatching(/^Invalid date:2024-13-45T09:00/) as unknown });
  });

  itRenders('fails when a gantt task has no colon', () => {
    expect(rendered.ganttTaskWithoutColon).toEqual({ error: expect.stringMatching(/^Parse error on line 4:[\s\S]*Expecting 'taskData'/) as unknown });
  });

  itRenders('fails when a flowchart subgraph has no end', () => {
    expect(rendered.flowchartUnbalancedSubgraph).toEqual({ error: expect.stringMatching(/^Parse error on line 5:[\s\S]*Expecting [^\n]*'end'/) as unknown });
  });

  itRenders('renders every diagram of the example\'s SUMMARY pages: the picture of the fleet, then each cluster\'s waves', () => {
    expect(summaryRendered.length).toBe(mermaidBlocks(SUMMARY).length);
    expect(summaryRendered.map((r) => r.error)).toEqual(summaryRendered.map(() => undefined));
    const [fleet, ...waves] = summaryRendered;
    expect(fleet.svg).toMatch(/no window · \d+ teams/);
    for (const r of waves) expect(r.svg).toContain('wave 0: ');
  });
});

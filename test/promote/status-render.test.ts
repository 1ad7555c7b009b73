/**
 * The rollout page's picture (`npm run promote -- status --format markdown`) as GitHub draws it
 * in a run summary: rendered with mermaid in headless Chromium (test/support/mermaid.ts) for a
 * fleet of a thousand clusters, and parsed with mermaid's parser in Node. Slow tier: it starts a
 * browser, and the parser a jsdom process.
 */
import { rolloutStatus } from '../../src/promote/status';
import { rolloutFlowchart, rolloutMarkdown } from '../../src/promote/status-markdown';
import { hasChromium, mermaidBlocks, parseMermaid, renderMermaid } from '../support/mermaid';
import { aStagedCluster, aStagedPlatform, bigFleet, FINISHED } from './status-fleet';

/** The widest picture that stays readable in a run summary without scrolling, in px. */
const MAX_WIDTH_PX = 2_000;

// Visible in the test name where Chromium is missing; .ci/run installs it.
const itRenders = hasChromium() ? it : it.skip;

describe('the rollout page\'s picture, through mermaid\'s own parser (Node, no browser)', () => {
  it('draws a picture mermaid parses, labels with quotes, hashes and angle brackets included', async () => {
    const { platform, applications, revisions } = bigFleet(30);
    const odd = aStagedPlatform([aStagedCluster('a', 1), aStagedCluster('b', 2)]);
    const quoted = { ...odd, gitops: { ...odd.gitops, stageRefPrefix: 'rel"ease#<x>/' } };
    const diagrams = [rolloutFlowchart(rolloutStatus(platform, { applications, revisions, now: new Date(FINISHED) })), rolloutFlowchart(rolloutStatus(quoted, { revisions: new Map(), now: new Date(FINISHED) }))];
    expect(await parseMermaid(diagrams)).toEqual([undefined, undefined]);
  });
});

describe('the rollout page of a thousand clusters', () => {
  itRenders('draws one picture of the stages, as wide as the stages, not the fleet', async () => {
    const { platform, applications, revisions } = bigFleet(1000);
    const diagrams = mermaidBlocks(rolloutMarkdown(rolloutStatus(platform, { applications, revisions, now: new Date(FINISHED) })));
    expect(diagrams).toHaveLength(1);
    const [drawn] = await renderMermaid(diagrams);
    expect(drawn.error).toBeUndefined();
    const box = /viewBox="([-\d.]+) ([-\d.]+) ([\d.]+) ([\d.]+)"/.exec(drawn.svg ?? '');
    expect(box).not.toBeNull();
    expect(Number(box?.[3])).toBeLessThan(MAX_WIDTH_PX);
    // Every stage is a box with its counts.
    expect(drawn.svg).toContain('900 waiting');
  }, 60_000);
});

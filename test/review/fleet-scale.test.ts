/**
 * A review at fleet scale (issue 30, contract 7.3): 100 clusters × 20 teams, three stages, a
 * window on a third of the clusters, and one fleet-wide AMI alias bump. The PR comment fits
 * GitHub's limit with everything in it; the text report's first screen says how many pools and
 * clusters drift, in which stages and windows, and what to approve.
 */
import { loadPlatform } from '../../src/config/load';
import type { Platform } from '../../src/config/platform';
import { review } from '../../src/review/changes';
import { markdownReport, terminalReport } from '../../src/review/report';
import { summaryDataOf } from '../../src/review/summary-data';
import { GeneratedTree } from '../../src/review/tree';
import { synthesize } from '../../src/synth';
import { aTerraform, removeProjects, writeProject } from '../builders';
import { hasChromium, mermaidBlocks, parseMermaid, renderMermaid } from '../support/mermaid';

afterAll(removeProjects);

/** GitHub's limit on a comment. */
const GITHUB_COMMENT_LIMIT = 65_536;
const AT = new Date('2026-11-26T10:00:00Z');

/** The fleet of 100 clusters of 20 teams: stages 1 (10 clusters), 2 (30), 3 (60); every third cluster in a window. */
function fleet(alias: string): Platform {
  const clusters: Record<string, unknown> = {};
  const terraform: Record<string, unknown> = {};
  for (let i = 0; i < 100; i++) {
    const id = `c${String(i).padStart(3, '0')}`;
    clusters[id] = { terraformOutputs: `terraform/${id}.json`, smokeTests: false, stage: i < 10 ? 1 : i < 40 ? 2 : 3, ...(i % 3 === 0 ? { window: i % 2 ? 'weeknights' : 'evenings' } : {}) };
    terraform[id] = aTerraform({ cluster_name: id });
  }
  const teams = Object.fromEntries(Array.from({ length: 20 }, (_, t) => [`team${t}`, { owner: `team${t}@acme.example`, arch: ['arm64'], capacityTypes: ['spot', 'on-demand'], instanceCategories: ['c', 'm'] }]));
  const config = {
    gitops: { repoURL: 'https://github.com/acme/platform-gitops.git' },
    karpenter: { version: '1.14.1' },
    defaults: { ami: { alias }, limits: { cpu: '100', memory: '400Gi' } },
    windows: {
      weeknights: { timeZone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu'], start: '22:00', duration: '6h' },
      evenings: { timeZone: 'America/New_York', days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '20:00', duration: '6h' },
    },
    clusters,
    teams,
  };
  return loadPlatform(writeProject({ config, terraform: terraform as never }).configPath).platform;
}

describe('a fleet-wide AMI bump on 100 clusters of 20 teams', () => {
  const base = new GeneratedTree(synthesize(fleet('al2023@v20250505')), 'origin/main');
  const head = new GeneratedTree(synthesize(fleet('al2023@v20260409')), 'the working tree');
  const data = summaryDataOf(head);
  if (!('data' in data)) throw new Error(data.missing);
  const result = review(base, head);
  const fleetContext = { data: data.data, at: AT };

  it('gives a PR comment under GitHub\'s limit, with the rollout diagram and the way to the full report', () => {
    const md = markdownReport(result, 'origin/main', { fleet: fleetContext, fullReportUrl: 'https://github.com/acme/gitops/actions/runs/1' });
    expect(md.length).toBeLessThan(GITHUB_COMMENT_LIMIT);
    expect(md).toMatch(/```mermaid\ngantt\n/);
    expect(md).toMatch(/The full report \(every resource, every field\): \[the workflow run's `karpenter-diff` artifact\]/);
    expect(md).toMatch(/EC2NodeClass changed ×2,000 on 100 clusters: AMI alias al2023@v20250505 → al2023@v20260409/);
  });

  it('draws the rollout as a Gantt chart that mermaid parses and renders (stages, windows, on a UTC axis)', async () => {
    const [gantt] = mermaidBlocks(markdownReport(result, 'origin/main', { fleet: fleetContext }));
    expect(gantt).toMatch(/^gantt\n/);
    for (const stage of [1, 2, 3]) expect(gantt).toMatch(new RegExp(`section Stage ${stage}\n`));
    // A task's name never holds a colon: mermaid splits a task line at its last one.
    for (const task of gantt.split('\n').filter((l) => /^ {2}[^ ].* :/.test(l) && !/^ {2}(title|dateFormat|axisFormat|section)\b/.test(l))) expect(task.split(' :')[0]).not.toMatch(/:/);
    expect(await parseMermaid([gantt])).toEqual([undefined]);
    if (!hasChromium()) return;
    const [rendered] = await renderMermaid([gantt]);
    expect(rendered.error).toBeUndefined();
    expect(rendered.svg).toMatch(/window weeknights/);
    expect(rendered.svg).toMatch(/Stage 3/);
  }, 60_000);

  it('says on the first screen of the text report how many pools and clusters drift, in which stages and windows, and what to approve', () => {
    const first = terminalReport(result, 'origin/main', { fleet: fleetContext }).split('\n').slice(0, 60).join('\n');
    expect(first).toMatch(/0 destructive, 2000 replaces-nodes/);
    expect(first).toMatch(/To approve/);
    expect(first).toMatch(/♻️ EC2NodeClass changed ×2,000 on 100 clusters: AMI alias al2023@v20250505 -> al2023@v20260409/);
    for (const stage of [1, 2, 3]) expect(first).toMatch(new RegExp(`stage ${stage}, no window: `));
    expect(first).toMatch(/stage 1, window evenings: .*drifted nodes replaced 2026-11-27 01:00 UTC \(Thu 20:00 America\/New_York\)/);
    expect(first).toMatch(/stage 3, window weeknights: .*synced when stage 3 is promoted: after every stage-2 cluster has it/);
    expect(first).toMatch(/paced by 10% of the pool's nodes at a time/);
  });

  it('still names every resource in the full report', () => {
    const full = terminalReport(result, 'origin/main', { fleet: fleetContext, full: true });
    const changed = full.split('\n').filter((l) => /♻️ EC2NodeClass team\d+ changed/.test(l));
    expect(changed.length).toBe(2000);
    for (const id of ['c000', 'c057', 'c099']) expect(full).toMatch(new RegExp(`^cluster ${id}: 20 replaces-nodes`, 'm'));
  });
});

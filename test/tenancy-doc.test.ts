/**
 * docs/tenancy.md shows output of synth, fit and diff: each example is produced here from the
 * inputs the page describes, so the page cannot drift from what the commands print.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../src/cli';
import { loadPlatform } from '../src/config/load';
import { formatProblem } from '../src/input/problems';
import { synthesize } from '../src/synth';
import { aConfig, removeProjects, writeProject } from './builders';
import { aFleetConfig, Fleet, TEAMS } from './review/fleet';
import { admitAll, JsonObject } from './support/admission-policy';
import { renderedPolicy } from './model/tenancy-facts';
import { aDeploymentPod } from './support/pods';

afterAll(removeProjects);

const page = readFileSync(join(__dirname, '..', 'docs', 'tenancy.md'), 'utf8');
/** The code blocks of the page, each as its lines. */
const blocks = [...page.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1].trimEnd().split('\n'));
const blockStarting = (first: RegExp) => {
  const found = blocks.find((b) => first.test(b[0]));
  if (!found) throw new Error(`docs/tenancy.md has no block starting ${first}`);
  return found;
};

/** Teams web and vision with namespaces, team legacy without, on the latest AMI of the catalog's era. */
const config = aConfig({
  defaults: { ami: { alias: 'al2023@v20260409' }, limits: { cpu: '100', memory: '400Gi' } },
  teams: { web: { namespaces: ['web'] }, vision: { namespaces: ['vision', 'vision-batch'], pools: { gpu: {} } }, legacy: {} },
});

describe('docs/tenancy.md', () => {
  const project = writeProject({ config });

  it('shows the refusal the policy words', () => {
    const files = synthesize(loadPlatform(project.configPath).platform);
    const pair = renderedPolicy(files);
    const decision = admitAll(pair, { operation: 'CREATE', namespace: 'web', object: aDeploymentPod({ tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'vision', effect: 'NoSchedule' }] }) });
    const shown = blockStarting(/^Error from server/).join(' ');
    expect(shown).toBe(`Error from server (Forbidden): error when creating "app.yaml": ${decision.message}`);
  });

  it('shows the warning for a team without namespaces', () => {
    const [warning] = loadPlatform(project.configPath).warnings.map(formatProblem);
    const shown = blockStarting(/^warning: /)[0];
    expect(shown.replace(/^warning: config\/platform\.yaml:\d+:\d+: /, '')).toBe(warning.replace(/^.*platform\.yaml:\d+:\d+: /, ''));
  });

  it('shows what fit prints', async () => {
    const manifest = join(project.dir, 'app.yaml');
    writeFileSync(manifest, [
      'apiVersion: apps/v1', 'kind: Deployment', 'metadata: { name: api, namespace: web }', 'spec:',
      '  selector: { matchLabels: { app: api } }', '  template:', '    metadata: { labels: { app: api } }', '    spec:',
      '      tolerations: [{ key: dedicated, value: web, effect: NoSchedule }]', '      nodeSelector: { team: web }',
      '      containers: [{ name: api, image: nginx, resources: { requests: { cpu: 500m, memory: 1Gi } } }]', '',
    ].join('\n'));
    const small = writeProject({ config: aConfig({ ...config, teams: { web: { namespaces: ['web'] }, vision: { namespaces: ['vision', 'vision-batch'] } } }) });
    const out: string[] = [];
    const code = await run(['fit', manifest, '--config', small.configPath], { out: (l) => out.push(l), err: () => undefined }, {});
    expect(code).toBe(0);
    expect(blockStarting(/^Deployment web\/api/)).toEqual(out);
  });

  it('shows a pool admission refuses the workload on: marked, with the policy\'s reason, and not counted', async () => {
    const manifest = join(project.dir, 'batch.yaml');
    writeFileSync(manifest, [
      'apiVersion: apps/v1', 'kind: Deployment', 'metadata: { name: batch, namespace: web }', 'spec:',
      '  selector: { matchLabels: { app: batch } }', '  template:', '    metadata: { labels: { app: batch } }', '    spec:',
      '      tolerations: [{ key: dedicated, value: vision, effect: NoSchedule }]',
      '      containers: [{ name: batch, image: nginx, resources: { requests: { cpu: 500m, memory: 1Gi } } }]', '',
    ].join('\n'));
    const small = writeProject({ config: aConfig({ ...config, teams: { web: { namespaces: ['web'] }, vision: { namespaces: ['vision', 'vision-batch'] } } }) });
    const out: string[] = [];
    const code = await run(['fit', manifest, '--config', small.configPath], { out: (l) => out.push(l), err: () => undefined }, {});
    expect(code).toBe(0);
    expect(blockStarting(/^Deployment web\/batch/)).toEqual(out);
  });

  it('shows what diff prints when a team is newly guarded and another loses a namespace', async () => {
    const teams = TEAMS as { web: JsonObject; ml: JsonObject };
    const fleet = await Fleet.create(aFleetConfig(['prod', 'staging'], { teams: { web: teams.web, ml: { ...teams.ml, namespaces: ['ml', 'research'] } } }));
    fleet.configure(aFleetConfig(['prod', 'staging'], { teams: { web: { ...teams.web, namespaces: ['web'] }, ml: { ...teams.ml, namespaces: ['ml'] } } }));
    const r = await fleet.diff();
    const lines = r.out.split('\n');
    const shown = blockStarting(/^cluster prod: /);
    const start = lines.indexOf(shown[0]);
    expect(lines.slice(start, start + shown.length)).toEqual(shown);
  });
});

/**
 * Where problems point: exact `line:col` in platform.yaml, and, for values
 * merged through the inheritance chain, the line of the level that set the
 * value (defaults, team, pool or cluster overrides).
 */
import { loadPlatform } from '../../src/config/load';
import { formatProblem } from '../../src/input/problems';
import { aConfig, positionOf, removeProjects, writeProject } from '../builders';
import { aProblem, inputErrorOf, problemsOf } from './helpers';

afterAll(removeProjects);

/** A valid platform.yaml written by hand, so that line numbers are plain to read. */
const HEADER = [
  'gitops:',                                                  // 1
  '  repoURL: https://github.com/acme/platform-gitops.git',   // 2
  'karpenter:',                                               // 3
  '  version: 1.14.1',                                        // 4
  'clusters:',                                                // 5
  '  demo:',                                                  // 6
  '    terraformOutputs: terraform/demo.json',                // 7
  'defaults:',                                                // 8
  '  ami:',                                                   // 9
  '    alias: al2023@v20250505',                              // 10
  'teams:',                                                   // 11
  '  web:',                                                   // 12
];

function raw(...lines: string[]): string {
  return `${[...HEADER, ...lines].join('\n')}\n`;
}

describe('exact positions', () => {
  it('points at the value of a field with a bad value', () => {
    expect(problemsOf({ rawConfig: raw('    capacityTypes: [spott]') })).toEqual([
      expect.stringMatching(/platform\.yaml:13:21: teams\.web\.capacityTypes\[0\]: unknown value "spott"/),
    ]);
  });

  it('points at the key of an unknown key', () => {
    expect(problemsOf({ rawConfig: raw('    owner: web@acme.example', '    capacityType: [spot]') })).toEqual([
      expect.stringMatching(/platform\.yaml:14:5: teams\.web\.capacityType: unknown key "capacityType"/),
    ]);
  });

  it('points at the parent of a missing field', () => {
    const rawConfig = raw('    owner: web@acme.example').replace('  repoURL: https://github.com/acme/platform-gitops.git', '  targetRevision: main');
    expect(problemsOf({ rawConfig })).toEqual([
      expect.stringMatching(/platform\.yaml:2:3: gitops\.repoURL: required field is missing/),
    ]);
  });

  it('points at the key of a pool whose name is too long', () => {
    expect(problemsOf({ rawConfig: raw('    pools:', `      ${'x'.repeat(60)}: {}`) })).toEqual([
      expect.stringMatching(/platform\.yaml:14:7: teams\.web\.pools\.x{60}: pool name "web-x{60}" is 64 characters/),
    ]);
  });

  it('points at the list entry of an unknown team', () => {
    const rawConfig = raw('    owner: web@acme.example').replace('    terraformOutputs: terraform/demo.json', '    terraformOutputs: terraform/demo.json\n    teams: [web, wbe]');
    expect(problemsOf({ rawConfig })).toEqual([
      expect.stringMatching(/platform\.yaml:8:18: clusters\.demo\.teams\[1\]: unknown team "wbe" \(did you mean "web"\?\)/),
    ]);
  });

  // The yaml library reports an unclosed quote where it gave up: the line after the quote.
  it('points at the line of a YAML syntax error', () => {
    expect(problemsOf({ rawConfig: raw('    owner: "web@acme.example') })).toEqual(aProblem(
      /platform\.yaml:1[34]:\d+: invalid YAML: a quoted value is not closed: add the closing quote on the same line/,
    ));
  });

  it('points at the second occurrence of a duplicate key', () => {
    expect(problemsOf({ rawConfig: raw('    weight: 10', '    weight: 20') })).toEqual(aProblem(
      /platform\.yaml:14:5: (teams\.web\.weight: )?duplicate key/,
    ));
  });
});

describe('YAML syntax', () => {
  it('fails when platform.yaml is not valid YAML', () => {
    const problems = problemsOf({ rawConfig: raw('    owner: "web@acme.example') });
    expect(problems).toEqual(aProblem(/platform\.yaml(:\d+:\d+)?: invalid YAML: a quoted value is not closed: add the closing quote on the same line/));
  });

  it('fails when platform.yaml has a duplicate key', () => {
    const problems = problemsOf({ rawConfig: raw('    weight: 10', '    weight: 20') });
    expect(problems).toEqual([expect.stringMatching(/platform\.yaml:14:5: duplicate key "weight" \(first at line 13\): each key may appear once in a map$/)]);
  });

  it('reports each YAML problem on one line', () => {
    const { message } = inputErrorOf(() => loadPlatform(writeProject({ rawConfig: 'gitops:\n  repoURL: [a\nkarpenter: {\n' }).configPath));
    for (const line of message.split('\n')) expect(line).toMatch(/platform\.yaml(:\d+:\d+)?: invalid YAML: [^\n]+$/);
  });
});

describe('inheritance origin', () => {
  it('points a schema problem in defaults at the defaults line', () => {
    const { configText, configPath } = writeProject({ config: aConfig({ defaults: { capacityTypes: ['spott'] } }) });
    expect(inputErrorOf(() => loadPlatform(configPath)).problems.map(formatProblem)).toEqual([
      expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(configText, 'spott')}: defaults\\.capacityTypes\\[0\\]: unknown value "spott"`)),
    ]);
  });

  it('points a pool problem at defaults when defaults set the value', () => {
    const config = aConfig({ defaults: { volume: { size: '10Gi' } }, teams: { web: {}, api: {} } });
    const { configText, configPath } = writeProject({ config });
    expect(inputErrorOf(() => loadPlatform(configPath)).problems.map(formatProblem)).toEqual([
      expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(configText, '10Gi')}: defaults\\.volume\\.size: AL2023 root volume must be at least 20Gi`)),
    ]);
  });

  // A level that merges into a map (team `volume: { type: gp3 }`) must not take over the
  // origin of the keys it did not set.
  it('points a pool problem at defaults when the team sets another key of the same map', () => {
    const config = aConfig({ defaults: { volume: { size: '10Gi' } }, teams: { web: { volume: { type: 'gp3' } } } });
    const { configText, configPath } = writeProject({ config });
    expect(inputErrorOf(() => loadPlatform(configPath)).problems.map(formatProblem)).toEqual([
      expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(configText, '10Gi')}: defaults\\.volume\\.size: AL2023 root volume must be at least 20Gi`)),
    ]);
  });

  // The same from the other side: the team set volume.throughput, the cluster overrides only volume.type.
  it('points a pool problem at the team when cluster overrides set another key of the same map', () => {
    const config = aConfig({ clusters: { demo: { overrides: { volume: { type: 'gp2' } } } }, teams: { web: { volume: { throughput: 250 } } } });
    const { configText, configPath } = writeProject({ config });
    expect(inputErrorOf(() => loadPlatform(configPath)).problems.map(formatProblem)).toEqual([
      expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(configText, '250\n')}: teams\\.web\\.volume\\.throughput: throughput applies to gp3 volumes only`)),
    ]);
  });

  it('points a pool problem at the team when the team replaced the defaults value', () => {
    const config = aConfig({ defaults: { volume: { size: '30Gi' } }, teams: { web: { volume: { size: '10Gi' } } } });
    const { configText, configPath } = writeProject({ config });
    expect(inputErrorOf(() => loadPlatform(configPath)).problems.map(formatProblem)).toEqual([
      expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(configText, '10Gi')}: teams\\.web\\.volume\\.size: AL2023 root volume`)),
    ]);
  });

  it('points a pool problem at the pool when the pool set the value', () => {
    const config = aConfig({ defaults: { kubelet: { imageGCLowThresholdPercent: 60 } }, teams: { web: { pools: { gpu: { kubelet: { imageGCHighThresholdPercent: 55 } } } } } });
    const { configText, configPath } = writeProject({ config });
    expect(inputErrorOf(() => loadPlatform(configPath)).problems.map(formatProblem)).toEqual([
      expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(configText, '55')}: teams\\.web\\.pools\\.gpu\\.kubelet\\.imageGCHighThresholdPercent: must be greater than imageGCLowThresholdPercent`)),
    ]);
  });

  it('points a pool problem at the cluster overrides when the overrides set the value', () => {
    const config = aConfig({ clusters: { demo: { overrides: { volume: { throughput: 250 } } } }, teams: { web: { volume: { type: 'gp2' } } } });
    const { configText, configPath } = writeProject({ config });
    expect(inputErrorOf(() => loadPlatform(configPath)).problems.map(formatProblem)).toEqual([
      expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(configText, '250')}: clusters\\.demo\\.overrides\\.volume\\.throughput: throughput applies to gp3 volumes only \\(type is gp2\\)`)),
    ]);
  });

  it('points a schema problem in cluster overrides at the overrides line', () => {
    const config = aConfig({ clusters: { demo: { overrides: { weight: 101 } } } });
    const { configText, configPath } = writeProject({ config });
    expect(inputErrorOf(() => loadPlatform(configPath)).problems.map(formatProblem)).toEqual([
      expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(configText, '101')}: clusters\\.demo\\.overrides\\.weight: must be at most 100`)),
    ]);
  });

  it('points a reserved-capacity problem at the level that set capacityTypes', () => {
    const config = aConfig({ defaults: { capacityTypes: ['reserved'] } });
    const { configText, configPath } = writeProject({ config });
    expect(inputErrorOf(() => loadPlatform(configPath)).problems.map(formatProblem)).toEqual([
      expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(configText, '- reserved')}: defaults\\.capacityTypes: pool web uses reserved capacity`)),
    ]);
  });

  it('points a requirement clash at the level that wrote the requirement', () => {
    const config = aConfig({ defaults: { requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }] } });
    const { configText, configPath } = writeProject({ config });
    expect(inputErrorOf(() => loadPlatform(configPath)).problems.map(formatProblem)).toEqual([
      expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(configText, 'kubernetes.io/arch')}: defaults\\.requirements\\[0\\]\\.key: kubernetes\\.io/arch is already set by the field arch`)),
    ]);
  });

  it('points a problem about a value no level set at the pool itself', () => {
    const config = aConfig({ defaults: undefined, teams: { web: { pools: { gpu: { weight: 10 } } } } });
    const { configText, configPath } = writeProject({ config });
    expect(inputErrorOf(() => loadPlatform(configPath)).problems.map(formatProblem)).toEqual(expect.arrayContaining([
      expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(configText, 'weight: 10')}: teams\\.web\\.pools\\.gpu: pool web-gpu has no ami`)),
    ]));
  });
});

/**
 * Every generated file reads back as exactly the objects it was written from, whatever
 * reads it: YAML 1.2 (core schema), YAML 1.1, and go-yaml v2 as Kubernetes tools use it
 * (sigs.k8s.io/yaml, here through Helm's `fromYaml`, the same reader as Argo CD's and
 * kubectl's). The config is full of strings that some reader would take for another type.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { GeneratedFile, renderFile } from '../../src/output/render';
import { generate } from '../../src/synth';
import { rawConfigWithTeams, removeProjects } from '../builders';
import { load } from '../config/helpers';
import { findManifest, helmTemplate } from '../support/helm';

afterAll(removeProjects);

/** Strings that are numbers, booleans, nulls or times to at least one reader. */
const HAZARDS = ['0o17', '0X1F', '1_0e_3', '1e3', '08', '012', '0x10', '1_000', '0b101', '1:20', '2026-01-01', 'yes', 'on', 'n', 'y', 'off', 'true', 'null', '~', '.5', '+5', '.inf', '<<'];

/** The example teams, with every hazard in team ids, labels, taints, tags, requirement values, owners and chart values. */
function hostileFiles(): GeneratedFile[] {
  const labelSafe = HAZARDS.filter((h) => /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(h));
  const dnsSafe = HAZARDS.filter((h) => /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(h));
  const teams = dnsSafe.map((id, i) => [
    `  "${id}":`,
    `    owner: "${HAZARDS[i % HAZARDS.length]}"`,
    `    costCenter: "${HAZARDS[(i + 1) % HAZARDS.length]}"`,
    `    labels: { ${labelSafe.map((v, j) => `"k${j}": "${v}"`).join(', ')} }`,
    `    taints: [{ key: example.com/t, value: "${labelSafe[i % labelSafe.length]}", effect: NoSchedule }]`,
    `    tags: { ${HAZARDS.map((v, j) => `"${v}": "${HAZARDS[(j + i) % HAZARDS.length]}"`).join(', ')} }`,
    `    requirements: [{ key: example.com/r, operator: In, values: [${labelSafe.map((v) => `"${v}"`).join(', ')}] }]`,
  ]).flat();
  const config = rawConfigWithTeams(teams).replace(
    'karpenter: { version: 1.14.1 }',
    `karpenter: { version: 1.14.1, helmValues: { podAnnotations: { ${HAZARDS.map((v, j) => `"a${j}": "${v}"`).join(', ')} } } }`,
  );
  const files: GeneratedFile[] = [];
  generate(load({ rawConfig: config }).platform, (f) => files.push(f));
  return files;
}

describe('generated files read back as written', () => {
  const files = hostileFiles().filter((f) => f.docs);

  it('covers every kind of file', () => {
    expect(files.map((f) => f.path)).toEqual(expect.arrayContaining([
      'dist/demo/nodepools/0o17/0o17.yaml', 'dist/demo/smoke-tests/0o17.yaml', 'dist/demo/karpenter/values.yaml', 'dist/demo/apps/karpenter.yaml', 'argocd/demo.yaml',
    ]));
  });

  it.each([['YAML 1.2 (core schema)', '1.2'], ['YAML 1.1', '1.1']] as const)('with %s', (_name, version) => {
    for (const file of files) {
      const read = parseAllDocuments(renderFile(file), { version }).map((d) => d.toJS());
      expect({ file: file.path, docs: read }).toEqual({ file: file.path, docs: JSON.parse(JSON.stringify(file.docs)) });
    }
  });

  it('with go-yaml v2, as Argo CD, kubectl and Helm read it', () => {
    // A chart whose one template reads each document with Helm's fromYaml and writes it back as JSON.
    const chart = mkdtempSync(join(tmpdir(), 'kg-reader-chart-'));
    try {
      mkdirSync(join(chart, 'templates'));
      mkdirSync(join(chart, 'docs'));
      writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: reader\nversion: 0.1.0\n');
      writeFileSync(join(chart, 'templates/read.yaml'), [
        'apiVersion: v1', 'kind: ConfigMap', 'metadata: { name: read }', 'data:',
        '{{- range $path, $_ := .Files.Glob "docs/*" }}',
        '  {{ base $path | quote }}: {{ $.Files.Get $path | fromYaml | toJson | quote }}',
        '{{- end }}', '',
      ].join('\n'));
      const expected = new Map<string, unknown>();
      files.forEach((file, i) => renderFile(file).split(/^---\n/m).forEach((text, j) => {
        const name = `${i}-${j}.yaml`;
        writeFileSync(join(chart, 'docs', name), text);
        expected.set(name, { file: file.path, doc: JSON.parse(JSON.stringify(file.docs?.[j])) });
      }));
      const data = findManifest(helmTemplate({}, { chart }), 'ConfigMap', 'read').data as Record<string, string>;
      for (const [name, want] of expected) {
        expect({ file: (want as { file: string }).file, doc: JSON.parse(data[name]) }).toEqual(want);
      }
    } finally {
      rmSync(chart, { recursive: true, force: true });
    }
  });
});

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { buildCatalog, CatalogData, renderCatalog } from '../catalog/generate';
import { CHART_VALUES_KEYS, CHART_VERSION } from '../release/chart-values-keys';
import { KUBERNETES_COMPATIBILITY } from '../release/compatibility';
import { FEATURE_GATE_DEFAULTS, FEATURE_GATE_NAMES, SETTINGS_RULES } from '../release/settings-rules';
import { buildChartKeys, chartKeyPaths, hasChartKey, renderChartKeys, templateValuePaths } from './chart-keys-generator';
import { buildCompatibility, renderCompatibility } from './compatibility-generator';
import { CHART_DIR, Release, RELEASE_FILES, ReleaseError, templateNames } from './release';
import { buildSettingsRules, renderSettingsRules, SettingsRulesData } from './settings-generator';

/**
 * Every file `npm run upgrade` writes, relative to the repository root, besides the vendored
 * release ({@link VENDORED_RELEASE}). Nothing else is touched (the journal of an interrupted
 * upgrade is checked against these).
 */
export const UPGRADE_FILES = {
  nodePoolImport: 'imports/karpenter.sh.ts',
  ec2NodeClassImport: 'imports/karpenter.k8s.aws.ts',
  chartKeys: 'src/release/chart-values-keys.ts',
  settingsRules: 'src/release/settings-rules.ts',
  compatibility: 'src/release/compatibility.ts',
  catalog: 'src/catalog/instance-types.json',
  cdk8sYaml: 'cdk8s.yaml',
} as const;

/**
 * The release the generated files were made from, in the layout of the upstream repository:
 * the tests validate against its CRDs, render its chart with Helm, and check that every
 * generated file is what it makes. Replaced whole by each upgrade.
 */
export const VENDORED_RELEASE = 'test/fixtures/karpenter-release';

/** Whether a path (relative to the root) is one an upgrade may write or remove, or a folder of one. */
export function isUpgradePath(path: string): boolean {
  const files: readonly string[] = Object.values(UPGRADE_FILES);
  if (files.includes(path) || files.some((f) => f.startsWith(`${path}/`)) || VENDORED_RELEASE.startsWith(`${path}/`)) return true;
  const inside = path.startsWith(`${VENDORED_RELEASE}/`) || path === VENDORED_RELEASE;
  return inside && path.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

/** What an upgrade writes and what it changes for the user. */
export interface UpgradePlan {
  /** Each file of {@link UPGRADE_FILES} with its new content. */
  readonly files: ReadonlyMap<string, string>;
  /** What changed between the release in use and the new one, section by section, for the terminal. */
  readonly report: readonly string[];
  /** What a person should check (settings only the docs describe, keys only comments document). */
  readonly notes: readonly string[];
}

/** What {@link planUpgrade} needs besides the release. */
export interface PlanOptions {
  /** The repository root: the current `cdk8s.yaml`, CRDs and catalog are read from it. */
  readonly root: string;
  /** The cdk8s CLI entry (`cdk8s-cli/bin/cdk8s`). */
  readonly cdk8sBin: string;
}

/**
 * Generates, in memory, every file the generator derives from a Karpenter release: the
 * typed CRD classes (by `cdk8s import`, as the manual steps do), the chart's values keys,
 * the settings rules, the compatibility matrix, the instance catalog, the pinned URLs in
 * `cdk8s.yaml` and the CRDs the tests validate against; and what changed. Writes nothing
 * in the repository; throws a {@link ReleaseError} naming the file on anything it cannot read.
 */
export function planUpgrade(release: Release, options: PlanOptions): UpgradePlan {
  const v = release.version;
  const f = release.files;
  const notes: string[] = [];
  const read = (path: string) => readFileSync(join(options.root, path), 'utf8');
  const generate = <T>(file: string, build: () => T): T => {
    try {
      return build();
    } catch (err) {
      throw new ReleaseError(`Karpenter ${v}: ${file}: ${(err as Error).message.replace(/\n/g, '\n  ')}`);
    }
  };
  const text = (key: keyof typeof RELEASE_FILES): string => f[key];

  const crdFields = {
    nodePool: generate(RELEASE_FILES.nodePoolCrd, () => schemaPaths(text('nodePoolCrd'), 'NodePool')),
    ec2NodeClass: generate(RELEASE_FILES.ec2NodeClassCrd, () => schemaPaths(text('ec2NodeClassCrd'), 'EC2NodeClass')),
  };
  const imports = generate(`${RELEASE_FILES.nodePoolCrd}, ${RELEASE_FILES.ec2NodeClassCrd}`, () => importCrds(text('nodePoolCrd'), text('ec2NodeClassCrd'), options.cdk8sBin));
  const chartKeys = generate(RELEASE_FILES.values, () => buildChartKeys(text('values'), v));
  notes.push(...chartKeys.notes.filter((n) => /NOT covered/.test(n)).map((n) => `${RELEASE_FILES.values}: ${n}`));
  const unknownToValues = templateValuePaths([...release.templates.values()]).filter((p) => !hasChartKey(chartKeys.tree, p));
  if (unknownToValues.length) notes.push(`the chart's templates read values that values.yaml does not declare (users cannot set them here): ${unknownToValues.join(', ')}`);
  const settingsNotes: string[] = [];
  const settings = generate(RELEASE_FILES.settings, () => buildSettingsRules({
    settingsMd: text('settings'), valuesYaml: text('values'), deploymentTemplate: release.templates.get('deployment.yaml'), karpenterVersion: v,
    previous: {
      settings: Object.fromEntries(Object.entries(SETTINGS_RULES).map(([k, r]) => [k, { envVar: r.envVar, withGuarded: r.withGuarded, tpl: r.tpl }])),
      featureGates: FEATURE_GATE_NAMES,
    },
  }, settingsNotes));
  notes.push(...settingsNotes);
  const compatibility = generate(RELEASE_FILES.compatibility, () => buildCompatibility(text('compatibility'), v));
  const catalog = generate(`${RELEASE_FILES.instanceTypes}, ${RELEASE_FILES.pricing}`, () => buildCatalog({ instanceTypesMd: text('instanceTypes'), pricingGo: text('pricing'), karpenterVersion: v }));
  const oldCatalog = JSON.parse(read(UPGRADE_FILES.catalog)) as CatalogData;
  const vendored = (path: string) => `${VENDORED_RELEASE}/${path}`;
  // The CRDs in use; none before the first vendored release (every field then reads as new).
  const oldFields = (path: string, kind: string) => (existsSync(join(options.root, vendored(path))) ? schemaPaths(read(vendored(path)), kind) : []);

  const files = new Map<string, string>([
    [UPGRADE_FILES.nodePoolImport, imports.nodePool],
    [UPGRADE_FILES.ec2NodeClassImport, imports.ec2NodeClass],
    [UPGRADE_FILES.chartKeys, renderChartKeys(chartKeys)],
    [UPGRADE_FILES.settingsRules, renderSettingsRules(settings)],
    [UPGRADE_FILES.compatibility, renderCompatibility(compatibility)],
    [UPGRADE_FILES.catalog, renderCatalog(catalog)],
    [UPGRADE_FILES.cdk8sYaml, pinnedUrls(read(UPGRADE_FILES.cdk8sYaml), v)],
  ]);
  // The vendored release: its files, and its chart (kept as it was where the release has none).
  const vendoredFiles = new Map<string, string>((Object.keys(RELEASE_FILES) as (keyof typeof RELEASE_FILES)[]).map((k) => [RELEASE_FILES[k], f[k]]));
  const chart = release.templates.size > 0 ? release : undefined;
  if (chart) {
    if (chart.chartYaml !== undefined) vendoredFiles.set(`${CHART_DIR}/Chart.yaml`, chart.chartYaml);
    for (const [name, text] of chart.templates) vendoredFiles.set(`${CHART_DIR}/templates/${name}`, text);
  } else {
    for (const path of keptChart(options.root)) vendoredFiles.set(path, read(vendored(path)));
    notes.push(`the release has no ${CHART_DIR}/templates: ${VENDORED_RELEASE}/${CHART_DIR} keeps the chart of ${CHART_VERSION}, which the Helm tests render; copy the new one there`);
  }
  for (const [path, text] of [...vendoredFiles].sort(([a], [b]) => (a < b ? -1 : 1))) files.set(vendored(path), text);
  files.set(vendored('README.md'), vendoredReadme(release, vendoredFiles));

  const report = [
    ...section('CRD fields', [
      ...listChanges('NodePool', oldFields(RELEASE_FILES.nodePoolCrd, 'NodePool'), crdFields.nodePool),
      ...listChanges('EC2NodeClass', oldFields(RELEASE_FILES.ec2NodeClassCrd, 'EC2NodeClass'), crdFields.ec2NodeClass),
    ]),
    ...section('chart values keys', listChanges('', chartKeyPaths(CHART_VALUES_KEYS), chartKeyPaths(chartKeys.tree))),
    ...section('controller settings', settingsChanges(settings)),
    ...section('feature gates', gateChanges(settings)),
    ...section('instance types', typeChanges(oldCatalog, catalog)),
    ...section('Kubernetes compatibility', compatibilityChanges(compatibility.minimumKarpenter)),
  ];
  return { files, report, notes };
}

/** The generated classes of the two Karpenter CRDs, by `cdk8s import` as the README's manual steps run it. */
function importCrds(nodePool: string, ec2NodeClass: string, cdk8sBin: string): { nodePool: string; ec2NodeClass: string } {
  const dir = mkdtempSync(join(tmpdir(), 'karpenter-gitops-import-'));
  try {
    const nodePoolFile = RELEASE_FILES.nodePoolCrd.split('/').pop() ?? '';
    const ec2NodeClassFile = RELEASE_FILES.ec2NodeClassCrd.split('/').pop() ?? '';
    writeFileSync(join(dir, nodePoolFile), nodePool);
    writeFileSync(join(dir, ec2NodeClassFile), ec2NodeClass);
    // One cdk8s.yaml listing both, as the project's own lists their URLs.
    writeFileSync(join(dir, 'cdk8s.yaml'), `language: typescript\napp: "true"\nimports:\n  - ${nodePoolFile}\n  - ${ec2NodeClassFile}\n`);
    mkdirSync(join(dir, 'imports'));
    const run = spawnSync(process.execPath, [cdk8sBin, 'import', '--language', 'typescript', '--output', 'imports'], {
      cwd: dir, encoding: 'utf8', env: { ...process.env, CDK8S_CHECK_UPGRADE: 'false' }, timeout: 300_000,
    });
    // What cdk8s said, without its stack trace.
    const said = () => {
      const lines = `${run.stderr ?? ''}${run.stdout ?? ''}`.split('\n').filter((l) => l.trim() && !/^\s+at /.test(l));
      return `${run.error ? ` (${run.error.message})` : ''}${lines.length ? `: ${lines.slice(-3).join(' / ')}` : ''}`;
    };
    if (run.status !== 0 || run.error) throw new Error(`cdk8s import failed${said()}`);
    const readImport = (name: string): string => {
      try {
        return readFileSync(join(dir, 'imports', name), 'utf8');
      } catch {
        throw new Error(`cdk8s import wrote no imports/${name}${said()}`);
      }
    };
    return { nodePool: readImport('karpenter.sh.ts'), ec2NodeClass: readImport('karpenter.k8s.aws.ts') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** cdk8s.yaml with every aws/karpenter-provider-aws URL pinned to tag `v<version>`. */
function pinnedUrls(cdk8sYaml: string, version: string): string {
  return cdk8sYaml.replace(/(karpenter-provider-aws\/)v[0-9][\w.-]*(\/)/g, `$1v${version}$2`);
}

/** The chart files of the vendored release now (Chart.yaml and templates), relative to it. */
function keptChart(root: string): string[] {
  const dir = join(root, VENDORED_RELEASE, CHART_DIR);
  const chartYaml = existsSync(join(dir, 'Chart.yaml')) ? [`${CHART_DIR}/Chart.yaml`] : [];
  return [...chartYaml, ...templateNames(join(dir, 'templates')).map((n) => `${CHART_DIR}/templates/${n}`)];
}

/** The vendored release's README: where it comes from and each file's sha256. */
function vendoredReadme(release: Release, files: ReadonlyMap<string, string>): string {
  const rows = [...files].sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([path, text]) => `| \`${path}\` | \`${createHash('sha256').update(text).digest('hex')}\` |`);
  return `# Karpenter ${release.version}, as the generator was made from it

Written by \`npm run upgrade -- ${release.version}\`: the files of
[aws/karpenter-provider-aws](https://github.com/aws/karpenter-provider-aws/tree/v${release.version}) at tag
\`v${release.version}\` (Apache-2.0) that imports/, src/release/chart-values-keys.ts,
src/release/settings-rules.ts, src/release/compatibility.ts and src/catalog/instance-types.json are
generated from, at their upstream paths. Never edited by hand: the tests check that each
generated file is exactly what these make, validate manifests against these CRDs and render
this chart with Helm. Upstream, \`charts/karpenter/crds/\` are links to \`pkg/apis/crds/\`, and
\`Chart.yaml\` and the image tag in \`values.yaml\` keep the previous version until the release
process publishes the OCI chart.

| file | sha256 |
|---|---|
${rows.join('\n')}
`;
}

/** Every field path of a CRD's served schema (`spec.template.spec.requirements[].minValues`). */
export function schemaPaths(crdText: string, kind: string): string[] {
  const crd = parseYaml(crdText) as { spec?: { names?: { kind?: string }; versions?: { name: string; storage?: boolean; schema?: { openAPIV3Schema?: Schema } }[] } } | null;
  if (crd?.spec?.names?.kind !== kind) throw new Error(`not the ${kind} CustomResourceDefinition`);
  const version = crd.spec.versions?.find((x) => x.storage) ?? crd.spec.versions?.[0];
  const schema = version?.schema?.openAPIV3Schema;
  if (!schema) throw new Error(`the ${kind} CRD has no openAPIV3Schema`);
  const out: string[] = [];
  const walk = (s: Schema, path: string) => {
    for (const [key, child] of Object.entries(s.properties ?? {})) {
      const here = path ? `${path}.${key}` : key;
      out.push(here);
      walk(child, here);
    }
    if (s.items) walk(s.items, `${path}[]`);
    if (s.additionalProperties && typeof s.additionalProperties === 'object') walk(s.additionalProperties, `${path}.*`);
  };
  walk(schema, '');
  return out.filter((p) => !p.startsWith('status')).sort();
}

interface Schema {
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly items?: Schema;
  readonly additionalProperties?: Schema | boolean;
}

/** `+ x` and `- y` lines of what is in one list and not the other, each prefixed with `label`. */
function listChanges(label: string, before: readonly string[], after: readonly string[]): string[] {
  const old = new Set(before);
  const now = new Set(after);
  const prefix = label ? `${label}: ` : '';
  return [
    ...after.filter((p) => !old.has(p)).map((p) => `+ ${prefix}${p}`),
    ...before.filter((p) => !now.has(p)).map((p) => `- ${prefix}${p}`),
  ];
}

function settingsChanges(next: SettingsRulesData): string[] {
  const old = SETTINGS_RULES as Readonly<Record<string, (typeof SETTINGS_RULES)[keyof typeof SETTINGS_RULES]>>;
  const out: string[] = [];
  for (const [key, rule] of Object.entries(next.settings)) {
    const before = old[key];
    const what = `${rule.envVar}, ${rule.type}, chart default ${JSON.stringify(rule.chartDefault)}`;
    if (!before) out.push(`+ settings.${key} (${what})`);
    else {
      const changed = (['envVar', 'type', 'chartDefault', 'controllerDefault', 'withGuarded'] as const)
        .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(rule[k]))
        .map((k) => `${k} ${JSON.stringify(before[k])} → ${JSON.stringify(rule[k])}`);
      if (changed.length) out.push(`~ settings.${key}: ${changed.join(', ')}`);
    }
  }
  for (const key of Object.keys(old)) if (!(key in next.settings)) out.push(`- settings.${key} (${old[key].envVar})`);
  return out;
}

function gateChanges(next: SettingsRulesData): string[] {
  const old = FEATURE_GATE_DEFAULTS as Readonly<Record<string, boolean>>;
  const out: string[] = [];
  for (const [key, gate] of Object.entries(next.featureGates)) {
    if (!(key in old)) out.push(`+ ${gate.gate} (settings.featureGates.${key}, default ${gate.default})`);
    else if (old[key] !== gate.default) out.push(`~ ${gate.gate}: default ${old[key]} → ${gate.default}`);
  }
  for (const key of Object.keys(old)) if (!(key in next.featureGates)) out.push(`- ${(FEATURE_GATE_NAMES as Readonly<Record<string, string>>)[key]} (settings.featureGates.${key})`);
  return out;
}

function typeChanges(old: CatalogData, next: CatalogData): string[] {
  const lines = listChanges('', old.types.map((t) => t[0]), next.types.map((t) => t[0]));
  if (lines.length === 0) return [];
  const added = lines.filter((l) => l.startsWith('+')).map((l) => l.slice(2));
  const removed = lines.filter((l) => l.startsWith('-')).map((l) => l.slice(2));
  const some = (names: string[]) => (names.length > 12 ? `${names.slice(0, 12).join(', ')} and ${names.length - 12} more` : names.join(', '));
  return [
    `${old.types.length} → ${next.types.length}`,
    ...(added.length ? [`+ ${added.length}: ${some(added)}`] : []),
    ...(removed.length ? [`- ${removed.length}: ${some(removed)}`] : []),
  ];
}

function compatibilityChanges(next: Readonly<Record<string, string>>): string[] {
  const old = KUBERNETES_COMPATIBILITY.minimumKarpenter;
  const out: string[] = [];
  for (const [k, min] of Object.entries(next)) {
    if (!(k in old)) out.push(`+ Kubernetes ${k} (Karpenter ${min} or later)`);
    else if (old[k] !== min) out.push(`~ Kubernetes ${k}: Karpenter ${old[k]} → ${min} or later`);
  }
  for (const k of Object.keys(old)) if (!(k in next)) out.push(`- Kubernetes ${k}`);
  return out;
}

function section(title: string, lines: readonly string[]): string[] {
  return [`${title}:${lines.length ? '' : ' no change'}`, ...lines.map((l) => `  ${l}`)];
}

/**
 * Repositories and Karpenter releases for the upgrade tests: a copy of this repository's
 * generated files and vendored release in a temporary folder, and release folders in the
 * upstream repository's layout made from the vendored release (the one in use).
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { RELEASE_CRDS, UPGRADE_FILES, VENDORED_INDEX, VENDORED_RELEASE } from '../../src/upgrade/plan';
import { CHART_VERSION } from '../../src/release/chart-values-keys.generated';
export { snapshot } from '../support/snapshot';

export const REPO = join(__dirname, '../..');
/**
 * The cdk8s CLI the upgrades run: the real one (node_modules/cdk8s-cli) through
 * cdk8s-import-once.cjs, which runs `cdk8s import` once per distinct pair of CRDs in a test file
 * and hands the files it wrote to later runs; remove its memo with {@link removeImportMemo}.
 */
export const CDK8S_BIN = join(__dirname, 'cdk8s-import-once.cjs');
process.env.KG_CDK8S_IMPORT_MEMO = mkdtempSync(join(tmpdir(), 'kg-cdk8s-import-'));

/** Removes the memo of `cdk8s import` runs (for afterAll). */
export function removeImportMemo(): void {
  rmSync(process.env.KG_CDK8S_IMPORT_MEMO ?? '', { recursive: true, force: true });
}

/** A temporary repository holding what an upgrade reads and writes, as this one has it now. */
export function aRepository(): string {
  const root = mkdtempSync(join(tmpdir(), 'kg-upgrade-repo-'));
  const releases = readdirSync(join(REPO, 'src/release')).filter((n) => /^v\d/.test(n)).map((n) => `src/release/${n}`);
  for (const path of [...Object.values(UPGRADE_FILES), VENDORED_RELEASE, VENDORED_INDEX, RELEASE_CRDS, ...releases]) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    cpSync(join(REPO, path), join(root, path), { recursive: true });
  }
  return root;
}

/** A release folder (upstream layout) copied from the vendored release, then changed by `edit`. */
export function aRelease(edit: (dir: string) => void = () => undefined): string {
  const dir = mkdtempSync(join(tmpdir(), 'kg-upgrade-release-'));
  cpSync(join(REPO, VENDORED_RELEASE), dir, { recursive: true });
  edit(dir);
  return dir;
}

/** Replaces `from` by `to` in a file of a release folder; fails the test when `from` is not there. */
export function replaceIn(dir: string, path: string, from: string, to: string): void {
  const text = readFileSync(join(dir, path), 'utf8');
  if (!text.includes(from)) throw new Error(`${path} has no ${JSON.stringify(from)}`);
  writeFileSync(join(dir, path), text.replace(from, to));
}

/**
 * The made-up next release: the vendored one with a field added to the NodePool CRD
 * (`spec.template.spec.nodeDrainPolicy`), a chart key removed (`revisionHistoryLimit`) and a
 * new controller setting (`settings.drainTimeout`: chart values, deployment env, settings docs).
 */
export function aNextRelease(): string {
  return aRelease((dir) => {
    const crd = join(dir, 'pkg/apis/crds/karpenter.sh_nodepools.yaml');
    const text = readFileSync(crd, 'utf8');
    const indent = /^( *)expireAfter:$/m.exec(text)?.[1] ?? '';
    writeFileSync(crd, text.replace(`\n${indent}expireAfter:\n`,
      `\n${indent}nodeDrainPolicy:\n${indent}  description: How nodes drain.\n${indent}  type: string\n${indent}expireAfter:\n`));
    replaceIn(dir, 'charts/karpenter/Chart.yaml', `\nversion: ${CHART_VERSION}\n`, '\nversion: 1.15.0\n');
    replaceIn(dir, 'charts/karpenter/values.yaml', '\nrevisionHistoryLimit: 10\n', '\n');
    replaceIn(dir, 'charts/karpenter/values.yaml', '\nsettings:\n', '\nsettings:\n  # -- How long a node may take to drain.\n  drainTimeout: 15m\n');
    replaceIn(dir, 'charts/karpenter/templates/deployment.yaml', '          {{- with .Values.controller.env }}\n',
      '          {{- with .Values.settings.drainTimeout }}\n            - name: DRAIN_TIMEOUT\n              value: "{{ . }}"\n          {{- end }}\n          {{- with .Values.controller.env }}\n');
    replaceIn(dir, 'website/content/en/docs/reference/settings.md', '|--|--|--|\n',
      '|--|--|--|\n| DRAIN_TIMEOUT | \\-\\-drain-timeout | How long a node may take to drain. (default = 15m)|\n');
  });
}


/** Collects what a command prints. */
export function capture(): { out: string[]; err: string[]; io: { out: (l: string) => void; err: (l: string) => void } } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l) => out.push(l), err: (l) => err.push(l) } };
}

/**
 * The packaged chart of a flat release folder (`karpenter-chart-<version>.tgz`), unpacked with
 * node-tar: no system `tar` needed, and an archive that is damaged or would write outside its
 * folder is a problem of the release folder, named with the archive.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { create as createTar } from 'tar';
import { CHART_VERSION } from '../../src/release/chart-values-keys.generated';
import { VENDORED_RELEASE } from '../../src/upgrade/plan';
import { readReleaseDir } from '../../src/upgrade/release';
import { REPO } from './builders';

const CHECKOUT = join(REPO, VENDORED_RELEASE);
/** Where each file of a flat folder comes from in a checkout. */
const FLAT: Readonly<Record<string, string>> = {
  'crds/karpenter.sh_nodepools.yaml': 'pkg/apis/crds/karpenter.sh_nodepools.yaml',
  'crds/karpenter.k8s.aws_ec2nodeclasses.yaml': 'pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml',
  'crds/karpenter.sh_nodeoverlays.yaml': 'pkg/apis/crds/karpenter.sh_nodeoverlays.yaml',
  'crds/autoscaling.x-k8s.io_capacitybuffers.yaml': 'pkg/apis/crds/autoscaling.x-k8s.io_capacitybuffers.yaml',
  'chart-values.yaml': 'charts/karpenter/values.yaml',
  'settings.md': 'website/content/en/docs/reference/settings.md',
  'instance-types.md': 'website/content/en/docs/reference/instance-types.md',
  'compatibility.md': 'website/content/en/docs/upgrading/compatibility.md',
  'zz_generated.pricing_aws.go': 'pkg/providers/pricing/zz_generated.pricing_aws.go',
  'ec2nodeclass.go': 'pkg/apis/v1/ec2nodeclass.go',
};
const ARCHIVE = `karpenter-chart-${CHART_VERSION}.tgz`;

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A flat folder of the vendored release, its chart packaged by `pack` into {@link ARCHIVE}. */
function aFlatRelease(pack: (archive: string) => void): string {
  const flat = mkdtempSync(join(tmpdir(), 'karpenter-gitops-flat-'));
  made.push(flat);
  for (const [to, from] of Object.entries(FLAT)) {
    mkdirSync(dirname(join(flat, to)), { recursive: true });
    cpSync(join(CHECKOUT, from), join(flat, to));
  }
  pack(join(flat, ARCHIVE));
  return flat;
}

describe('the packaged chart of a flat release folder', () => {
  it('is unpacked without a system tar: its Chart.yaml and templates are read as a checkout\'s', () => {
    const flat = aFlatRelease((archive) => createTar({ gzip: true, sync: true, file: archive, cwd: join(CHECKOUT, 'charts') }, ['karpenter']));
    const fromFlat = readReleaseDir(flat, CHART_VERSION);
    const fromCheckout = readReleaseDir(CHECKOUT, CHART_VERSION);
    expect(fromFlat.chartYaml).toBe(fromCheckout.chartYaml);
    expect([...fromFlat.templates.keys()].sort()).toEqual([...fromCheckout.templates.keys()].sort());
    expect(fromFlat.templates.size).toBeGreaterThan(0);
  });

  it('fails when the archive is damaged, naming it', () => {
    const flat = aFlatRelease((archive) => writeFileSync(archive, gzipSync('not a tar archive')));
    expect(() => readReleaseDir(flat, CHART_VERSION)).toThrow(new RegExp(`\\n  ${ARCHIVE.replace(/\./g, '\\.')}: cannot unpack it \\(TAR_BAD_ARCHIVE: `));
  });

  it('fails when an entry would be written outside the unpacked folder (..), and writes nothing there', () => {
    const escape = `escape-${process.pid}.txt`;
    const flat = aFlatRelease((archive) => createTar({
      gzip: true, sync: true, file: archive, cwd: join(CHECKOUT, 'charts'),
      // Renames one entry on its way into the archive, as a hostile archive would name it.
      onWriteEntry: (entry) => { if (entry.path === 'karpenter/Chart.yaml') entry.path = `../${escape}`; },
    }, ['karpenter']));
    expect(() => readReleaseDir(flat, CHART_VERSION)).toThrow(new RegExp(`${ARCHIVE.replace(/\./g, '\\.')}: cannot unpack it \\(TAR_ENTRY_ERROR: path contains '\\.\\.'\\)`));
    expect(existsSync(join(tmpdir(), escape))).toBe(false);
  });
});

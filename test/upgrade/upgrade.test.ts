import { createServer, Server } from 'node:http';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { create as createTar } from 'tar';
import { CHART_VERSION } from '../../src/release/chart-values-keys.generated';
import { FsOps, REAL_FS } from '../../src/output/fs-ops';
import { OutputDir } from '../../src/output/output-dir';
import { upgradeCommand } from '../../src/upgrade/command';
import { planUpgrade, VENDORED_RELEASE } from '../../src/upgrade/plan';
import { readReleaseDir } from '../../src/upgrade/release';
import { aNextRelease, aRelease, aRepository, capture, CDK8S_BIN, removeImportMemo, REPO, replaceIn, snapshot } from './builders';

jest.setTimeout(60_000);
afterAll(removeImportMemo);

/** The CRDs of a release, in `pkg/apis/crds/` of a checkout and `crds/` of a flat folder. */
const CRD_FILES = ['karpenter.sh_nodepools.yaml', 'karpenter.k8s.aws_ec2nodeclasses.yaml', 'karpenter.sh_nodeoverlays.yaml', 'autoscaling.x-k8s.io_capacitybuffers.yaml'];

/** Runs `npm run upgrade -- ARGS` against the repository `root`. */
async function upgrade(root: string, args: readonly string[], more: { ops?: FsOps; env?: NodeJS.ProcessEnv } = {}) {
  const c = capture();
  const code = await upgradeCommand(args, c.io, { root, cdk8sBin: CDK8S_BIN, env: more.env ?? {}, ops: more.ops });
  return { code, out: c.out.join('\n'), err: c.err.join('\n') };
}

describe('npm run upgrade', () => {
  it('regenerates from the vendored release exactly the files committed in this repository', () => {
    const plan = planUpgrade(readReleaseDir(join(REPO, VENDORED_RELEASE), CHART_VERSION), { root: REPO, cdk8sBin: CDK8S_BIN });
    const differ = [...plan.files].filter(([path, text]) => readFileSync(join(REPO, path), 'utf8') !== text).map(([path]) => path);
    expect(differ).toEqual([]);
    expect([...plan.files.keys()]).toEqual(expect.arrayContaining([
      'imports/karpenter.sh.ts', 'imports/karpenter.k8s.aws.ts', 'imports/autoscaling.x-k8s.io.ts', 'src/release/chart-values-keys.generated.ts', 'src/release/settings-rules.generated.ts',
      'src/release/compatibility.generated.ts', 'src/catalog/instance-types.json', 'cdk8s.yaml',
    ]));
  });

  it('upgrades to a made-up next release from a folder: prints the added CRD field, the removed chart key and the new setting, and regenerates every file', async () => {
    const root = aRepository();
    const next = aNextRelease();
    rmSync(join(next, 'pkg/apis/v1/ec2nodeclass.go'));
    const { code, out, err } = await upgrade(root, ['1.15.0', '--from', next]);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toMatch(new RegExp(`^Karpenter ${CHART_VERSION.replace(/\./g, '\\.')} → 1\\.15\\.0 \\(read from .*\\)$`, 'm'));
    expect(out).toMatch(/^CRD fields:\n {2}\+ NodePool: spec\.template\.spec\.nodeDrainPolicy$/m);
    expect(out).toMatch(/^chart values keys:\n {2}\+ settings\.drainTimeout\n {2}- revisionHistoryLimit$/m);
    expect(out).toMatch(/^controller settings:\n {2}\+ settings\.drainTimeout \(DRAIN_TIMEOUT, duration, chart default "15m"\)$/m);
    expect(out).toMatch(/^feature gates: no change$/m);
    expect(out).toMatch(/^instance types: no change$/m);
    // The templates still read the removed key: users could not set it any more.
    expect(out).toMatch(/the chart's templates read values that values\.yaml does not declare .*: revisionHistoryLimit/);
    expect(out).toMatch(/settings\.md and values\.yaml alone say what DRAIN_TIMEOUT is/);

    const read = (path: string) => readFileSync(join(root, path), 'utf8');
    expect(read('imports/karpenter.sh.ts')).toMatch(/readonly nodeDrainPolicy\?: string;/);
    // One file per API group: the NodePool and the NodeOverlay are both karpenter.sh.
    expect(read('imports/karpenter.sh.ts')).toMatch(/^export class NodePool extends ApiObject/m);
    expect(read('imports/karpenter.sh.ts')).toMatch(/^export class NodeOverlay extends ApiObject/m);
    expect(read('imports/autoscaling.x-k8s.io.ts')).toMatch(/^export class CapacityBuffer extends ApiObject/m);
    expect(read('src/release/chart-values-keys.generated.ts')).toMatch(/export const CHART_VERSION = '1\.15\.0';/);
    expect(read('src/release/chart-values-keys.generated.ts')).not.toMatch(/revisionHistoryLimit/);
    expect(read('src/release/settings-rules.generated.ts')).toMatch(/drainTimeout: \{\n\s+envVar: 'DRAIN_TIMEOUT',\n\s+withGuarded: true,\n\s+type: 'duration',/);
    expect(read('src/release/compatibility.generated.ts')).toMatch(/karpenterVersion: '1\.15\.0'/);
    expect(read('src/catalog/instance-types.json')).toMatch(/"karpenterVersion": "1\.15\.0"/);
    expect(read('cdk8s.yaml')).toMatch(/karpenter-provider-aws\/v1\.15\.0\/pkg\/apis\/crds\/karpenter\.sh_nodepools\.yaml/);
    expect(read('cdk8s.yaml')).not.toMatch(/karpenter-provider-aws\/v(?!1\.15\.0)/);
    expect(read('cdk8s.yaml')).toMatch(/argo-cd\/v3\.5\.1\//);
    expect(read(`${VENDORED_RELEASE}/README.md`)).toMatch(/^# Karpenter 1\.15\.0,/);
    expect(read(`${VENDORED_RELEASE}/charts/karpenter/values.yaml`)).toMatch(/drainTimeout: 15m/);
    expect(existsSync(join(root, '.karpenter-gitops/upgrade-txn'))).toBe(false);
    // The release it replaces stays, as the previous one: its facts and its CRDs.
    expect(read('src/release/v1.15.0/release.generated.ts')).toMatch(/version: '1\.15\.0'/);
    expect(read(`src/release/v${CHART_VERSION}/release.generated.ts`)).toMatch(new RegExp(`version: '${CHART_VERSION.replace(/\./g, '\\.')}'`));
    expect(read('src/release/vendored.generated.ts')).toMatch(new RegExp(`from './v${CHART_VERSION.replace(/\./g, '\\.')}/release\\.generated';\\nimport \\{ RELEASE as V1_15_0 \\} from './v1\\.15\\.0/release\\.generated'`));
    expect(read('test/fixtures/karpenter-crds/v1.15.0/karpenter.sh_nodepools.yaml')).toMatch(/nodeDrainPolicy/);
    expect(read('test/fixtures/karpenter-crds/v1.15.0/karpenter.sh_nodeoverlays.yaml')).toMatch(/kind: NodeOverlay/);
    expect(read('test/fixtures/karpenter-crds/v1.15.0/autoscaling.x-k8s.io_capacitybuffers.yaml')).toMatch(/kind: CapacityBuffer/);
    expect(existsSync(join(root, `test/fixtures/karpenter-crds/v${CHART_VERSION}/karpenter.sh_nodepools.yaml`))).toBe(true);

    // Read without the controller's Go code (as the 1.15 stand-in's source is): its hash version is unknown, and said.
    expect(read('src/release/v1.15.0/release.generated.ts')).not.toMatch(/ec2NodeClassHashVersion/);
    expect(out).toMatch(/the release has no pkg\/apis\/v1\/ec2nodeclass\.go: its EC2NodeClass hash version is unknown/);
    expect(existsSync(join(root, `${VENDORED_RELEASE}/pkg/apis/v1/ec2nodeclass.go`))).toBe(false);

    // Run again: nothing left to do.
    const again = await upgrade(root, ['1.15.0', '--from', next]);
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/^0 file\(s\) written, \d+ unchanged$/m);
  });

  it('reads the same release from a flat folder of its files (crds/, chart-values.yaml, the docs pages, the packaged chart)', async () => {
    const checkout = aNextRelease();
    const flat = aRelease(() => undefined);
    rmSync(flat, { recursive: true });
    const copy = (from: string, to: string) => { mkdirSync(dirname(join(flat, to)), { recursive: true }); cpSync(join(checkout, from), join(flat, to)); };
    for (const crd of CRD_FILES) copy(`pkg/apis/crds/${crd}`, `crds/${crd}`);
    copy('charts/karpenter/values.yaml', 'chart-values.yaml');
    copy('website/content/en/docs/reference/settings.md', 'settings.md');
    copy('website/content/en/docs/reference/instance-types.md', 'instance-types.md');
    copy('website/content/en/docs/upgrading/compatibility.md', 'compatibility.md');
    copy('pkg/providers/pricing/zz_generated.pricing_aws.go', 'zz_generated.pricing_aws.go');
    copy('pkg/apis/v1/ec2nodeclass.go', 'ec2nodeclass.go');
    createTar({ gzip: true, sync: true, file: join(flat, 'karpenter-chart-1.15.0.tgz'), cwd: join(checkout, 'charts') }, ['karpenter']);
    const viaFlat = aRepository();
    const viaCheckout = aRepository();
    const fromFlat = await upgrade(viaFlat, ['1.15.0', '--from', flat]);
    expect(fromFlat.err).toBe('');
    expect(fromFlat.out).toMatch(/^ {2}\+ settings\.drainTimeout \(DRAIN_TIMEOUT, duration, chart default "15m"\)$/m);
    await upgrade(viaCheckout, ['1.15.0', '--from', checkout]);
    expect(snapshot(viaFlat)).toEqual(snapshot(viaCheckout));
  });

  it('fails when the folder holds another release than VERSION (its Chart.yaml version), and changes nothing', async () => {
    const root = aRepository();
    const before = snapshot(root);
    const release = aRelease();
    const { code, err } = await upgrade(root, ['1.15.0', '--from', release]);
    expect(code).toBe(1);
    expect(err).toMatch(new RegExp(`^error: --from .* holds Karpenter ${CHART_VERSION.replace(/\./g, '\\.')} \\(charts/karpenter/Chart\\.yaml: version: ${CHART_VERSION.replace(/\./g, '\\.')}\\), not 1\\.15\\.0: `));
    expect(err).toMatch(/\nnothing was changed$/);
    expect(snapshot(root)).toEqual(before);
  });

  it('fails when a flat folder\'s packaged chart is another release than VERSION', async () => {
    const flat = aRelease(() => undefined);
    rmSync(flat, { recursive: true });
    mkdirSync(flat, { recursive: true });
    const checkout = aRelease();
    const copy = (src: string, to: string) => { mkdirSync(dirname(join(flat, to)), { recursive: true }); cpSync(join(checkout, src), join(flat, to)); };
    for (const crd of CRD_FILES) copy(`pkg/apis/crds/${crd}`, `crds/${crd}`);
    copy('charts/karpenter/values.yaml', 'chart-values.yaml');
    copy('website/content/en/docs/reference/settings.md', 'settings.md');
    copy('website/content/en/docs/reference/instance-types.md', 'instance-types.md');
    copy('website/content/en/docs/upgrading/compatibility.md', 'compatibility.md');
    copy('pkg/providers/pricing/zz_generated.pricing_aws.go', 'zz_generated.pricing_aws.go');
    copy('pkg/apis/v1/ec2nodeclass.go', 'ec2nodeclass.go');
    createTar({ gzip: true, sync: true, file: join(flat, `karpenter-chart-${CHART_VERSION}.tgz`), cwd: join(checkout, 'charts') }, ['karpenter']);
    const root = aRepository();
    const before = snapshot(root);
    const { code, err } = await upgrade(root, ['1.15.0', '--from', flat]);
    expect(code).toBe(1);
    expect(err).toMatch(/holds Karpenter [\d.]+ \(karpenter-chart-\*\.tgz: karpenter\/Chart\.yaml: version: [\d.]+\), not 1\.15\.0/);
    expect(snapshot(root)).toEqual(before);
  });

  it('fails when the folder is not a checkout of the release, naming every missing file, and changes nothing', async () => {
    const root = aRepository();
    const before = snapshot(root);
    const release = aRelease((dir) => {
      rmSync(join(dir, 'website/content/en/docs/upgrading/compatibility.md'));
      rmSync(join(dir, 'pkg/providers/pricing'), { recursive: true });
      // Optional: a release read without it has an unknown EC2NodeClass hash version (not named missing).
      rmSync(join(dir, 'pkg/apis/v1/ec2nodeclass.go'));
    });
    const { code, err } = await upgrade(root, ['1.15.0', '--from', release]);
    expect(code).toBe(1);
    expect(err).toBe([
      `error: --from ${release} is not a checkout of aws/karpenter-provider-aws at tag v1.15.0:`,
      '  website/content/en/docs/upgrading/compatibility.md: missing',
      '  pkg/providers/pricing/zz_generated.pricing_aws.go: missing',
      'nothing was changed',
    ].join('\n'));
    expect(snapshot(root)).toEqual(before);
  });

  it.each([
    ['a CRD that is not the NodePool CRD', (dir: string) => writeFileSync(join(dir, 'pkg/apis/crds/karpenter.sh_nodepools.yaml'), 'kind: ConfigMap\n'),
      /^error: Karpenter 1\.15\.0: pkg\/apis\/crds\/karpenter\.sh_nodepools\.yaml: not the NodePool CustomResourceDefinition$/m],
    ['docs without the compatibility matrix', (dir: string) => writeFileSync(join(dir, 'website/content/en/docs/upgrading/compatibility.md'), '# Compatibility\n'),
      /^error: Karpenter 1\.15\.0: website\/content\/en\/docs\/upgrading\/compatibility\.md: .*no compatibility matrix/m],
    ['values.yaml that is not YAML', (dir: string) => writeFileSync(join(dir, 'charts/karpenter/values.yaml'), 'settings: [\n'),
      /^error: Karpenter 1\.15\.0: charts\/karpenter\/values\.yaml: /m],
    ['a settings page without its table', (dir: string) => writeFileSync(join(dir, 'website/content/en/docs/reference/settings.md'), '# Settings\n'),
      /^error: Karpenter 1\.15\.0: website\/content\/en\/docs\/reference\/settings\.md: settings\.md: no settings table/m],
    ['a CRD without its schema', (dir: string) => replaceIn(dir, 'pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml', 'openAPIV3Schema:', 'notTheSchema:'),
      /^error: Karpenter 1\.15\.0: pkg\/apis\/crds\/karpenter\.k8s\.aws_ec2nodeclasses\.yaml: the EC2NodeClass CRD has no openAPIV3Schema$/m],
    ['a NodeOverlay CRD that is another CRD', (dir: string) => cpSync(join(dir, 'pkg/apis/crds/karpenter.sh_nodepools.yaml'), join(dir, 'pkg/apis/crds/karpenter.sh_nodeoverlays.yaml')),
      /^error: Karpenter 1\.15\.0: pkg\/apis\/crds\/karpenter\.sh_nodeoverlays\.yaml: not the NodeOverlay CustomResourceDefinition$/m],
  ])('fails on %s, naming the file, and changes nothing', async (_what, edit, message) => {
    const root = aRepository();
    const before = snapshot(root);
    const release = aRelease((dir) => {
      replaceIn(dir, 'charts/karpenter/Chart.yaml', `\nversion: ${CHART_VERSION}\n`, '\nversion: 1.15.0\n');
      edit(dir);
    });
    const { code, err } = await upgrade(root, ['1.15.0', '--from', release]);
    expect(code).toBe(1);
    expect(err).toMatch(message);
    expect(err).toMatch(/^nothing was changed$/m);
    expect(snapshot(root)).toEqual(before);
  });

  it('leaves the repository exactly as it was when writing fails after some files were moved in (undone), and takes an interrupted one forward on the next run', async () => {
    const root = aRepository();
    const before = snapshot(root);
    const release = aNextRelease();
    const renames = (failAt: number, dead: boolean): FsOps => {
      let n = 0;
      return {
        ...REAL_FS,
        rename: (from, to) => {
          n++;
          if (n === failAt || (dead && n > failAt)) throw Object.assign(new Error(`injected failure at rename ${n}`), { code: 'EIO' });
          REAL_FS.rename(from, to);
        },
      };
    };
    // The journal is committed by rename 1; the 4th rename (files moving in) fails and the change is undone.
    const failed = await upgrade(root, ['1.15.0', '--from', release], { ops: renames(4, false) });
    expect(failed.code).toBe(1);
    expect(failed.err).toMatch(/injected failure at rename 4; nothing was changed/);
    expect(snapshot(root)).toEqual(before);
    expect(existsSync(join(root, '.karpenter-gitops/upgrade-txn'))).toBe(false);

    // A run "killed" half-way: every step after the 4th rename fails, so even the undo cannot run.
    const killed = await upgrade(root, ['1.15.0', '--from', release], { ops: renames(4, true) });
    expect(killed.code).toBe(1);
    expect(existsSync(join(root, '.karpenter-gitops/upgrade-txn/journal.json'))).toBe(true);
    // Synth refuses to read half-upgraded sources.
    expect(() => OutputDir.open(root, 'synth')).toThrow(/an npm run upgrade was interrupted .*: run npm run upgrade -- VERSION again/);
    const next = await upgrade(root, ['1.15.0', '--from', release]);
    expect(next.code).toBe(0);
    expect(next.out).toMatch(/^finished an upgrade that was interrupted$/m);
    expect(readFileSync(join(root, 'src/release/chart-values-keys.generated.ts'), 'utf8')).toMatch(/CHART_VERSION = '1\.15\.0'/);
    expect(existsSync(join(root, '.karpenter-gitops/upgrade-txn'))).toBe(false);
  });

  it('fails when cdk8s import fails, with what it said and no stack trace, and changes nothing', async () => {
    const root = aRepository();
    const before = snapshot(root);
    const fake = join(aRelease(), 'fake-cdk8s.js');
    writeFileSync(fake, "console.error('Error: unable to import: bad schema'); console.error('    at Object.<anonymous> (x.js:1:1)'); process.exit(1);\n");
    const c = capture();
    const code = await upgradeCommand(['1.15.0', '--from', aNextRelease()], c.io, { root, cdk8sBin: fake, env: {} });
    expect(code).toBe(1);
    expect(c.err.join('\n')).toBe([
      'error: Karpenter 1.15.0: pkg/apis/crds/karpenter.sh_nodepools.yaml, pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml, pkg/apis/crds/karpenter.sh_nodeoverlays.yaml, '
        + 'pkg/apis/crds/autoscaling.x-k8s.io_capacitybuffers.yaml: cdk8s import failed: Error: unable to import: bad schema',
      'nothing was changed',
    ].join('\n'));
    expect(snapshot(root)).toEqual(before);
  });

  it('says why a release file cannot be read instead of calling it missing (only ENOENT is missing)', () => {
    const dir = aNextRelease();
    const settings = join(dir, 'website/content/en/docs/reference/settings.md');
    rmSync(settings);
    require('node:fs').symlinkSync(settings, settings); // a link to itself: ELOOP
    expect(() => readReleaseDir(dir, '1.15.0')).toThrow(/website\/content\/en\/docs\/reference\/settings\.md: cannot read it \(ELOOP\)/);
    expect(() => readReleaseDir(dir, '1.15.0')).not.toThrow(/settings\.md: missing/);
  });

  it('refuses a generated file that is a symbolic link, and changes nothing', async () => {
    const root = aRepository();
    rmSync(join(root, 'src/release/compatibility.generated.ts'));
    require('node:fs').symlinkSync('/etc/passwd', join(root, 'src/release/compatibility.generated.ts'));
    const before = snapshot(root);
    const { code, err } = await upgrade(root, ['1.15.0', '--from', aNextRelease()]);
    expect(code).toBe(1);
    expect(err).toMatch(/^error: src\/release\/compatibility\.generated\.ts is a symbolic link: the upgrade replaces it only as a plain file or folder; restore it from git; nothing was changed$/m);
    expect(snapshot(root)).toEqual(before);
  });

  describe('downloading', () => {
    let server: Server;
    let base: string;
    let release: string;
    let missing: string | undefined;
    beforeAll(async () => {
      release = aNextRelease();
      server = createServer((req, res) => {
        // No keep-alive: on a loaded machine a client may reuse a socket the server is closing (ECONNRESET).
        res.setHeader('Connection', 'close');
        const path = decodeURIComponent((req.url ?? '').replace(/^\/v1\.15\.0\//, ''));
        const file = join(release, path);
        if (!req.url?.startsWith('/v1.15.0/') || path === missing || path.includes('..') || !existsSync(file)) {
          res.writeHead(404, 'Not Found').end('404: Not Found');
          return;
        }
        res.writeHead(200).end(readFileSync(file));
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((done) => server.close(() => done())));
    beforeEach(() => { missing = undefined; });

    it('downloads the release from the mirror in KARPENTER_GITOPS_RELEASE_URL and writes what --from writes', async () => {
      const viaDownload = aRepository();
      const viaFolder = aRepository();
      const downloaded = await upgrade(viaDownload, ['v1.15.0'], { env: { KARPENTER_GITOPS_RELEASE_URL: base } });
      expect(downloaded.err).toBe('');
      expect(downloaded.out).toMatch(new RegExp(`^downloading Karpenter 1\\.15\\.0 from ${base}/v1\\.15\\.0/ \\.\\.\\.$`, 'm'));
      expect(downloaded.out).toMatch(/^ {2}\+ NodePool: spec\.template\.spec\.nodeDrainPolicy$/m);
      await upgrade(viaFolder, ['1.15.0', '--from', release]);
      const normalized = (root: string) => new Map([...snapshot(root)].map(([p, t]) => [p, t.replace(/\(read from [^)]*\)|\(downloaded from [^)]*\)/g, '')]));
      expect(normalized(viaDownload)).toEqual(normalized(viaFolder));
    });

    it('fails when a file cannot be downloaded, naming its URL, and changes nothing', async () => {
      missing = 'website/content/en/docs/reference/instance-types.md';
      const root = aRepository();
      const before = snapshot(root);
      const { code, err } = await upgrade(root, ['1.15.0'], { env: { KARPENTER_GITOPS_RELEASE_URL: base } });
      expect(code).toBe(1);
      expect(err).toBe([
        'error: cannot download Karpenter 1.15.0:',
        `  ${base}/v1.15.0/website/content/en/docs/reference/instance-types.md: HTTP 404 Not Found: is v1.15.0 a release tag of aws/karpenter-provider-aws?`,
        'offline or behind a proxy? clone aws/karpenter-provider-aws at tag v1.15.0 elsewhere and run npm run upgrade -- 1.15.0 --from DIR',
        'nothing was changed',
      ].join('\n'));
      expect(snapshot(root)).toEqual(before);
    });

    it('fails when the server cannot be reached, and changes nothing', async () => {
      const root = aRepository();
      const before = snapshot(root);
      const closed = createServer();
      await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
      const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
      await new Promise<void>((done) => closed.close(() => done()));
      const { code, err } = await upgrade(root, ['1.15.0'], { env: { KARPENTER_GITOPS_RELEASE_URL: url } });
      expect(code).toBe(1);
      expect(err.split('\n').slice(0, 2)).toEqual(['error: cannot download Karpenter 1.15.0:', `  ${url}/v1.15.0/: ECONNREFUSED`]);
      expect(snapshot(root)).toEqual(before);
    });
  });

  it.each([
    [[], /^error: which Karpenter version\? e\.g\. npm run upgrade -- 1\.15\.0$/m],
    [['latest'], /^error: "latest" is not a Karpenter version: write x\.y\.z, e\.g\. 1\.15\.0$/m],
    [['1.15.0', '--form', 'x'], /^error: unknown option --form for upgrade \(did you mean --from\?\)$/m],
    [['1.15.0', '1.16.0'], /^error: upgrade takes one VERSION, got 2: 1\.15\.0 1\.16\.0$/m],
  ])('fails with usage for %j', async (args, message) => {
    const { code, err } = await upgrade(aRepository(), args);
    expect(code).toBe(2);
    expect(err).toMatch(message);
  });
});

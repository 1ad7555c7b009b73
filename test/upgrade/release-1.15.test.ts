/**
 * An upgrade to a release that changes shape, end to end: a copy of this repository upgraded to
 * Karpenter 1.15.0 from test/fixtures/karpenter-1.15.0 (the release's real values.yaml and
 * Chart.yaml; CRDs, templates and pages the stand-in's, aws/karpenter-provider-aws main at
 * 1d927085), type-checked, then a fleet synthesized with one cluster on 1.15.0 and one on 1.14.1:
 * the new settings and gates, the chart's three exclusions at their line, rebootForRepair's IAM.
 * One upgrade, run by the bundle `npm run upgrade` runs, for the whole file.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { defaulted, useReleaseCrds, validateFor } from '../support/crd-validator';
import { REPO } from './builders';

jest.setTimeout(240_000);

const STANDIN = join(REPO, 'test/fixtures/karpenter-1.15.0');
let root: string;

/** Runs `node scripts/run.cjs ARGS` in the copy. */
function run(...args: string[]) {
  return spawnSync(process.execPath, [join(root, 'scripts/run.cjs'), ...args], { cwd: root, encoding: 'utf8', env: { ...process.env, CDK8S_CHECK_UPGRADE: 'false' } });
}

/** Every file under `dir` of the copy, by path, with its text. */
function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(root, p), readFileSync(p, 'utf8'));
    }
  };
  walk(join(root, dir));
  return out;
}

/** Terraform outputs of a cluster (no cluster_version: the AMI pins are not what this tests). */
function terraform(name: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    ...extra, cluster_name: name, cluster_endpoint: `https://${name.toUpperCase()}0123456789.gr7.us-east-1.eks.amazonaws.com`, region: 'us-east-1',
    karpenter_node_role_name: `KarpenterNodeRole-${name}`, karpenter_interruption_queue_name: `Karpenter-${name}`,
  });
}

/** The fleet: cluster old on 1.14.1 (every team), and the given clusters on 1.15.0 with their teams' fields. */
function writeFleet(newClusters: Readonly<Record<string, unknown>>): void {
  const config = {
    gitops: { repoURL: 'https://github.com/acme/platform-gitops.git', targetRevision: 'main' },
    karpenter: { version: '1.14.1' },
    clusters: {
      old: { terraformOutputs: 'terraform/old.json' },
      ...Object.fromEntries(Object.entries(newClusters).map(([id, teams]) => [id, { terraformOutputs: `terraform/${id}.json`, destination: { name: id }, karpenter: { version: '1.15.0' }, teams }])),
    },
    defaults: { ami: { alias: 'al2023@v20260409' }, limits: { cpu: '64', memory: '256Gi' } },
    teams: {
      web: { owner: 'web@acme.example', arch: ['amd64'], capacityTypes: ['on-demand'], instanceCategories: ['m'], instanceGeneration: { gt: 5 } },
      legacy: { owner: 'legacy@acme.example', arch: ['amd64'], capacityTypes: ['on-demand'], instanceCategories: ['c'], ami: { alias: 'al2@v20250505' } },
    },
  };
  mkdirSync(join(root, 'config/terraform'), { recursive: true });
  writeFileSync(join(root, 'config/platform.yaml'), JSON.stringify(config, null, 2));
  for (const id of ['old', ...Object.keys(newClusters)]) writeFileSync(join(root, `config/terraform/${id}.json`), terraform(id));
}


/** The line and column (1-based) where `needle` ends in the config: the value after a key. */
function after(needle: string): string {
  const text = readFileSync(join(root, 'config/platform.yaml'), 'utf8');
  const lines = text.slice(0, text.indexOf(needle) + needle.length).split('\n');
  return `${lines.length}:${lines[lines.length - 1].length + 1}`;
}

let before: Map<string, string>;
let first: ReturnType<typeof run>;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'kg-release-115-'));
  for (const p of ['src', 'scripts', 'imports', 'package.json', 'package-lock.json', 'cdk8s.yaml', 'test/fixtures/karpenter-release', 'test/fixtures/karpenter-crds']) {
    cpSync(join(REPO, p), join(root, p), { recursive: true });
  }
  symlinkSync(realpathSync(join(REPO, 'node_modules')), join(root, 'node_modules'));
  // Before the upgrade: cluster old alone, as the generator of 1.14.1 writes it.
  writeFleet({});
  const synth = run('synth');
  if (synth.status !== 0) throw new Error(`synth before the upgrade failed:\n${synth.stderr}`);
  before = files('dist/old');
  first = run('upgrade', '1.15.0', '--from', STANDIN);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('an upgrade to 1.15.0 (its real chart values, the stand-in\'s CRDs and templates)', () => {
  it('reads the real values: the report names the image digest, every new setting and gate, and what no template read confirms', () => {
    expect(first.stdout).toMatch(/^ {2}~ controller image 1\.14\.1@sha256:445baefa\w+ → 1\.15\.0@sha256:ab0f953e1460c61566d48209b517734ba79fe2105f335af1ff85faa8b6baf157$/m);
    expect(first.stdout).toMatch(/^ {2}\+ settings\.enableDRA \(variable unconfirmed, boolean, chart default false\)$/m);
    expect(first.stdout).toMatch(/^ {2}\+ settings\.legacyNodeRepair \(variable unconfirmed, boolean, chart default false\)$/m);
    expect(first.stdout).toMatch(/^ {2}\+ settings\.securityGroupRefreshInterval \(variable unconfirmed, duration, chart default "1m", at least 1m\)$/m);
    expect(first.stdout).toMatch(/^ {2}~ settings\.ignoreDRARequests: chartDefault true → null$/m);
    for (const gate of ['terminateFirstDrift', 'terminateFirstRepair', 'podDeletionCostManagement']) expect(first.stdout).toMatch(new RegExp(`^ {2}\\+ ${gate} \\(settings\\.featureGates\\.${gate}, default false, name in FEATURE_GATES unconfirmed\\)$`, 'm'));
    expect(first.stdout).toMatch(/^ {2}\+ draNVIDIAGPU \(settings\.awsFeatureGates\.draNVIDIAGPU → AWS_FEATURE_GATES, name unconfirmed, default null, in effect false\)$/m);
    expect(first.stdout).toMatch(/^ {2}\+ rebootForRepair \(settings\.awsFeatureGates\.rebootForRepair → AWS_FEATURE_GATES, name unconfirmed, default false\)$/m);
    expect(first.stdout).toMatch(/deployment\.yaml passes none of settings\.enableDRA, .*: each is typed from values\.yaml's own comment/);
    const rules = readFileSync(join(root, 'src/release/settings-rules.generated.ts'), 'utf8');
    expect(rules).toMatch(/ {2}securityGroupRefreshInterval: \{\n {4}envVar: null,\n {4}withGuarded: null,\n {4}type: 'duration',\n {4}minimum: '1m',\n {4}chartDefault: '1m',\n {4}controllerDefault: '1m',\n {4}tpl: null,\n {4}description: 'How often Karpenter refreshes security group data from EC2\.',\n {4}unconfirmed: 'no deployment template read passes it/);
    expect(rules).toMatch(/draEFA: \{ name: null, default: null, effectiveDefault: false, unconfirmed: /);
    const facts = readFileSync(join(root, 'src/release/v1.15.0/release.generated.ts'), 'utf8');
    expect(facts).toMatch(/settings: \[.*'enableDRA'.*'legacyNodeRepair'.*'securityGroupRefreshInterval'.*\]/);
  });

  it('takes the new settings map and the open kubelet, and a second run changes nothing', () => {
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^ {2}\+ NodeClassCEL \(settings\.awsFeatureGates\.nodeClassCEL → AWS_FEATURE_GATES, default false\)$/m);
    expect(first.stdout).toMatch(/^ {2}- EC2NodeClass: spec\.kubelet\.maxPods$/m);
    const facts = readFileSync(join(root, 'src/release/v1.15.0/release.generated.ts'), 'utf8');
    expect(facts).toMatch(/awsFeatureGates: \{ draEFA: null, draNVIDIAGPU: null, nodeClassCEL: 'NodeClassCEL', rebootForRepair: null \}/);
    expect(facts).toMatch(/kubeletValidatedBy: 'controller'/);
    expect(facts).toMatch(/ec2NodeClassHashVersion: 'v6'/);
    expect(readFileSync(join(root, 'src/release/v1.14.1/release.generated.ts'), 'utf8')).toMatch(/kubeletValidatedBy: 'crd',\n {2}ec2NodeClassHashVersion: 'v5'/);
    const again = run('upgrade', '1.15.0', '--from', STANDIN);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/^0 file\(s\) written, \d+ unchanged$/m);
  });

  it('type-checks', () => {
    writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({
      ...JSON.parse(readFileSync(join(REPO, 'tsconfig.json'), 'utf8')), include: ['src/**/*.ts', 'imports/**/*.ts'],
    }));
    const tsc = spawnSync(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', '.'], { cwd: root, encoding: 'utf8' });
    expect(tsc.stdout).toBe('');
    expect(tsc.status).toBe(0);
  });

  it('synthesizes 1.15.0 and 1.14.1 side by side: NodeClassCEL on only where an expression is used, AL2023 takes any kubelet field, the 1.14.1 cluster unchanged', () => {
    writeFleet({
      cel: { web: { kubelet: { kubeReserved: { cpu: 'max(60, vcpus * 30)', memory: '255 + memory_mib / 100' }, maxPods: 'min(110, max_pods)', containerLogMaxSize: '50Mi' } } },
      plain: { web: { kubelet: { containerLogMaxSize: '50Mi', evictionMinimumReclaim: { 'memory.available': '100Mi' } } } },
    });
    const synth = run('synth');
    expect(synth.stderr).toBe('');
    expect(synth.status).toBe(0);
    const values = (id: string) => parse(readFileSync(join(root, `dist/${id}/karpenter/values.yaml`), 'utf8')) as { settings: Record<string, unknown> };
    expect(values('cel').settings.awsFeatureGates).toEqual({ nodeClassCEL: true });
    expect(values('plain').settings.awsFeatureGates).toBeUndefined();
    expect(values('old').settings.awsFeatureGates).toBeUndefined();
    const nodeClass = parse(readFileSync(join(root, 'dist/cel/nodepools/web/web.yaml'), 'utf8').split(/^---$/m).find((d) => /kind: EC2NodeClass/.test(d)) ?? '') as { spec: { kubelet: unknown } };
    expect(nodeClass.spec.kubelet).toEqual({ containerLogMaxSize: '50Mi', kubeReserved: { cpu: 'max(60, vcpus * 30)', memory: '255 + memory_mib / 100' }, maxPods: 'min(110, max_pods)' });
    // 1.15's CRD would default a missing consolidateAfter to 0s: the NodePool says its own.
    const nodePool = parse(readFileSync(join(root, 'dist/cel/nodepools/web/web.yaml'), 'utf8').split(/^---$/m).find((d) => /kind: NodePool/.test(d)) ?? '') as { spec: { disruption: Record<string, unknown> } };
    expect(nodePool.spec.disruption.consolidateAfter).toBe('1m');
    expect(files('dist/old')).toEqual(before);
    // What the 1.15 clusters get, the 1.15 CRDs (schema and CEL) accept as written, nothing defaulted or dropped (no drift under Argo CD).
    useReleaseCrds('1.15.0', join(root, 'test/fixtures/karpenter-crds/v1.15.0'));
    const checked: string[] = [];
    for (const id of ['cel', 'plain']) {
      for (const [path, text] of files(`dist/${id}/nodepools`)) {
        for (const doc of parseAllDocuments(text).map((d) => d.toJS() as { kind: string })) {
          expect({ path, problems: validateFor('1.15.0', doc) }).toEqual({ path, problems: [] });
          expect({ path, stored: defaulted(doc, '1.15.0') }).toEqual({ path, stored: doc });
          checked.push(`${id} ${doc.kind}`);
        }
      }
    }
    expect(checked.sort()).toEqual(['cel EC2NodeClass', 'cel NodePool', 'plain EC2NodeClass', 'plain NodePool']);
  });

  it('reviews an EC2NodeClass edit landing with a controller upgrade across a hash-version bump: whether its nodes roll is a race, said at that cluster only', () => {
    const fleet = (upgraded: boolean, tags: Record<string, string>) => {
      writeFleet({});
      const config = JSON.parse(readFileSync(join(root, 'config/platform.yaml'), 'utf8')) as { clusters: Record<string, unknown>; teams: { web: Record<string, unknown> } };
      config.clusters.moving = { terraformOutputs: 'terraform/moving.json', destination: { name: 'moving' }, karpenter: { version: upgraded ? '1.15.0' : '1.14.1' } };
      config.teams.web.tags = tags;
      writeFileSync(join(root, 'config/platform.yaml'), JSON.stringify(config, null, 2));
      writeFileSync(join(root, 'config/terraform/moving.json'), terraform('moving'));
      const synth = run('synth');
      if (synth.status !== 0) throw new Error(synth.stderr);
    };
    const git = (...args: string[]) => spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: root, encoding: 'utf8' });
    fleet(false, {});
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'base');
    fleet(true, { billing: 'batch' });
    const diff = run('diff', '--base', 'HEAD');
    const out = diff.stdout;
    expect(out).toMatch(/Karpenter 1\.14\.1 -> 1\.15\.0 in the same change: EC2NodeClass hash version v5 -> v6, with tags edited/);
    expect(out).toMatch(/whether existing nodes roll for this edit is a race: the upgraded controller re-stamps every NodeClaim not yet Drifted/);
    expect(out).toMatch(/Safe order: upgrade the controller first \(its own pull request, synced\), then edit the EC2NodeClass/);
    // At the cluster that moves; the one that stays on 1.14.1 drifts for the same edit, as ever.
    expect(out).toMatch(/EC2NodeClass changed ×1 on cluster moving: Karpenter 1\.14\.1 -> 1\.15\.0 in the same change/);
    expect(out).toMatch(/EC2NodeClass changed ×1 on cluster old: tag billing added: batch — tags are in the EC2NodeClass hash/);
    expect(out).not.toMatch(/cluster old: Karpenter/);
  });

  it('fails at each kubelet field the release refuses, all at once, naming cluster and version', () => {
    writeFleet({
      cel: {
        web: { kubelet: { registerWithTaints: [], evictionHard: { 'memory.free': '5%' }, maxPods: 'vcpus - 1000', systemReserved: { cpu: 'vcpus +' } } },
        legacy: { kubelet: { containerLogMaxSize: '50Mi', clusterDNS: ['10.0.0.10', '10.0.0.11'] } },
      },
    });
    const config = readFileSync(join(root, 'config/platform.yaml'), 'utf8');
    const withOld = config.replace('"clusters": {\n    "old": {\n      "terraformOutputs": "terraform/old.json"\n    }', '"clusters": {\n    "old": {\n      "terraformOutputs": "terraform/old.json",\n      "teams": { "web": { "kubelet": { "containerLogMaxSize": "50Mi", "maxPods": "max_pods" } } }\n    }');
    writeFileSync(join(root, 'config/platform.yaml'), withOld);
    const synth = run('synth');
    expect(synth.status).toBe(1);
    const lines = synth.stderr.trim().split('\n');
    const expected = [
      /clusters\.cel\.teams\.web\.kubelet\.registerWithTaints: can't be set: Karpenter sets it from the NodeClaim's taints.*cluster cel runs Karpenter 1\.15\.0, whose controller refuses it/,
      /clusters\.cel\.teams\.web\.kubelet\.evictionHard\["memory\.free"\]: unknown key "memory\.free"/,
      /clusters\.cel\.teams\.legacy\.kubelet\.containerLogMaxSize: the AL2 AMI family does not apply it .*cluster cel runs Karpenter 1\.15\.0/,
      /clusters\.cel\.teams\.legacy\.kubelet\.clusterDNS: the AL2 AMI family doesn't accept multiple entries, only one, but 2 were set/,
      /clusters\.old\.teams\.web\.kubelet\.containerLogMaxSize: unknown key "containerLogMaxSize": cluster old runs Karpenter 1\.14\.1, whose EC2NodeClass CRD has no spec\.kubelet\.containerLogMaxSize/,
      /clusters\.cel\.teams\.web\.kubelet\.maxPods: CEL expression "vcpus - 1000" fails on \d+ of the \d+ instance types the pool admits \(m6a\.large: evaluated to -998, outside the valid range \[0, 2147483647\]/,
      /clusters\.cel\.teams\.web\.kubelet\.systemReserved\.cpu: CEL expression "vcpus \+" does not compile: .*\(cluster cel, Karpenter 1\.15\.0\)$/,
      /clusters\.old\.teams\.web\.kubelet\.maxPods: "max_pods" is a CEL expression: cluster old runs Karpenter 1\.14\.1, whose EC2NodeClass CRD takes maxPods as a whole number/,
    ];
    for (const e of expected) expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^config/platform\\.yaml:\\d+:\\d+: ${e.source}`)));
    expect(lines.find((l) => /kubelet\.registerWithTaints/.test(l))).toMatch(new RegExp(`^config/platform\\.yaml:${after('"registerWithTaints": ')}: `));
    // Located, all at once; no stack trace.
    expect(synth.stderr).not.toMatch(/^\s+at /m);
  });

  it('synthesizes the new settings and gates on the 1.15.0 cluster only, and refuses them on 1.14.1 naming the release', () => {
    writeFleet({ next: {} });
    const config = JSON.parse(readFileSync(join(root, 'config/platform.yaml'), 'utf8')) as { clusters: Record<string, { karpenter?: Record<string, unknown> }> };
    config.clusters.next.karpenter = {
      version: '1.15.0',
      controller: {
        settings: { securityGroupRefreshInterval: '5m', legacyNodeRepair: false },
        featureGates: { nodeRepair: true, terminateFirstDrift: true, terminateFirstRepair: true, podDeletionCostManagement: true },
        awsFeatureGates: { rebootForRepair: true, draEFA: true },
      },
    };
    writeFileSync(join(root, 'config/platform.yaml'), JSON.stringify(config, null, 2));
    writeFileSync(join(root, 'config/terraform/next.json'), terraform('next', { karpenter_can_reboot_instances: true }));
    const synth = run('synth');
    expect(synth.stderr).toBe('');
    expect(synth.status).toBe(0);
    const values = (id: string) => parse(readFileSync(join(root, `dist/${id}/karpenter/values.yaml`), 'utf8')) as { settings: Record<string, unknown> };
    expect(values('next').settings).toMatchObject({
      securityGroupRefreshInterval: '5m', legacyNodeRepair: false,
      featureGates: { nodeRepair: true, terminateFirstDrift: true, terminateFirstRepair: true, podDeletionCostManagement: true },
      awsFeatureGates: { rebootForRepair: true, draEFA: true },
    });
    expect(files('dist/old')).toEqual(before);

    config.clusters.old = { ...config.clusters.old, karpenter: { controller: { settings: { enableDRA: false }, awsFeatureGates: { draEFA: true } } } };
    writeFileSync(join(root, 'config/platform.yaml'), JSON.stringify(config, null, 2));
    const refused = run('synth');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`^config/platform\\.yaml:${after('"enableDRA": ').split(':')[0]}:\\d+: clusters\\.old\\.karpenter\\.controller\\.settings\\.enableDRA: cluster old runs Karpenter 1\\.14\\.1, whose chart has no setting enableDRA`, 'm'));
    expect(refused.stderr).toMatch(/clusters\.old\.karpenter\.controller\.awsFeatureGates\.draEFA: cluster old runs Karpenter 1\.14\.1, whose chart has no settings\.awsFeatureGates/);
  });

  it('synthesizes the issue\'s fleet: 1.14.1 and 1.15.0 side by side with node repair, a window, a static pool at limits.nodes == replicas (terminateFirstDrift) and the new gates; no compiled budget holds repair', () => {
    writeFleet({ next: { web: { pools: { fixed: { limits: { nodes: 3 } } } } } });
    const config = JSON.parse(readFileSync(join(root, 'config/platform.yaml'), 'utf8')) as Record<string, any>;
    // The static pool: 3 replicas; room for one more on 1.14.1 (old), none on 1.15.0 (next).
    config.teams.web.pools = { fixed: { replicas: 3, limits: { nodes: 4 } } };
    config.windows = { nightly: { timeZone: 'Europe/Berlin', days: ['tue', 'wed'], start: '22:00', duration: '6h' } };
    config.clusters.next.window = 'nightly';
    config.clusters.next.karpenter = { version: '1.15.0', controller: { featureGates: { nodeRepair: true, terminateFirstDrift: true } } };
    config.clusters.old.karpenter = { controller: { featureGates: { nodeRepair: true } } };
    writeFileSync(join(root, 'config/platform.yaml'), JSON.stringify(config, null, 2));
    const synth = run('synth');
    expect(synth.stderr).toBe('');
    expect(synth.status).toBe(0);
    // Every budget of every NodePool on 1.15.0 that could hold a node names its reasons, Repair not among them.
    const pools = readdirSync(join(root, 'dist/next/nodepools'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml'));
    const budgets = pools.flatMap((f) => parseAllDocuments(readFileSync(join(root, 'dist/next/nodepools', f), 'utf8')).map((d) => d.toJS() as { kind?: string; spec?: { disruption?: { budgets?: { nodes: string; reasons?: string[] }[] } } })
      .filter((d) => d.kind === 'NodePool').flatMap((d) => d.spec?.disruption?.budgets ?? []));
    expect(budgets.filter((b) => /^0+%?$/.test(b.nodes) && (b.reasons === undefined || b.reasons.includes('Repair')))).toEqual([]);
    expect(budgets.some((b) => b.nodes === '0' && b.reasons?.join() === 'Drifted')).toBe(true);
    expect(readFileSync(join(root, 'dist/next/SUMMARY.md'), 'utf8')).toMatch(/Node repair \(Karpenter 1\.15\.0\): .*inside and outside the window alike/);
    // The same static pool on 1.14.1: drift launches first and limits.nodes leaves it no room.
    config.clusters.old.teams = { web: { pools: { fixed: { limits: { nodes: 3 } } } } };
    writeFileSync(join(root, 'config/platform.yaml'), JSON.stringify(config, null, 2));
    const refused = run('synth');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/clusters\.old\.teams\.web\.pools\.fixed\.limits\.nodes: /);
  });

  it('refuses each pair the chart excludes at its line, all in one run, and rebootForRepair without the Terraform permission', () => {
    writeFleet({ next: {} });
    const config = JSON.parse(readFileSync(join(root, 'config/platform.yaml'), 'utf8')) as Record<string, unknown> & { clusters: Record<string, Record<string, unknown>> };
    config.groups = { gpu: { match: { clusters: ['next'] }, karpenter: { controller: { settings: { enableDRA: true, legacyNodeRepair: true } } } } };
    config.clusters.next.karpenter = {
      version: '1.15.0',
      controller: { settings: { ignoreDRARequests: false }, featureGates: { nodeRepair: true, terminateFirstRepair: true }, awsFeatureGates: { draNVIDIAGPU: true, draEFA: false, rebootForRepair: true } },
    };
    writeFileSync(join(root, 'config/platform.yaml'), JSON.stringify(config, null, 2));
    const synth = run('synth');
    expect(synth.status).toBe(1);
    const lines = synth.stderr.trim().split('\n');
    const line = (needle: string) => after(needle).split(':')[0];
    const expected = [
      `:${line('"draNVIDIAGPU": ')}:\\d+: clusters\\.next\\.karpenter\\.controller\\.awsFeatureGates\\.draNVIDIAGPU: karpenter\\.controller\\.awsFeatureGates\\.draNVIDIAGPU cannot be combined with karpenter\\.controller\\.settings\\.enableDRA: true \\(set at the group gpu level\\).*can't be combined with any of those values.*enableDRA already turns draNVIDIAGPU on`,
      `:${line('"ignoreDRARequests": ')}:\\d+: clusters\\.next\\.karpenter\\.controller\\.settings\\.ignoreDRARequests: .*cannot be combined with karpenter\\.controller\\.settings\\.enableDRA.*remove ignoreDRARequests`,
      `:${line('"terminateFirstRepair": ')}:\\d+: clusters\\.next\\.karpenter\\.controller\\.featureGates\\.terminateFirstRepair: .*cannot be combined with karpenter\\.controller\\.settings\\.legacyNodeRepair: true \\(set at the group gpu level\\).*the legacy controller doesn't support`,
      `:${line('"rebootForRepair": ')}:\\d+: clusters\\.next\\.karpenter\\.controller\\.awsFeatureGates\\.rebootForRepair: cluster next turns on rebootForRepair, which needs ec2:RebootInstances .*set enable_reboot_for_repair = true`,
    ];
    for (const e of expected) expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^config/platform\\.yaml${e}`)));
    // draEFA: false combines with enableDRA (only an on gate is refused).
    expect(lines.filter((l) => l.startsWith('config/'))).toHaveLength(4);
    expect(lines[lines.length - 1]).toBe('4 problem(s) found; nothing was written');
  });
});

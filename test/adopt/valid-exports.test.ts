/**
 * Issue 44: exports adoption must take or refuse clearly, through the real command. Reserved
 * capacity and static pools adopt (valid on 1.14.1); a Windows pool is an error naming the object
 * and field; label values YAML 1.1 reads as other types are written quoted; an export of another
 * cluster or of nothing is an error for adopt and diff --live alike; adopt holds the config's lock.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { Plain, removeProjects } from '../builders';
import { cli } from '../review/fleet';
import { aFleet, aLiveNodeClass, aLiveNodePool, writeExport } from './live-builders';

afterAll(removeProjects);

/** Adopts `items` into a fresh fleet as cluster c1. */
async function adopt(items: readonly Plain[]) {
  const project = aFleet();
  const live = writeExport(project, items);
  const before = readFileSync(project.configPath, 'utf8');
  const r = await cli(['adopt', 'c1', '--live', live, '--config', project.configPath]);
  return { ...r, project, live, before, after: readFileSync(project.configPath, 'utf8') };
}

describe('adopt takes what 1.14.1 accepts', () => {
  it('adopts a reserved-capacity pool and its capacity reservations; diff --live is quiet', async () => {
    const r = await adopt([
      aLiveNodePool('reserved', {}, { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['reserved', 'on-demand'] }] }),
      aLiveNodeClass({ capacityReservationSelectorTerms: [{ id: 'cr-0123456789abcdef0' }, { tags: { team: 'ml' } }] }),
    ]);
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    const d = await cli(['diff', '--live', r.live, '--cluster', 'c1', '--config', r.project.configPath, '--outdir', r.project.dir, '--fail-on', 'destructive']);
    expect(d).toMatchObject({ code: 0 });
    expect(d.out).toContain('no changes to the generated resources');
  });

  it('adopts a block device of iops and throughput 0, which Karpenter sends EC2 as no value; diff --live is quiet', async () => {
    const r = await adopt([
      aLiveNodePool('zeroes'),
      aLiveNodeClass({ blockDeviceMappings: [{ deviceName: '/dev/xvda', rootVolume: true, ebs: { volumeSize: '40Gi', volumeType: 'gp3', iops: 0, throughput: 0, encrypted: true } }] }),
    ]);
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    expect(r.after).toMatch(/iops: 0/);
    const d = await cli(['diff', '--live', r.live, '--cluster', 'c1', '--config', r.project.configPath, '--outdir', r.project.dir, '--fail-on', 'destructive']);
    expect(d).toMatchObject({ code: 0 });
    expect(d.out).toContain('no changes to the generated resources');
  });

  it('adopts a static pool (replicas); diff --live is quiet', async () => {
    const r = await adopt([aLiveNodePool('static', { replicas: 3, limits: { nodes: '5' } }), aLiveNodeClass()]);
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    expect(r.after).toMatch(/replicas: 3/);
    const d = await cli(['diff', '--live', r.live, '--cluster', 'c1', '--config', r.project.configPath, '--outdir', r.project.dir, '--fail-on', 'destructive']);
    expect(d).toMatchObject({ code: 0 });
  });

  it('writes label values YAML 1.1 reads as numbers or booleans quoted, through the yaml package\'s compat option', async () => {
    const labels = { octal: '0o17', legacyOctal: '010', float: '1e3', bool: 'yes', switch: 'off', underscored: '1_000' };
    const r = await adopt([aLiveNodePool('labelled', { template: { metadata: { labels } } }), aLiveNodeClass()]);
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    for (const [key, value] of Object.entries(labels)) expect(r.after).toContain(`${key}: "${value}"`);
    const config = parse(r.after, { version: '1.1' }) as { teams: { platform: { pools: { labelled: { labels: Plain } } } } };
    expect(config.teams.platform.pools.labelled.labels).toEqual(labels);
  });
});

describe('an export adoption refuses, naming the object and field, never "a bug of adopt"', () => {
  it('fails when a NodePool asks for Windows nodes, and when an EC2NodeClass uses a Windows alias', async () => {
    const r = await adopt([
      aLiveNodePool('win', {}, { requirements: [{ key: 'kubernetes.io/os', operator: 'In', values: ['windows'] }] }),
      aLiveNodeClass({ amiSelectorTerms: [{ alias: 'windows2022@latest' }] }),
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/live\.yaml:\d+:\d+: items\[0\]\.spec\.template\.spec\.requirements\[0\]: NodePool win: Windows pools are not supported: .*\(kubernetes\.io\/os In \[windows\]\)/);
    expect(r.err).toMatch(/live\.yaml:\d+:\d+: items\[1\]\.spec\.amiSelectorTerms\[0\]\.alias: EC2NodeClass default: Windows pools are not supported: .*\(alias windows2022@latest\)/);
    expect(r.err).not.toMatch(/a bug of adopt/);
    expect(r.after).toBe(r.before);
  });

  it('fails on what the CRD lets through and the config cannot say: NotIn with no values (Karpenter reads it as Exists), a block device mapping without deviceName', async () => {
    const r = await adopt([
      aLiveNodePool('default', {}, { requirements: [{ key: 'example.com/tier', operator: 'NotIn', values: [] }] }),
      aLiveNodeClass({ blockDeviceMappings: [{ rootVolume: true, ebs: { volumeSize: '40Gi', volumeType: 'gp3', encrypted: true } }] }),
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/live\.yaml:\d+:\d+: items\[0\]\.spec\.template\.spec\.requirements\[0\]: NodePool default: operator NotIn with no values is what Karpenter reads as Exists .*write operator: Exists in the NodePool first/);
    expect(r.err).toMatch(/live\.yaml:\d+:\d+: items\[1\]\.spec\.blockDeviceMappings\[0\]: EC2NodeClass default: has no deviceName: .*set deviceName \(such as \/dev\/xvda\) in the EC2NodeClass first/);
    expect(r.err).not.toMatch(/a bug of adopt|the config adoption would write/);
    expect(r.after).toBe(r.before);
  });

  it('fails on a static pool whose limits.nodes leaves no room to replace a drifted node: the cluster runs what the config refuses, not a bug of adopt', async () => {
    const r = await adopt([aLiveNodePool('static', { replicas: 3, limits: { nodes: '3' } }), aLiveNodeClass()]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^error: the cluster runs what the config refuses: pool static is static \(replicas: 3\) with limits\.nodes: 3: .*set limits\.nodes to at least 4 .*; change it in the cluster first \(or leave the pool out of the export\), then adopt again$/m);
    expect(r.err).toMatch(/^1 problem\(s\) found; nothing was written$/m);
    expect(r.err).not.toMatch(/a bug of adopt|the config adoption would write/);
    expect(r.after).toBe(r.before);
  });

  it('fails on a file that is no export (a text file given by mistake), quoting only its start, and on a list item that is not an object', async () => {
    const project = aFleet();
    const text = join(project.dir, 'notes.txt');
    writeFileSync(text, `${'a secret line of a file given by mistake '.repeat(20)}\n`);
    const r = await cli(['adopt', 'c1', '--live', text, '--config', project.configPath]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/notes\.txt:1:1: expected a Kubernetes object \(a map with apiVersion and kind\), got "a secret line of a file given by mistake"… \(\d+ characters\): export kubectl get /);
    expect(r.err.split('a secret line').length).toBe(2);
    const list = join(project.dir, 'list.yaml');
    writeFileSync(list, 'apiVersion: v1\nkind: List\nitems:\n  - just a string\n');
    const l = await cli(['adopt', 'c1', '--live', list, '--config', project.configPath]);
    expect(l.err).toMatch(/list\.yaml:4:5: items\[0\]: expected a Kubernetes object \(a map with apiVersion and kind\), got "just a string"/);
    expect(l.err).not.toMatch(/undefined/);
  });

  it('fails when a selector term combines an id with tags, or a limit names no resource, naming each', async () => {
    const r = await adopt([
      aLiveNodePool('default', { limits: { cpus: '10' } }),
      aLiveNodeClass({ subnetSelectorTerms: [{ id: 'subnet-0abc', tags: { tier: 'private' } }, { tags: { 'karpenter.sh/discovery': 'c1' } }] }),
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/items\[0\]\.spec\.limits\.cpus: NodePool default: unknown resource "cpus" \(did you mean "cpu"\?\).*remove it from the NodePool first/);
    expect(r.err).toMatch(/items\[1\]\.spec\.subnetSelectorTerms\[0\]: EC2NodeClass default: combines id with tags in one term/);
    expect(r.err).not.toMatch(/a bug of adopt/);
    expect(r.after).toBe(r.before);
  });

  it('fails when the export is another cluster\'s (taken with the wrong kube-context): adopt exits 1 and writes nothing, diff --live exits 1', async () => {
    const other = aLiveNodeClass({
      role: 'KarpenterNodeRole-prod-us-09', subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'prod-us-09' } }],
      securityGroupSelectorTerms: [{ tags: { 'kubernetes.io/cluster/prod-us-09': 'owned' } }], tags: { 'eks:eks-cluster-name': 'prod-us-09' },
    });
    const r = await adopt([aLiveNodePool('default'), other]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/live\.yaml:\d+:\d+: items\[1\]\.spec\.role: EC2NodeClass default: the export says "KarpenterNodeRole-prod-us-09", the Terraform output karpenter_node_role_name of this cluster "KarpenterNodeRole-c1"/);
    expect(r.err).toMatch(/items\[1\]\.spec\.subnetSelectorTerms\[0\]\.tags\["karpenter\.sh\/discovery"\]: EC2NodeClass default: the export says "prod-us-09", the Terraform output cluster_name of this cluster "c1"/);
    expect(r.err).toMatch(/securityGroupSelectorTerms\[0\]\.tags\["kubernetes\.io\/cluster\/prod-us-09"\]: .*"kubernetes\.io\/cluster\/c1"/);
    expect(r.err).toMatch(/items\[1\]\.spec\.tags\["eks:eks-cluster-name"\]: .*"prod-us-09".*"c1"/);
    expect(r.after).toBe(r.before);
    await cli(['synth', '--config', r.project.configPath, '--outdir', r.project.dir]);
    const d = await cli(['diff', '--live', r.live, '--cluster', 'c1', '--config', r.project.configPath, '--outdir', r.project.dir]);
    expect(d.code).toBe(1);
    expect(d.err).toMatch(/items\[1\]\.spec\.role: EC2NodeClass default: the export says "KarpenterNodeRole-prod-us-09"/);
  });

  it.each([['empty', ''], ['null', 'null\n'], ['only comments', '# kubectl: error: You must be logged in to the server\n']])('fails when the export is %s, for adopt and diff --live', async (_, text) => {
    const project = aFleet();
    const live = join(project.dir, 'live.yaml');
    writeFileSync(live, text);
    const before = readFileSync(project.configPath, 'utf8');
    const a = await cli(['adopt', 'c1', '--live', live, '--config', project.configPath]);
    expect(a.code).toBe(1);
    expect(a.err).toMatch(/live\.yaml: the export is empty: the kubectl command failed/);
    expect(readFileSync(project.configPath, 'utf8')).toBe(before);
    const d = await cli(['diff', '--live', live, '--cluster', 'c1', '--config', project.configPath, '--outdir', project.dir, '--fail-on', 'destructive']);
    expect(d.code).toBe(1);
    expect(d.err).toMatch(/live\.yaml: the export is empty: the kubectl command failed/);
  });

  it('fails when an invalid export\'s problem is at the export\'s line, not the config\'s', async () => {
    const project = aFleet();
    const live = join(project.dir, 'live.yaml');
    writeFileSync(live, 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: karpenter.sh/v1\n  kind: NodePool\n  metadata: {name: a}\n  spec: [1\n');
    const r = await cli(['adopt', 'c1', '--live', live, '--config', project.configPath]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/live\.yaml:\d+:\d+: /);
    expect(r.err).not.toMatch(/platform\.yaml/);
  });
});

describe('adopt holds the config\'s lock', () => {
  it('fails when another run holds the lock, and writes nothing', async () => {
    const project = aFleet();
    const live = writeExport(project, [aLiveNodePool('default'), aLiveNodeClass()]);
    const state = join(project.dir, '.karpenter-gitops');
    mkdirSync(state, { recursive: true });
    // A live process (this one) of this host holds it.
    writeFileSync(join(state, 'lock'), `${JSON.stringify({ pid: process.pid, host: hostname(), started: '2026-12-07T14:00:00Z', command: 'adopt' })}\n`);
    const before = readFileSync(project.configPath, 'utf8');
    const r = await cli(['adopt', 'c1', '--live', live, '--config', project.configPath]);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/another karpenter-gitops adopt run \(pid \d+.*\) is writing this output/);
    expect(readFileSync(project.configPath, 'utf8')).toBe(before);
  });

  it('removes what a run killed between write and rename left, and leaves no file beside the config', async () => {
    const project = aFleet();
    const live = writeExport(project, [aLiveNodePool('default'), aLiveNodeClass()]);
    const state = join(project.dir, '.karpenter-gitops');
    mkdirSync(state, { recursive: true });
    writeFileSync(join(state, 'adopt.platform.yaml'), 'half a config');
    const r = await cli(['adopt', 'c1', '--live', live, '--config', project.configPath]);
    expect(r.code).toBe(0);
    expect(existsSync(join(state, 'adopt.platform.yaml'))).toBe(false);
    expect(existsSync(join(state, 'lock'))).toBe(false);
    expect(readdirSync(join(project.dir, 'config')).sort()).toEqual(['platform.yaml', 'terraform']);
  });
});

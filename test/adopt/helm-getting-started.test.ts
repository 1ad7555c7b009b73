import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
/**
 * Issue 44: Karpenter's own documented Helm values (the getting-started `--set` flags, the
 * migration guide's affinity, the chart's nodeSelector, tolerations and topology spread;
 * test/fixtures/adoption/helm-values-getting-started-1.14.1.yaml cites each) adopt as they are,
 * through adopt and synth: the controller's values file holds them, with the node affinity the
 * generator needs (karpenter.sh/nodepool DoesNotExist in every required term).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { Plain, removeProjects } from '../builders';
import { cli } from '../review/fleet';
import { aFleet, aLiveNodeClass, aLiveNodePool, writeExport } from './live-builders';

afterAll(removeProjects);

const VALUES = join(__dirname, '..', 'fixtures', 'adoption', 'helm-values-getting-started-1.14.1.yaml');

/** Adopts one pool of cluster c1 with `values`, synthesizes, and returns the controller's generated values. */
async function adoptWith(values: string) {
  const project = aFleet();
  const live = writeExport(project, [aLiveNodePool('default'), aLiveNodeClass()]);
  const r = await cli(['adopt', 'c1', '--live', live, '--helm-values', values, '--config', project.configPath]);
  const synthed = r.code === 0 ? await cli(['synth', '--config', project.configPath, '--outdir', project.dir]) : undefined;
  const generated = synthed?.code === 0 ? parse(readFileSync(join(project.dir, 'dist', 'c1', 'karpenter', 'values.yaml'), 'utf8')) as Plain : undefined;
  return { ...r, project, generated };
}

describe('Karpenter\'s documented Helm values', () => {
  it('adopt as they are: affinity, nodeSelector, tolerations and topology spread reach the controller unchanged', async () => {
    const r = await adoptWith(VALUES);
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    const documented = parse(readFileSync(VALUES, 'utf8')) as Plain;
    for (const key of ['affinity', 'nodeSelector', 'tolerations', 'topologySpreadConstraints']) {
      expect({ key, value: r.generated?.[key] }).toEqual({ key, value: documented[key] });
    }
    expect(r.generated).toMatchObject({ settings: { clusterName: 'c1', interruptionQueue: 'c1', enableZonalShift: 'false' } });
    // Quantities as the chart takes them: "1" and 1 are one CPU.
    expect(r.generated?.controller).toEqual({ resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } });
    expect(r.out).not.toMatch(/node affinity gains/);
  });

  it('merge a node affinity that would let the controller run on Karpenter\'s nodes with what the generator needs, and say so', async () => {
    const values = parse(readFileSync(VALUES, 'utf8')) as { affinity: { nodeAffinity: Plain } };
    values.affinity.nodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'eks.amazonaws.com/nodegroup', operator: 'In', values: ['system'] }] }] } };
    const path = join(mkdtempSync(join(tmpdir(), 'karpenter-gitops-values-')), 'values-nodegroup-only.yaml');
    writeFileSync(path, stringify(values));
    const r = await adoptWith(path);
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: '' });
    expect(r.out).toMatch(/the controller's node affinity gains karpenter\.sh\/nodepool DoesNotExist in every required term/);
    expect(r.generated?.affinity).toEqual({
      ...values.affinity,
      nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [
        { key: 'eks.amazonaws.com/nodegroup', operator: 'In', values: ['system'] }, { key: 'karpenter.sh/nodepool', operator: 'DoesNotExist' },
      ] }] } },
    });
  });
});

/**
 * Where workloads can run on a fleet of two clusters, and the first reason a pool
 * rejects them: taints, then node selection, then resources.
 *
 * prod has web (not dedicated, labelled tier=frontend, c and m of generation 6+, a
 * PreferNoSchedule taint and a startup taint), batch (dedicated, arm64, spot and
 * on-demand) and ml-gpu (dedicated, g5/g6, tainted nvidia.com/gpu); staging has web and
 * batch. Every pool has limits of 100 cpu and 400Gi memory.
 */
import { catalogMatcher } from '../../src/catalog/match';
import { loadPlatform } from '../../src/config/load';
import type { Platform } from '../../src/config/platform';
import type { PodConstraints } from '../../src/fit/manifest';
import { fitWorkloads } from '../../src/fit/placement';
import { fleetPlan } from '../../src/model/plan';
import { aConfig, aTerraform, removeProjects, writeProject } from '../builders';
import { karpenterCatalog } from '../../src/catalog/catalog';
import { fitJson, fitTerminal } from '../../src/fit/report';
import { aCluster, aKarpenter, aPlatform, aPool } from '../pool-builders';
import { aContainer, aPodSpec, expr, placeOn, podOf, readWorkload, requiring } from './builders';

let fleet: Platform;

beforeAll(() => {
  const project = writeProject({
    config: aConfig({
      clusters: {
        demo: undefined,
        prod: { terraformOutputs: 'terraform/prod.json' },
        staging: { terraformOutputs: 'terraform/staging.json', teams: ['web', 'batch'] },
      },
      teams: {
        web: {
          dedicated: false, labels: { tier: 'frontend' }, instanceCategories: ['c', 'm'], instanceGeneration: { gt: 5 },
          taints: [{ key: 'example.com/noisy', value: 'true', effect: 'PreferNoSchedule' }],
          startupTaints: [{ key: 'example.com/agent-not-ready', effect: 'NoSchedule' }],
        },
        batch: { arch: ['arm64'], capacityTypes: ['spot', 'on-demand'], instanceCategories: ['c', 'm', 'r'], instanceGeneration: { gt: 6 } },
        ml: {
          defaultPool: false,
          pools: {
            gpu: {
              instanceFamilies: ['g5', 'g6'],
              taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }],
              smokeTest: { resources: { 'nvidia.com/gpu': 1 } },
            },
          },
        },
      },
    }),
    terraform: { prod: aTerraform({ cluster_name: 'prod' }), staging: aTerraform({ cluster_name: 'staging' }) },
  });
  fleet = loadPlatform(project.configPath).platform;
});
afterAll(removeProjects);

/** Where a Deployment with this pod spec fits (`cluster/pool`), and why not elsewhere (by `cluster/pool`). */
function place(spec: Parameters<typeof aPodSpec>[0] = {}): { fits: string[]; rejected: Record<string, string> } {
  const [w] = fitWorkloads([readWorkload('Deployment', aPodSpec(spec), { name: 'app', namespace: 'default' })], fleet, fleetPlan(fleet));
  return {
    fits: w.fits.map((f) => `${f.cluster}/${f.pool}`),
    rejected: Object.fromEntries(w.rejected.map((r) => [`${r.cluster}/${r.pool}`, r.reason])),
  };
}

const TOLERATE_ALL = [{ operator: 'Exists' }];

describe('taints', () => {
  it('rejects the dedicated pools of a plain pod, naming each untolerated taint', () => {
    expect(place()).toEqual({
      fits: ['prod/web', 'staging/web'],
      rejected: {
        'prod/batch': 'untolerated taint dedicated=batch:NoSchedule',
        'prod/ml-gpu': 'untolerated taints dedicated=ml:NoSchedule, nvidia.com/gpu=true:NoSchedule',
        'staging/batch': 'untolerated taint dedicated=batch:NoSchedule',
      },
    });
  });

  it('ignores a PreferNoSchedule taint and startup taints (web has both)', () => {
    expect(place().fits).toContain('prod/web');
  });

  it('lets a toleration of exactly the taint through, and only that pool', () => {
    expect(place({ tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'batch', effect: 'NoSchedule' }] }).fits)
      .toEqual(['prod/web', 'prod/batch', 'staging/web', 'staging/batch']);
  });

  it('still rejects when one of two taints is tolerated', () => {
    expect(place({ tolerations: [{ key: 'dedicated', value: 'ml', effect: 'NoSchedule' }] }).rejected['prod/ml-gpu'])
      .toBe('untolerated taint nvidia.com/gpu=true:NoSchedule');
  });

  it('lets a key-less Exists toleration through every taint', () => {
    expect(place({ tolerations: TOLERATE_ALL }).fits).toEqual(['prod/web', 'prod/batch', 'prod/ml-gpu', 'staging/web', 'staging/batch']);
  });

  it('checks taints before node selection and resources', () => {
    const r = place({ nodeSelector: { team: 'nobody' }, containers: [aContainer({ requests: { cpu: '1000' } })] });
    expect(r.rejected['prod/batch']).toBe('untolerated taint dedicated=batch:NoSchedule');
  });
});

describe('node selection', () => {
  it('rejects a nodeSelector on a label the pool sets to another value', () => {
    expect(place({ tolerations: TOLERATE_ALL, nodeSelector: { team: 'batch' } })).toEqual({
      fits: ['prod/batch', 'staging/batch'],
      rejected: {
        'prod/web': "nodeSelector team=batch: the pool's nodes have team=web",
        'prod/ml-gpu': "nodeSelector team=batch: the pool's nodes have team=ml",
        'staging/web': "nodeSelector team=batch: the pool's nodes have team=web",
      },
    });
  });

  it('selects exactly one pool by karpenter.sh/nodepool, as Karpenter labels every node', () => {
    const r = place({ tolerations: TOLERATE_ALL, nodeSelector: { 'karpenter.sh/nodepool': 'ml-gpu' } });
    expect(r.fits).toEqual(['prod/ml-gpu']);
    expect(r.rejected['prod/web']).toBe("nodeSelector karpenter.sh/nodepool=ml-gpu: the pool's nodes have karpenter.sh/nodepool=web");
  });

  it('matches a requirement against the instance types the pool admits', () => {
    const r = place({ tolerations: TOLERATE_ALL, affinity: requiring([expr('kubernetes.io/arch', 'In', 'arm64')]) });
    expect(r.fits).toEqual(['prod/batch', 'staging/batch']);
    expect(r.rejected['prod/web']).toBe('requires kubernetes.io/arch In [arm64]: the pool admits only amd64 instance types');
  });

  it('rejects a GPU requirement on pools whose instance types have no GPU', () => {
    const r = place({ tolerations: TOLERATE_ALL, affinity: requiring([expr('karpenter.k8s.aws/instance-gpu-count', 'Exists')]) });
    expect(r.fits).toEqual(['prod/ml-gpu']);
    expect(r.rejected['prod/web']).toBe('requires karpenter.k8s.aws/instance-gpu-count Exists: no instance type the pool admits has it');
  });

  it('rejects a requirement on a key the pool constrains that is not an instance label, naming the pool\'s requirement', () => {
    const r = place({ tolerations: TOLERATE_ALL, nodeSelector: { 'karpenter.sh/capacity-type': 'spot' } });
    expect(r.fits).toEqual(['prod/batch', 'staging/batch']);
    expect(r.rejected['prod/web']).toBe('nodeSelector karpenter.sh/capacity-type=spot: the pool requires karpenter.sh/capacity-type In [on-demand]');
  });

  it('allows a well-known label the pool does not constrain (zones, region)', () => {
    expect(place({ nodeSelector: { 'topology.kubernetes.io/zone': 'eu-west-1a', 'topology.kubernetes.io/region': 'eu-west-1' } }).fits)
      .toEqual(['prod/web', 'staging/web']);
  });

  it('rejects a custom label the pool neither sets nor requires, with Karpenter\'s typo hint', () => {
    expect(place({ nodeSelector: { disktype: 'ssd' } }).rejected['prod/web']).toBe("nodeSelector disktype=ssd: the pool's nodes have no disktype label");
    expect(place({ nodeSelector: { arch: 'arm64' } }).rejected['prod/web'])
      .toBe('nodeSelector arch=arm64: the pool\'s nodes have no arch label (typo of "kubernetes.io/arch"?)');
  });

  it('allows NotIn and DoesNotExist on a custom label no node has', () => {
    expect(place({ affinity: requiring([expr('disktype', 'NotIn', 'hdd'), expr('example.com/legacy', 'DoesNotExist')]) }).fits)
      .toEqual(['prod/web', 'staging/web']);
  });

  it('holds when any one of the nodeSelectorTerms holds (they are ORed)', () => {
    const r = place({
      tolerations: TOLERATE_ALL,
      affinity: requiring([expr('tier', 'In', 'backend')], [expr('kubernetes.io/arch', 'In', 'arm64')]),
    });
    expect(r.fits).toEqual(['prod/batch', 'staging/batch']);
  });

  it('names each term\'s reason when none holds', () => {
    const r = place({ affinity: requiring([expr('tier', 'In', 'backend')], [expr('karpenter.k8s.aws/instance-family', 'In', 'g5')]) });
    expect(r.rejected['prod/web']).toBe('none of the 2 nodeSelectorTerms holds: '
      + "[0] requires tier In [backend]: the pool's nodes have tier=frontend; "
      + '[1] requires karpenter.k8s.aws/instance-family In [g5]: the pool\'s instance types have karpenter.k8s.aws/instance-family c6a, c6i, c6id, c6in, c7a or 27 others');
  });

  it('checks the nodeSelector with every term: a term that holds cannot undo a nodeSelector that does not', () => {
    const r = place({ nodeSelector: { tier: 'backend' }, affinity: requiring([expr('kubernetes.io/arch', 'In', 'amd64')]) });
    expect(r.rejected['prod/web']).toBe("nodeSelector tier=backend: the pool's nodes have tier=frontend");
  });

  it('names the pair of requirements that together leave no instance type', () => {
    const r = place({ affinity: requiring([expr('karpenter.k8s.aws/instance-family', 'In', 'c6i', 'm6i'), expr('karpenter.k8s.aws/instance-cpu-manufacturer', 'In', 'amd')]) });
    expect(r.rejected['prod/web']).toBe('requires karpenter.k8s.aws/instance-family In [c6i, m6i] together with requires karpenter.k8s.aws/instance-cpu-manufacturer In [amd]: '
      + 'no instance type the pool admits satisfies both');
  });
});

describe('resources', () => {
  it('rejects requests larger than any instance type the pool can launch within its limits', () => {
    const r = place({ containers: [aContainer({ requests: { cpu: '200' } })] });
    expect(r.rejected['prod/web']).toBe('requests 200 cpu: the largest the pool can offer within its limits (cpu=100, memory=400Gi) is 95690m (c6a.24xlarge)');
  });

  it('names what the pool can launch within its limits even when no instance type at all is that large', () => {
    const r = place({ containers: [aContainer({ requests: { cpu: '500' } })] });
    expect(r.rejected['prod/web']).toBe('requests 500 cpu: the largest the pool can offer within its limits (cpu=100, memory=400Gi) is 95690m (c6a.24xlarge)');
    const unlimited = placeOn(podOf(aPodSpec({ containers: [aContainer({ requests: { cpu: '2000' } })] })), aPool({ dedicated: false }), aCluster(), catalogMatcher());
    expect(unlimited).toEqual({ reason: 'requests 2000 cpu: the largest the pool can offer is 893690m (u7i-12tb.224xlarge)' });
  });

  it('names memory in Gi, rounded down, when that is what does not fit', () => {
    const r = place({ containers: [aContainer({ requests: { cpu: '1', memory: '390Gi' } })] });
    expect(r.rejected['prod/web']).toBe('requests 390Gi memory: the largest the pool can offer within its limits (cpu=100, memory=400Gi) is 346.93Gi (m6a.24xlarge)');
  });

  it('sends a GPU workload only to the GPU pool, even when it tolerates every taint', () => {
    const r = place({ tolerations: TOLERATE_ALL, containers: [aContainer({ limits: { 'nvidia.com/gpu': 1 } })] });
    expect(r.fits).toEqual(['prod/ml-gpu']);
    expect(r.rejected).toEqual({
      'prod/web': 'requests 1 nvidia.com/gpu: no instance type the pool admits has nvidia.com/gpu',
      'prod/batch': 'requests 1 nvidia.com/gpu: no instance type the pool admits has nvidia.com/gpu',
      'staging/web': 'requests 1 nvidia.com/gpu: no instance type the pool admits has nvidia.com/gpu',
      'staging/batch': 'requests 1 nvidia.com/gpu: no instance type the pool admits has nvidia.com/gpu',
    });
  });

  it('counts an init container that asks more than the containers', () => {
    const r = place({ initContainers: [aContainer({ requests: { cpu: '120' } }, { name: 'warm-up' })] });
    expect(r.rejected['prod/web']).toMatch(/^requests 120 cpu: the largest the pool can offer/);
  });

  it('counts limits as requests where a container requests nothing', () => {
    const r = place({ containers: [aContainer({ limits: { cpu: '120' } })] });
    expect(r.rejected['prod/web']).toMatch(/^requests 120 cpu: /);
  });

  it('checks resources on the instance types node selection left', () => {
    const r = place({ nodeSelector: { 'node.kubernetes.io/instance-type': 'c6i.large' }, containers: [aContainer({ requests: { cpu: '2' } })] });
    expect(r.rejected['prod/web']).toBe('requests 2 cpu: the largest the pool can offer is 1930m (c6i.large)');
  });

  it('says so when no single instance type has all of the requests at once', () => {
    // c6i.2xlarge has the cpu but not the memory, r6i.xlarge the other way round (web admits no r).
    const r = place({
      affinity: requiring([expr('node.kubernetes.io/instance-type', 'In', 'c6i.2xlarge', 'r6i.xlarge')]),
      containers: [aContainer({ requests: { cpu: '6', memory: '20Gi' } })],
    });
    expect(r.rejected['prod/web']).toBe('requests 20Gi memory: the largest the pool can offer is 13.83Gi (c6i.2xlarge)');
    const anyCategory = placeOn(
      podOf(aPodSpec({ affinity: requiring([expr('node.kubernetes.io/instance-type', 'In', 'c6i.2xlarge', 'r6i.xlarge')]), containers: [aContainer({ requests: { cpu: '6', memory: '20Gi' } })] })),
      aPool({ dedicated: false }), aCluster(), catalogMatcher(),
    );
    expect(anyCategory).toEqual({ reason: 'requests 6 cpu, 20Gi memory: no instance type the pool admits has all of that at once' });
  });
});

describe('rules about one pool', () => {
  const matcher = catalogMatcher();
  const pod = (spec: Parameters<typeof aPodSpec>[0] = {}): PodConstraints => podOf(aPodSpec(spec));
  const open = { dedicated: false } as const;

  it('rejects every pod of a pool whose limits allow no node, before anything about the pod', () => {
    expect(placeOn(pod(), aPool({ ...open, limits: { nodes: '0' } }), aCluster(), matcher)).toEqual({ reason: 'the pool can launch no node: its limits allow none (nodes=0)' });
  });

  it('rejects every pod of a pool whose limits are smaller than every instance type it admits', () => {
    const pool = aPool({ ...open, instanceTypes: ['m5.xlarge'], limits: { cpu: '2' } });
    expect(placeOn(pod(), pool, aCluster(), matcher)).toEqual({ reason: 'the pool can launch no node: every instance type it admits is larger than its limits (cpu=2)' });
  });

  it('rejects a pod whose requests leave fewer distinct values than a minValues, unless the policy is BestEffort', () => {
    const pool = aPool({ ...open, requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m5', 'm6i', 'm7i'], minValues: 2 }] });
    const big = pod({ containers: [aContainer({ requests: { cpu: '150' } })] });
    expect(placeOn(big, pool, aCluster(), matcher)).toEqual({
      reason: "the 2 instance type(s) that can hold it have 1 distinct karpenter.k8s.aws/instance-family value(s) (m7i), fewer than the pool's minValues 2",
    });
    const bestEffort = aCluster([pool], { karpenter: aKarpenter({}, { settings: { minValuesPolicy: 'BestEffort' } }) });
    expect(placeOn(big, pool, bestEffort, matcher)).toMatchObject({ instanceTypes: 2 });
  });

  it('rejects a pod bound to a node by name, or selecting one by hostname', () => {
    expect(placeOn(pod({ nodeName: 'ip-10-0-1-7' }), aPool(open), aCluster(), matcher))
      .toEqual({ reason: 'spec.nodeName binds it to node ip-10-0-1-7; a new node of the pool gets a name of its own' });
    expect(placeOn(pod({ nodeSelector: { 'kubernetes.io/hostname': 'ip-10-0-1-7' } }), aPool(open), aCluster(), matcher))
      .toEqual({ reason: 'nodeSelector kubernetes.io/hostname=ip-10-0-1-7: a new node of the pool gets a name of its own' });
  });

  it('rejects a term that asks for a node by name (matchFields)', () => {
    const byName = pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [expr('metadata.name', 'In', 'ip-10-0-1-7')] }] } } } });
    expect(placeOn(byName, aPool(open), aCluster(), matcher))
      .toEqual({ reason: 'nodeSelectorTerms[0] selects nodes by name (matchFields metadata.name In [ip-10-0-1-7]); a new node of the pool gets a name of its own' });
  });

  it('rejects an empty term, which matches no node', () => {
    const empty = pod({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{}] } } } });
    expect(placeOn(empty, aPool(open), aCluster(), matcher)).toEqual({ reason: 'nodeSelectorTerms[0] is empty and matches no node' });
  });

  it('holds a requirement the pool sets with a custom requirement of its own', () => {
    const pool = aPool({ ...open, requirements: [{ key: 'example.com/tier', operator: 'In', values: ['gold', 'silver'] }] });
    expect(placeOn(pod({ nodeSelector: { 'example.com/tier': 'gold' } }), pool, aCluster(), matcher)).toMatchObject({ instanceTypes: expect.any(Number) });
    expect(placeOn(pod({ nodeSelector: { 'example.com/tier': 'bronze' } }), pool, aCluster(), matcher))
      .toEqual({ reason: 'nodeSelector example.com/tier=bronze: the pool requires example.com/tier In [gold, silver]' });
  });
});

describe('a static pool (replicas)', () => {
  // Karpenter launches no node for a pod on a static pool: its provisioner leaves static NodePools
  // out and keeps exactly replicas nodes (at most limits.nodes), each of a type the pool admits.
  const ingest = (replicas: number, limits?: Record<string, string>) => aPool(
    { dedicated: false, replicas, instanceTypes: ['m7i.large', 'm7i.xlarge', 'm7i.2xlarge'], ...(limits ? { limits } : {}) },
    { name: 'ingest', team: 'ingest' },
  );
  const fitOn = (pool: ReturnType<typeof aPool>, spec: Parameters<typeof aPodSpec>[0]) => {
    const platform = aPlatform([aCluster([pool])]);
    return fitWorkloads([readWorkload('Deployment', aPodSpec(spec), { name: 'app', namespace: 'default' })], platform, fleetPlan(platform));
  };
  const threeCpus = { containers: [aContainer({ requests: { cpu: '3' } })] };
  const price = (type: string) => karpenterCatalog().instanceType(type)?.price ?? NaN;

  it('fits on the pool\'s nodes if they are of a type that can hold it, and says no node is launched for it', () => {
    const answer = fitOn(ingest(4), threeCpus);
    // m7i.large has 1930m allocatable; m7i.xlarge 3920m and m7i.2xlarge 7910m can hold 3 cpu.
    const [xlarge, twoXlarge] = [price('m7i.xlarge'), price('m7i.2xlarge')];
    expect(answer[0].fits).toEqual([{
      cluster: 'demo', pool: 'ingest', instanceTypes: 2, static: { nodes: 4, admittedTypes: 3 },
      prices: { min: xlarge, minType: 'm7i.xlarge', max: twoXlarge, maxType: 'm7i.2xlarge', unpriced: 0 },
    }]);
    expect(fitTerminal(answer, [])).toEqual([
      'Deployment default/app: fits 1 of 1 pool',
      `  ✓ demo/ingest  fits on the pool's 4 nodes if they are of the 2 of its 3 instance types that can hold it ($${xlarge.toFixed(4)} to $${twoXlarge.toFixed(4)} per node-hour); no node is launched for it`,
    ]);
    expect(JSON.parse(fitJson(answer, [])).workloads[0].fits).toEqual([{
      cluster: 'demo', pool: 'ingest', instanceTypes: 2, onDemandPricePerHour: { min: xlarge, max: twoXlarge, region: 'us-east-1' }, static: { nodes: 4, admittedTypes: 3 },
    }]);
  });

  it('fits on any of its nodes when every type it admits can hold the pod', () => {
    expect(fitTerminal(fitOn(ingest(1), {}), [])[1]).toBe(
      `  ✓ demo/ingest  fits on any of the pool's 1 node: all 3 instance types it admits can hold it ($${price('m7i.large').toFixed(4)} to $${price('m7i.2xlarge').toFixed(4)} per node-hour); no node is launched for it`,
    );
  });

  it('counts the nodes Karpenter keeps: replicas, at most limits.nodes', () => {
    expect(fitOn(ingest(4, { nodes: '2' }), threeCpus)[0].fits[0].static).toEqual({ nodes: 2, admittedTypes: 3 });
  });

  it('rejects every pod of a static pool that keeps no node', () => {
    expect(fitOn(ingest(0), {})[0].rejected).toEqual([{ cluster: 'demo', pool: 'ingest', reason: 'the pool is static and keeps no node (replicas: 0)' }]);
    expect(fitOn(ingest(3, { nodes: '0' }), {})[0].rejected[0].reason).toBe('the pool is static and keeps no node (replicas: 3, limits.nodes: 0)');
  });

  it('rejects a pod too large for every type it admits, and one bound to a node by name (fit cannot know the nodes\' names)', () => {
    expect(fitOn(ingest(4), { containers: [aContainer({ requests: { cpu: '9' } })] })[0].rejected[0].reason).toBe('requests 9 cpu: the largest the pool can offer is 7910m (m7i.2xlarge)');
    expect(fitOn(ingest(4), { nodeName: 'ip-10-0-1-7' })[0].rejected[0].reason).toBe('spec.nodeName binds it to node ip-10-0-1-7; fit does not know the names of the pool\'s 4 nodes');
  });
});

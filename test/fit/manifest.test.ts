/**
 * A manifest as fit reads it: the six workload kinds (their pod specs where each kind
 * keeps them), every other object skipped, and what the API server would reject as a
 * located problem.
 */
import { stringify } from 'yaml';
import { SourceFile } from '../../src/input/source';
import { manifestOf, WORKLOAD_KINDS } from '../../src/fit/manifest';
import { positionOf } from '../builders';
import { aContainer, aPodSpec, aService, aWorkload, expr, manifest, manifestProblems, requiring } from './builders';

const read = (text: string) => {
  const { manifest: m, problems } = manifestOf(SourceFile.parseDocuments(text, 'app.yaml'));
  expect(problems).toEqual([]);
  return m;
};

describe('workloads', () => {
  it('reads the pods of each of the six kinds, with their requests, and skips a Service', () => {
    const spec = aPodSpec({ nodeSelector: { team: 'web' }, containers: [aContainer({ requests: { cpu: '2' } })] });
    const m = read(manifest(...WORKLOAD_KINDS.map((kind) => aWorkload(kind, spec, { name: kind.toLowerCase(), namespace: 'shop' })), aService('api', 'shop')));
    expect(m.workloads.map((w) => [w.kind, w.namespace, w.name, w.pod.nodeSelector, w.pod.requests])).toEqual(
      WORKLOAD_KINDS.map((kind) => [kind, 'shop', kind.toLowerCase(), { team: 'web' }, { cpu: 2000, pods: 1 }]),
    );
    expect(m.skipped).toEqual([{ apiVersion: 'v1', kind: 'Service', namespace: 'shop', name: 'api' }]);
  });

  it('puts a workload without a namespace in "default", and names one by generateName when it has no name', () => {
    const m = read(manifest(aWorkload('Pod', aPodSpec(), { generateName: 'probe-' })));
    expect(m.workloads.map((w) => [w.namespace, w.name])).toEqual([['default', 'probe-']]);
  });

  it('skips a kind of the same name from another API group (a Volcano Job is not a batch Job)', () => {
    const volcano = { ...aWorkload('Job'), apiVersion: 'batch.volcano.sh/v1alpha1' };
    const m = read(manifest(volcano));
    expect(m.workloads).toEqual([]);
    expect(m.skipped).toEqual([{ apiVersion: 'batch.volcano.sh/v1alpha1', kind: 'Job', namespace: 'default', name: 'app' }]);
  });

  it('reads the items of a List one by one', () => {
    const m = read(stringify({ apiVersion: 'v1', kind: 'List', items: [aWorkload('Deployment'), aService()] }));
    expect([m.workloads.map((w) => w.kind), m.skipped.map((s) => s.kind)]).toEqual([['Deployment'], ['Service']]);
  });

  it('reads the required node affinity terms, and nothing for preferred ones', () => {
    const [w] = read(manifest(aWorkload('Deployment', aPodSpec({
      affinity: {
        ...requiring([expr('kubernetes.io/arch', 'In', 'arm64')], [expr('karpenter.sh/capacity-type', 'Exists')]),
      },
    })))).workloads;
    expect(w.pod.nodeSelectorTerms).toEqual([
      { matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['arm64'] }], matchFields: [] },
      { matchExpressions: [{ key: 'karpenter.sh/capacity-type', operator: 'Exists', values: [] }], matchFields: [] },
    ]);
    const [preferring] = read(manifest(aWorkload('Deployment', aPodSpec({
      affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [expr('a', 'In', 'b')] } }] } },
    })))).workloads;
    expect(preferring.pod.nodeSelectorTerms).toBeUndefined();
  });

  it('adds the DaemonSet controller\'s tolerations to a DaemonSet\'s pods only', () => {
    const [ds, deploy] = read(manifest(aWorkload('DaemonSet'), aWorkload('Deployment'))).workloads;
    expect(ds.pod.tolerations.map((t) => t.key)).toContain('node.kubernetes.io/not-ready');
    expect(deploy.pod.tolerations).toEqual([]);
  });
});

describe('problems, located', () => {
  it('fails on a quantity that is not one, at its line', () => {
    const text = manifest(aService(), aWorkload('Deployment', aPodSpec({ containers: [aContainer({ requests: { cpu: 'two' } })] })));
    expect(manifestProblems(text)).toEqual([
      `app.yaml:${positionOf(text, 'two')}: spec.template.spec.containers[0].resources.requests.cpu: invalid quantity "two" (e.g. 500m, 2, 1.5Gi)`,
    ]);
  });

  it('fails on what the API server rejects in node selection and tolerations', () => {
    const text = manifest(aWorkload('Pod', aPodSpec({
      nodeSelector: { zone: 1 },
      tolerations: [{ operator: 'Equal', value: 'x' }],
      affinity: requiring([expr('kubernetes.io/arch', 'Like', 'arm64'), expr('team', 'In'), expr('karpenter.k8s.aws/instance-cpu', 'Gt', 'four')]),
    })));
    expect(manifestProblems(text)).toEqual([
      `app.yaml:${positionOf(text, 'zone: 1').replace(/:\d+$/, ':11')}: spec.nodeSelector.zone: expected a string, got number 1 (quote it: "1")`,
      `app.yaml:${positionOf(text, 'Equal')}: spec.tolerations[0].operator: a toleration without a key must use operator Exists`,
      `app.yaml:${positionOf(text, 'Like')}: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: unknown value "Like" (allowed: In, NotIn, Exists, DoesNotExist, Gt, Lt)`,
      expect.stringMatching(/matchExpressions\[1\]\.values: operator In needs at least one value$/),
      expect.stringMatching(/matchExpressions\[2\]\.values: operator Gt needs exactly one integer value$/),
    ]);
  });

  it('fails on a workload without containers, without a pod spec, or without a name', () => {
    const noContainers = manifest(aWorkload('Deployment', {}));
    expect(manifestProblems(noContainers)).toEqual([expect.stringMatching(/^app\.yaml:\d+:\d+: spec\.template\.spec\.containers: required field is missing \(expected array\)$/)]);
    const noSpec = manifest({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'nightly' }, spec: { schedule: '@daily' } });
    expect(manifestProblems(noSpec)).toEqual([`app.yaml:${positionOf(noSpec, 'schedule')}: spec.jobTemplate.spec.template.spec: required field is missing (expected the pod spec, a map)`]);
    expect(manifestProblems(manifest(aWorkload('Pod', aPodSpec(), {})))).toEqual([expect.stringMatching(/: metadata\.name: required field is missing \(expected a string\)$/)]);
  });

  it('fails on a document that is not an object, and on one without kind', () => {
    expect(manifestProblems('- a\n- b\n')).toEqual(['app.yaml:1:1: expected a Kubernetes object (a map with apiVersion and kind), got a list']);
    expect(manifestProblems('apiVersion: v1\nmetadata: { name: x }\n')).toEqual(['app.yaml:1:1: kind: required field is missing (expected string)']);
  });

  it('reports the problems of every document at once', () => {
    const bad = aWorkload('Deployment', aPodSpec({ containers: [aContainer({ limits: { memory: '1 Gi' } })] }));
    expect(manifestProblems(manifest(bad, aService(), bad))).toHaveLength(2);
  });
});

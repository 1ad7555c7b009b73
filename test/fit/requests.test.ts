/**
 * A pod's effective requests, read from its spec the way the API server defaults it and
 * the scheduler and Karpenter add it up.
 */
import { aContainer, aPodSpec, podOf } from './builders';

const requestsOf = (spec: Parameters<typeof aPodSpec>[0]) => podOf(aPodSpec(spec)).requests;

describe('effective pod requests', () => {
  it('adds up the containers, plus one pod as Karpenter counts it', () => {
    expect(requestsOf({
      containers: [aContainer({ requests: { cpu: '500m', memory: '1Gi' } }), aContainer({ requests: { cpu: 1, memory: '512Mi' } }, { name: 'sidecar' })],
    })).toEqual({ cpu: 1500, memory: 1536, pods: 1 });
  });

  it('requests a container\'s limits where it requests nothing (the API server\'s default)', () => {
    expect(requestsOf({ containers: [aContainer({ limits: { 'cpu': '2', 'memory': '4Gi', 'nvidia.com/gpu': 1 } })] }))
      .toEqual({ 'cpu': 2000, 'memory': 4096, 'nvidia.com/gpu': 1, 'pods': 1 });
  });

  it('keeps an explicit request below the limit, and takes the limit only for what is not requested', () => {
    expect(requestsOf({ containers: [aContainer({ requests: { cpu: '250m' }, limits: { cpu: '1', memory: '1Gi' } })] }))
      .toEqual({ cpu: 250, memory: 1024, pods: 1 });
  });

  it('needs the largest init container when it asks more than the containers together', () => {
    expect(requestsOf({
      initContainers: [aContainer({ requests: { cpu: '4', memory: '256Mi' } }, { name: 'migrate' })],
      containers: [aContainer({ requests: { cpu: '1', memory: '2Gi' } })],
    })).toEqual({ cpu: 4000, memory: 2048, pods: 1 });
  });

  it('treats an init container\'s limits as its requests too', () => {
    expect(requestsOf({
      initContainers: [aContainer({ limits: { cpu: '8' } }, { name: 'warm-cache' })],
      containers: [aContainer({ requests: { cpu: '1' } })],
    })).toEqual({ cpu: 8000, pods: 1 });
  });

  it('adds a sidecar (restartPolicy: Always) to the containers, and to each init container after it', () => {
    expect(requestsOf({
      initContainers: [
        aContainer({ requests: { cpu: '1' } }, { name: 'proxy', restartPolicy: 'Always' }),
        aContainer({ requests: { cpu: '2500m' } }, { name: 'migrate' }),
      ],
      containers: [aContainer({ requests: { cpu: '2' } })],
    })).toEqual({ cpu: 3500, pods: 1 }); // max(2 + 1, 1 + 2.5)
  });

  it('adds the RuntimeClass overhead', () => {
    expect(requestsOf({ overhead: { cpu: '250m', memory: '120Mi' } })).toEqual({ cpu: 350, memory: 248, pods: 1 });
  });

  it('takes pod-level requests over the containers\' sum, and defaults them from pod-level limits', () => {
    expect(requestsOf({ resources: { requests: { cpu: '3' } } })).toEqual({ cpu: 3000, memory: 128, pods: 1 });
    expect(requestsOf({ containers: [aContainer({})], resources: { limits: { cpu: '2', memory: '3Gi' } } })).toEqual({ cpu: 2000, memory: 3072, pods: 1 });
    // Containers that request a resource set the pod-level default for it, not the pod-level limit.
    expect(requestsOf({ resources: { limits: { cpu: '2' } } })).toEqual({ cpu: 100, memory: 128, pods: 1 });
  });
});

import { ApiObject, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { CapacityBuffer } from '../../imports/autoscaling.x-k8s.io';
import type { CapacityBufferModel } from '../model/capacity-buffer';
import { MANAGED_BY, TEAM_LABEL } from '../model/node-pool';

/** Properties of a {@link CapacityBufferChart}. */
export interface CapacityBufferChartProps {
  /** The buffer this file holds. */
  readonly buffer: CapacityBufferModel;
}

/**
 * `dist/<cluster>/nodepools/<team>/_buffer.yaml`: a team's CapacityBuffer
 * (autoscaling.x-k8s.io/v1beta1), the PodTemplate it points at, and their Namespace. The
 * buffer is a sync wave after the PodTemplate, so Karpenter never reconciles it before the
 * template exists (it would say `PodTemplateNotFound`).
 * @see https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/proposals/buffers.md
 */
export class CapacityBufferChart extends Chart {
  public constructor(scope: Construct, id: string, props: CapacityBufferChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    const b = props.buffer;
    const labels = { 'app.kubernetes.io/managed-by': MANAGED_BY, [TEAM_LABEL]: b.team };
    new ApiObject(this, 'Namespace', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: b.namespace, labels } });
    const template = new ApiObject(this, 'PodTemplate', {
      apiVersion: 'v1',
      kind: 'PodTemplate',
      metadata: { name: b.name, namespace: b.namespace, labels },
      template: {
        metadata: { labels },
        spec: {
          nodeSelector: { ...b.nodeSelector },
          tolerations: b.tolerations.map((t) => ({ key: t.key, operator: t.value === undefined ? 'Exists' : 'Equal', ...(t.value !== undefined ? { value: t.value } : {}), effect: t.effect })),
          containers: [{ name: 'pause', image: b.image, resources: { requests: { ...b.requests }, limits: { memory: b.requests.memory } } }],
        },
      },
    });
    new CapacityBuffer(this, 'Buffer', {
      metadata: { name: b.name, namespace: b.namespace, labels, annotations: { 'argocd.argoproj.io/sync-wave': '1' } },
      spec: { podTemplateRef: { name: template.name }, replicas: b.replicas },
    });
  }
}

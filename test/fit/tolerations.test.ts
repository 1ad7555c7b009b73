import type { Taint } from '../../src/model/node-pool';
import { daemonSetTolerations, formatTaint, tolerates, Toleration, untoleratedTaints } from '../../src/fit/tolerations';

const gpu: Taint = { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' };
const dedicated: Taint = { key: 'dedicated', value: 'ml', effect: 'NoSchedule' };
const evicting: Taint = { key: 'example.com/maintenance', effect: 'NoExecute' };

describe('a toleration against a taint (Kubernetes ToleratesTaint)', () => {
  it.each<[string, Toleration, Taint, boolean]>([
    ['Equal with the same key, value and effect', { key: 'dedicated', operator: 'Equal', value: 'ml', effect: 'NoSchedule' }, dedicated, true],
    ['an empty operator means Equal', { key: 'dedicated', value: 'ml', effect: 'NoSchedule' }, dedicated, true],
    ['Equal with another value', { key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }, dedicated, false],
    ['Equal without a value, against a taint with one', { key: 'dedicated', operator: 'Equal', effect: 'NoSchedule' }, dedicated, false],
    ['Equal without a value, against a taint without one', { key: 'example.com/maintenance', effect: 'NoExecute' }, evicting, true],
    ['Exists with the key, any value', { key: 'nvidia.com/gpu', operator: 'Exists' }, gpu, true],
    ['Exists with another key', { key: 'nvidia.com/gpus', operator: 'Exists' }, gpu, false],
    ['an empty key with Exists tolerates every taint', { operator: 'Exists' }, dedicated, true],
    ['an empty key with Exists tolerates NoExecute too', { operator: 'Exists' }, evicting, true],
    ['an empty effect matches every effect', { key: 'example.com/maintenance', operator: 'Exists' }, evicting, true],
    ['an effect must match when set', { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoExecute' }, gpu, false],
    ['PreferNoSchedule is another effect', { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'PreferNoSchedule' }, gpu, false],
  ])('%s: %s', (_, toleration, taint, expected) => {
    expect(tolerates(toleration, taint)).toBe(expected);
  });

  describe('Lt and Gt compare integers (Karpenter enables them)', () => {
    const level = (value: string): Taint => ({ key: 'example.com/level', value, effect: 'NoSchedule' });
    it.each<[string, Toleration, string, boolean]>([
      ['Gt: the taint is above', { key: 'example.com/level', operator: 'Gt', value: '3' }, '5', true],
      ['Gt: the taint is equal', { key: 'example.com/level', operator: 'Gt', value: '5' }, '5', false],
      ['Lt: the taint is below', { key: 'example.com/level', operator: 'Lt', value: '3' }, '-1', true],
      ['Lt: the taint is above', { key: 'example.com/level', operator: 'Lt', value: '3' }, '10', false],
      ['a taint value that is not an integer', { key: 'example.com/level', operator: 'Gt', value: '3' }, 'high', false],
      ['a leading zero is not canonical', { key: 'example.com/level', operator: 'Gt', value: '3' }, '05', false],
      ['a plus sign is not canonical', { key: 'example.com/level', operator: 'Lt', value: '9' }, '+5', false],
    ])('%s', (_, toleration, value, expected) => {
      expect(tolerates(toleration, level(value))).toBe(expected);
    });
  });
});

describe('the taints that keep a pod off a pool', () => {
  it('lists every NoSchedule and NoExecute taint no toleration tolerates, in the pool\'s order', () => {
    expect(untoleratedTaints([dedicated, gpu, evicting], [{ key: 'nvidia.com/gpu', operator: 'Exists' }])).toEqual([dedicated, evicting]);
  });

  it('never lists a PreferNoSchedule taint', () => {
    expect(untoleratedTaints([{ key: 'example.com/noisy', effect: 'PreferNoSchedule' }], [])).toEqual([]);
  });

  it('prints a taint as kubectl does: key=value:Effect, or key:Effect', () => {
    expect([dedicated, evicting].map(formatTaint)).toEqual(['dedicated=ml:NoSchedule', 'example.com/maintenance:NoExecute']);
  });

  it('gives a DaemonSet the node-condition tolerations, and network-unavailable with host networking, but no pool\'s taints', () => {
    const notReady: Taint = { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' };
    const network: Taint = { key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' };
    expect(untoleratedTaints([notReady, network, dedicated], daemonSetTolerations(false))).toEqual([network, dedicated]);
    expect(untoleratedTaints([notReady, network, dedicated], daemonSetTolerations(true))).toEqual([dedicated]);
  });
});

/**
 * Taints against tolerations, as Kubernetes matches them and Karpenter applies them
 * to a NodePool's nodes.
 */
import type { Taint } from '../model/node-pool';

/** A pod's toleration, as the pod spec writes it. */
export interface Toleration {
  /** Empty: every key (with operator Exists). @default "" */
  readonly key?: string;
  /** Empty means Equal. @default "" */
  readonly operator?: '' | 'Exists' | 'Equal' | 'Lt' | 'Gt';
  /** @default "" */
  readonly value?: string;
  /** Empty: every effect. @default "" */
  readonly effect?: '' | Taint['effect'];
}

/**
 * Whether a toleration tolerates a taint: the effect matches (an empty effect
 * matches every effect), the key matches (an empty key matches every key), and by
 * operator the value equals the taint's (`Equal`, or empty), anything goes (`Exists`),
 * or the taint's value is an integer below (`Lt`) or above (`Gt`) the toleration's;
 * Karpenter enables these comparison operators.
 * @see https://github.com/kubernetes/api/blob/v0.35.1/core/v1/toleration.go (ToleratesTaint)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/taints.go (Tolerates: ToleratesTaint(..., true))
 */
export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? '') {
    case '':
    case 'Equal': return (t.value ?? '') === (taint.value ?? '');
    case 'Exists': return true;
    case 'Lt':
    case 'Gt': {
      const mine = canonicalInteger(t.value ?? '');
      const theirs = canonicalInteger(taint.value ?? '');
      if (mine === undefined || theirs === undefined) return false;
      return t.operator === 'Lt' ? theirs < mine : theirs > mine;
    }
    default: return false;
  }
}

/**
 * The taints that keep the pod off a pool's nodes: every NoSchedule or NoExecute taint
 * no toleration tolerates. PreferNoSchedule never does (Karpenter's scheduler adds a
 * toleration for it when relaxing a pod that does not schedule), and startup taints
 * are not passed here: Karpenter ignores them, as they are removed once the node is ready.
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/scheduling/taints.go (ToleratesPod)
 * @see https://github.com/kubernetes-sigs/karpenter/blob/v1.14.1/pkg/controllers/provisioning/scheduling/preferences.go (toleratePreferNoScheduleTaints)
 */
export function untoleratedTaints(taints: readonly Taint[], tolerations: readonly Toleration[]): Taint[] {
  return taints.filter((taint) => taint.effect !== 'PreferNoSchedule' && !tolerations.some((t) => tolerates(t, taint)));
}

/** A taint as kubectl prints it: `key=value:Effect`, or `key:Effect` without a value. */
export function formatTaint(taint: Taint): string {
  return `${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect}`;
}

/**
 * The tolerations the DaemonSet controller adds to every pod of a DaemonSet (and, with
 * host networking, one for network-unavailable).
 * @see https://github.com/kubernetes/kubernetes/blob/v1.35.0/pkg/controller/daemon/util/daemonset_util.go (AddOrUpdateDaemonPodTolerations)
 */
export function daemonSetTolerations(hostNetwork: boolean): Toleration[] {
  return [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
    ...(hostNetwork ? [{ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists' as const, effect: 'NoSchedule' as const }] : []),
  ];
}

/**
 * A decimal integer in canonical form (`0`, `12`, `-3`; no sign `+`, no leading zero) within int64,
 * or undefined: what Lt and Gt compare.
 * @see https://github.com/kubernetes/apimachinery/blob/v0.35.0/pkg/api/validate/content/decimal_int.go (IsDecimalInteger)
 */
function canonicalInteger(text: string): bigint | undefined {
  if (!/^(0|-?[1-9][0-9]*)$/.test(text)) return undefined;
  const n = BigInt(text);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

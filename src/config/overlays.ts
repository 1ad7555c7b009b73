import type { KarpenterConfig } from './platform';
import type { ClusterFile, OverlayFile, PlatformFile } from './schema';
import type { FieldPath, Problem } from '../input/problems';
import type { SourceFile } from '../input/source';
import type { ReleaseFacts } from '../release/types';
import { catalogMatcher } from '../catalog/match';
import { NodeOverlaySpec, overlayConflicts } from '../catalog/overlays';

/**
 * The NodeOverlays of one cluster: `overlays` with `clusters.<id>.overlays` over them by name
 * (null there: not on this cluster), each checked where it was written: the cluster's release
 * must have the NodeOverlay gate, the cluster must not turn it off, and no two overlays of one
 * weight may set the same thing of one instance type of the catalog (Karpenter would apply neither).
 * @see https://karpenter.sh/docs/concepts/nodeoverlays/
 */
export function resolveOverlays(
  source: SourceFile, file: PlatformFile, clusterId: string, cluster: ClusterFile, karpenter: KarpenterConfig,
  facts: ReleaseFacts | undefined, problems: Problem[],
): NodeOverlaySpec[] {
  const entries = new Map<string, { overlay: OverlayFile; at: FieldPath }>();
  for (const [name, overlay] of Object.entries(file.overlays ?? {})) entries.set(name, { overlay, at: ['overlays', name] });
  for (const [name, overlay] of Object.entries(cluster.overlays ?? {})) {
    if (overlay === null) entries.delete(name);
    else entries.set(name, { overlay, at: ['clusters', clusterId, 'overlays', name] });
  }
  const specs = [...entries].map(([name, { overlay }]): NodeOverlaySpec => ({
    name,
    requirements: overlay.requirements,
    ...(overlay.price !== undefined ? { price: overlay.price } : {}),
    ...(overlay.priceAdjustment !== undefined ? { priceAdjustment: overlay.priceAdjustment } : {}),
    ...(overlay.capacity ? { capacity: overlay.capacity } : {}),
    ...(overlay.weight !== undefined ? { weight: overlay.weight } : {}),
  }));
  const at = (name: string) => entries.get(name)?.at ?? ['clusters', clusterId];
  for (const [name] of entries) {
    if (facts && !facts.featureGates.includes('nodeOverlay')) {
      problems.push(source.problem(at(name), `cluster ${clusterId} runs Karpenter ${karpenter.version}, which has no NodeOverlay feature gate, so overlay ${name} cannot be used there: `
        + `upgrade this cluster's Karpenter first (clusters.${clusterId}.karpenter.version), or set clusters.${clusterId}.overlays.${name}: null`, 'key'));
    } else if (karpenter.controller.featureGates.nodeOverlay === false) {
      problems.push(source.problem(at(name), `cluster ${clusterId} uses overlay ${name}, but its karpenter.controller.featureGates.nodeOverlay is false: `
        + `remove that setting (the generator turns the gate on where overlays are used), or set clusters.${clusterId}.overlays.${name}: null`, 'key'));
    }
  }
  for (const c of overlayConflicts(specs, catalogMatcher())) {
    problems.push(source.problem(at(c.second), `on cluster ${clusterId}, overlays ${c.first} (${at(c.first).join('.')}) and ${c.second} have the same weight (${entries.get(c.first)?.overlay.weight ?? 'none'}) `
      + `and both set the ${c.what} of ${c.types} instance type(s) such as ${c.example}: Karpenter then applies neither; give one a higher weight`, 'key'));
  }
  return specs;
}

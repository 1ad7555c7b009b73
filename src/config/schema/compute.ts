import { z } from 'zod';

// Who runs Karpenter on a cluster (contract 9.6, docs/auto-mode.md): the cluster's own controller
// (this tool's release of it), EKS Auto Mode (AWS runs it and owns the karpenter.sh CRDs), or both
// while a cluster moves from the one to the other.

/** The values of `compute`, fleet-wide, by group or per cluster. */
export const COMPUTE_MODES = ['karpenter', 'autoMode', 'both'] as const;

/** A cluster's compute mode. */
export type ComputeMode = (typeof COMPUTE_MODES)[number];

/** `compute`: at the top level, in a group, on a cluster (the later wins). */
export const compute = z.enum(COMPUTE_MODES, { error: `must be one of ${COMPUTE_MODES.join(', ')}` })
  .describe('who runs Karpenter: karpenter (its own controller, the default), autoMode (EKS Auto Mode) or both (a cluster moving from karpenter to autoMode; docs/auto-mode.md)');

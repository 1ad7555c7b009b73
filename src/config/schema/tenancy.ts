import { z } from 'zod';

/**
 * What the tenancy policy's binding does with a pod it refuses: `Deny` refuses it, `Warn` admits
 * it with a warning to the client, `Audit` admits it and records the refusal in the audit log.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/#validation-actions
 */
export const TENANCY_ACTIONS = ['Deny', 'Warn', 'Audit'] as const;
/** One of {@link TENANCY_ACTIONS}. */
export type TenancyAction = (typeof TENANCY_ACTIONS)[number];

/** `tenancy`, and a cluster's: how the API server acts on a pod the tenancy policy refuses. */
export const tenancy = z.strictObject({
  action: z.enum(TENANCY_ACTIONS).optional().describe('Deny (default): refuse the pod; Warn: admit it with a warning to the client; Audit: admit it and record it in the audit log (start with Audit on a cluster that already runs workloads, see docs/tenancy.md)'),
});

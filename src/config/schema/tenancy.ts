import { z } from 'zod';
import { distinct, dnsLabel } from './fields';

/**
 * What the tenancy policy's binding does with a pod it refuses: `Deny` refuses it, `Warn` admits
 * it with a warning to the client, `Audit` admits it and records the refusal in the audit log.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/#validation-actions
 */
export const TENANCY_ACTIONS = ['Deny', 'Warn', 'Audit'] as const;
/** One of {@link TENANCY_ACTIONS}. */
export type TenancyAction = (typeof TENANCY_ACTIONS)[number];

/**
 * `tenancy`, and a cluster's (each field over the top-level one): how the API server acts on an
 * object the tenancy policy refuses, and which namespaces beside `kube-system` and Karpenter's
 * own the policy never looks at.
 */
export const tenancy = z.strictObject({
  action: z.enum(TENANCY_ACTIONS).optional().describe('Deny (default): refuse the pod; Warn: admit it with a warning to the client; Audit: admit it and record it in the audit log (start with Audit on a cluster that already runs workloads, see docs/tenancy.md)'),
  exemptNamespaces: distinct(z.array(dnsLabel), 'each namespace may appear once').optional()
    .describe('platform namespaces the policy never looks at, beside kube-system and Karpenter\'s own (agents that must run on every node: log shippers, node exporters); each one may use every pool, so only administrators may create pods there. Default: none'),
});

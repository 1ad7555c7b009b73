/**
 * Names the generator sets on every pool. The config layer rejects them in user
 * input and the model writes them, both from here, so the two never disagree.
 */

/** Node label holding the owning team. */
export const TEAM_LABEL = 'team';
/** Taint key of a dedicated pool; its value is the team. */
export const DEDICATED_TAINT_KEY = 'dedicated';
/** Value of `app.kubernetes.io/managed-by` and of the EC2 tag `managed-by`. */
export const MANAGED_BY = 'karpenter-gitops';
/** EC2 tag keys the generator sets (see the model's `tags()`). */
export const GENERATED_TAG_KEYS: readonly string[] = [TEAM_LABEL, 'owner', 'cost-center', 'managed-by', 'Name'];

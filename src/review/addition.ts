/** What adding a resource does on the cluster: a pool Karpenter may launch for, an Application Argo CD starts syncing. */
import type { Change } from './change';
import type { ReviewContext } from './context';
import { driftGateAdditionWhy, isDriftGate } from './drift-gate';
import { chartsOf, isControllerApp } from './fields';
import { guardGateRbacWhy, guardGateWhy, isGuardGate, isGuardGateRbac } from './guard-gate';
import type { Risk } from './risk';
import { isTenancy, tenancyAddition } from './tenancy';
import { isSmokeTest, Resource, sourcePaths } from './tree';

/**
 * A resource of the head that the base did not have.
 * @param rename the note of a likely rename, when the resource seems to be an old one under a new name
 */
export function addition(r: Resource, context: ReviewContext, rename?: string): Change {
  const change = (risk: Risk, why: string): Change => ({ risk, resource: r, action: 'added', fields: [], why: `${why}${rename ? `; ${rename}` : ''}` });
  if (r.kind === 'NodePool') return change('capacity', 'new pool: Karpenter may launch nodes for it');
  if (r.kind === 'EC2NodeClass') return change('other', 'no node until a NodePool uses it');
  if (isTenancy(r)) {
    const { risk, why } = tenancyAddition(r, context.tenancyOf('before', r.cluster));
    return change(risk, why);
  }
  if (r.kind === 'Application') {
    const paths = sourcePaths(r.body).map((p) => p.path);
    const what = [...chartsOf(r.body).map((c) => `chart ${c}`), ...paths].join(', ');
    return change(isControllerApp(r.body) ? 'controller' : 'other', `Argo CD starts syncing ${what || 'it'}`);
  }
  if (isDriftGate(r)) return change('other', driftGateAdditionWhy(r, context));
  if (isGuardGate(r)) return change('other', guardGateWhy(r, 'added'));
  if (isGuardGateRbac(r)) return change('other', guardGateRbacWhy('added'));
  if (isSmokeTest(r)) return change('other', 'a smoke test: no effect on nodes');
  if (r.kind === 'HelmValues') return change('controller', 'new values for the Karpenter controller');
  return change('other', 'no effect on nodes');
}

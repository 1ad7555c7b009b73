import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { TeamTenancyDefinition } from '../constructs/team-tenancy-definition';
import { TenancyPolicy } from '../constructs/tenancy-policy';
import { TenancyPolicyModel } from '../model/tenancy';

/** Properties of a {@link PolicyChart}. */
export interface PolicyChartProps {
  /** The cluster's tenancy policy. */
  readonly policy: TenancyPolicyModel;
}

/**
 * Sync waves within the `<cluster>-policies` Application: the parameters' CRD, then the
 * parameters, then the policy (its paramKind must resolve), then its binding. Argo CD prunes in
 * the reverse order, so the binding goes before what it uses.
 * @see https://argo-cd.readthedocs.io/en/stable/user-guide/sync-waves/
 */
export const POLICY_WAVES = { crd: 0, params: 1, policy: 2, binding: 3 } as const;

/** `dist/<cluster>/policies/team-tenancy-crd.yaml`: the CRD of the tenancy policy's parameters. */
export class TeamTenancyDefinitionChart extends Chart {
  public constructor(scope: Construct, id: string) {
    super(scope, id, { disableResourceNameHashes: true });
    new TeamTenancyDefinition(this, 'Definition', { wave: POLICY_WAVES.crd });
  }
}

/** `dist/<cluster>/policies/team-pools.yaml`: the tenancy policy, its binding and its parameters (one per team). */
export class PolicyChart extends Chart {
  public constructor(scope: Construct, id: string, props: PolicyChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new TenancyPolicy(this, 'Tenancy', { policy: props.policy, waves: POLICY_WAVES });
  }
}

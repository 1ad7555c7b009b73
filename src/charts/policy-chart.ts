import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { TenancyPolicy } from '../constructs/tenancy-policy';
import { TenancyPolicyModel } from '../model/tenancy';

/** Properties of a {@link PolicyChart}. */
export interface PolicyChartProps {
  /** The cluster's tenancy policy. */
  readonly policy: TenancyPolicyModel;
  /** Each guarded team's guard digest (model/tenancy-guard.ts), which its pools' guard gate waits for. @default {} */
  readonly guards?: Readonly<Record<string, string>>;
}

/** `dist/<cluster>/policies/team-pools.yaml`: the tenancy policies and their bindings (model/tenancy.ts says how they are split and delivered). */
export class PolicyChart extends Chart {
  public constructor(scope: Construct, id: string, props: PolicyChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new TenancyPolicy(this, 'Tenancy', { policy: props.policy, guards: props.guards ?? {} });
  }
}

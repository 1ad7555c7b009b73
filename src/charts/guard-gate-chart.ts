import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { GuardGate } from '../constructs/guard-gate';
import { GuardGateRbac } from '../constructs/guard-gate-rbac';
import { GuardGateModel, GuardGateRbacModel } from '../model/tenancy-guard';

/** Properties of a {@link GuardGateChart}. */
export interface GuardGateChartProps {
  /** The guard gate the file holds. */
  readonly gate: GuardGateModel;
}

/** `dist/<cluster>/nodepools/<team>/_guard-gate.yaml`: the PreSync hook of a guarded team's pools (docs/tenancy.md, "Delivery"). */
export class GuardGateChart extends Chart {
  public constructor(scope: Construct, id: string, props: GuardGateChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new GuardGate(this, 'Gate', { gate: props.gate });
  }
}

/** Properties of a {@link GuardGateRbacChart}. */
export interface GuardGateRbacChartProps {
  /** The RBAC the file holds. */
  readonly rbac: GuardGateRbacModel;
}

/** `dist/<cluster>/policies/guard-gate.yaml`: what the cluster's guard gates run as, delivered with the policies. */
export class GuardGateRbacChart extends Chart {
  public constructor(scope: Construct, id: string, props: GuardGateRbacChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new GuardGateRbac(this, 'Rbac', { rbac: props.rbac });
  }
}


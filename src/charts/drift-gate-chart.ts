import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { DriftGate } from '../constructs/drift-gate';
import { DriftGateModel } from '../model/stages';

/** Properties of a {@link DriftGateChart}. */
export interface DriftGateChartProps {
  /** The gate the file holds. */
  readonly gate: DriftGateModel;
}

/** `dist/<cluster>/nodepools/<team>/_drift-gate.yaml`: the drift gate of a team's pools (a pool name cannot start with `_`). */
export class DriftGateChart extends Chart {
  public constructor(scope: Construct, id: string, props: DriftGateChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new DriftGate(this, 'Gate', { gate: props.gate });
  }
}

import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { DriftGate } from '../constructs/drift-gate';
import { DriftGateModel } from '../model/stages';

/** Properties of a {@link DriftGateChart}. */
export interface DriftGateChartProps {
  /** The gate the file holds. */
  readonly gate: DriftGateModel;
}

/** `dist/<cluster>/drift-gate/gate.yaml`: the drift gate of a cluster a later stage waits for (docs/windows.md). */
export class DriftGateChart extends Chart {
  public constructor(scope: Construct, id: string, props: DriftGateChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new DriftGate(this, 'Gate', { gate: props.gate });
  }
}

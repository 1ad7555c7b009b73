import { Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { DriftGate, DriftGateProgram } from '../constructs/drift-gate';
import { DriftGateModel, DriftGateProgramModel } from '../model/stages';

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

/** Properties of a {@link DriftGateProgramChart}. */
export interface DriftGateProgramChartProps {
  /** The program the file holds. */
  readonly program: DriftGateProgramModel;
}

/** `dist/<cluster>/drift-gate/program.yaml`: the drift gate's program, which changes only with the tool. */
export class DriftGateProgramChart extends Chart {
  public constructor(scope: Construct, id: string, props: DriftGateProgramChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new DriftGateProgram(this, 'Program', { program: props.program });
  }
}

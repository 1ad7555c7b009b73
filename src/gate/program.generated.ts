// placeholder until the gate program lands
export const DRIFT_GATE_PROGRAM = '';

import { parseGateSpec } from '../../src/gate/spec';
import { aGateSpec } from './world';

describe('parseGateSpec: the GATE variable', () => {
  it('reads a GateSpec as JSON', () => {
    const spec = aGateSpec();
    expect(parseGateSpec(JSON.stringify(spec))).toEqual({ ok: true, spec });
  });

  it('fails when GATE is not set or not JSON', () => {
    expect(parseGateSpec(undefined)).toEqual({ ok: false, problems: [expect.stringMatching(/^GATE: not set: the Job passes the gate's configuration as JSON in GATE$/)] });
    expect(parseGateSpec('{cluster:')).toEqual({ ok: false, problems: [expect.stringMatching(/^GATE: not JSON: /)] });
    expect(parseGateSpec('[]')).toEqual({ ok: false, problems: ['GATE: expected a JSON object, got []'] });
  });

  it('fails with every wrong field at once, one line each, naming the field', () => {
    const bad = { ...aGateSpec(), controller: { namespace: 'karpenter', deployment: '', chart: 42 }, nodeClasses: [{ name: 'web' }], nodeOverlays: 'cheap', pollSeconds: 0 };
    const parsed = parseGateSpec(JSON.stringify(bad));
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problems).toEqual([
      'GATE: controller.deployment: expected a non-empty string, got ""',
      'GATE: controller.chart: expected a non-empty string, got 42',
      'GATE: controller.valuesDigest: expected a non-empty string, got nothing',
      'GATE: nodeClasses[0].digest: expected a non-empty string, got nothing',
      'GATE: nodeOverlays: expected a list, got "cheap"',
      'GATE: pollSeconds: expected a number of seconds above 0, got 0',
    ]);
  });
});

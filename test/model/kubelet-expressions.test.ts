import { karpenterCatalog } from '../../src/catalog/catalog';
import { compileExpression, expressionFindings, expressionVars, hasExpressions, reservedQuantity } from '../../src/model/kubelet-expressions';

const catalog = karpenterCatalog();
const m5large = catalog.instanceType('m5.large');

/** The integer result of an expression for m5.large (2 vCPUs, 8192 MiB). */
function on(expression: string, maxPods = 29n): bigint | string {
  const c = compileExpression(expression);
  if ('error' in c) return c.error;
  if (!m5large) throw new Error('m5.large is not in the catalog');
  return c.run(expressionVars(m5large, maxPods));
}

// pkg/cel/environment.go and pkg/providers/instancetype/types.go at 1d927085.
describe('kubelet CEL expressions', () => {
  it('binds the controller\'s variables from the catalog (types.go L268-L279)', () => {
    expect(on('vcpus')).toBe(2n);
    expect(on('memory_mib')).toBe(8192n);
    expect(on('max_pods')).toBe(29n);
    expect(on('instance_type == "m5.large" ? 1 : 0')).toBe(1n);
  });

  it('has max and min over int and double, a mixed pair giving a double (environment.go L95-L179)', () => {
    expect(on('max(60, vcpus * 30)')).toBe(60n);
    expect(on('min(110, max_pods)')).toBe(29n);
    expect(on('max(1, 2.5)')).toBe(2n);
  });

  it('truncates a double result toward zero and refuses a non-finite one (environment.go L255-L268)', () => {
    expect(on('double(memory_mib) / 3.0')).toBe(2730n);
    expect(on('-7.9')).toBe(-7n);
    expect(on('1.0 / 0.0')).toMatch(/non-finite/);
  });

  it('refuses what does not compile or returns no number', () => {
    expect(on('vcpus +')).toMatch(/^does not compile: /);
    expect(on('"ten"')).toMatch(/must return int or double/);
    expect(on('cores * 2')).toMatch(/uses a variable Karpenter does not define/);
  });

  it('rounds a reservation up: cpu to 10m, memory to 16Mi; ephemeral-storage in Gi and pid bare (environment.go L365-L390)', () => {
    expect(reservedQuantity('cpu', 61n)).toBe('70m');
    expect(reservedQuantity('cpu', 60n)).toBe('60m');
    expect(reservedQuantity('memory', 337n)).toBe('352Mi');
    expect(reservedQuantity('memory', 0n)).toBe('0Mi');
    expect(reservedQuantity('ephemeral-storage', 3n)).toBe('3Gi');
    expect(reservedQuantity('pid', 1001n)).toBe('1001');
  });

  it('tells an expression from a quantity (kubeletconfiguration.go HasExpressions)', () => {
    expect(hasExpressions({ kubeReserved: { cpu: '100m' }, maxPods: 58 })).toBe(false);
    expect(hasExpressions({ kubeReserved: { cpu: 'vcpus * 10' } })).toBe(true);
    expect(hasExpressions({ maxPods: 'max_pods' })).toBe(true);
  });

  it('names the admitted types where an expression leaves its range, and warns where it uses a variable the catalog lacks', () => {
    const admitted = ['m5.large', 'm5.24xlarge'].map((n) => catalog.instanceType(n)).filter((t) => t !== undefined);
    expect(expressionFindings({ maxPods: 'vcpus - 4' }, admitted)).toEqual([
      expect.objectContaining({ field: 'maxPods', severity: 'error', message: expect.stringMatching(/fails on 1 of the 2 instance types the pool admits \(m5\.large: evaluated to -2, outside the valid range/) }),
    ]);
    expect(expressionFindings({ systemReserved: { memory: '100 - vcpus * 10' } }, admitted)).toEqual([
      expect.objectContaining({ field: 'systemReserved.memory', message: expect.stringMatching(/m5\.24xlarge: evaluated to a negative value \(-860\)/) }),
    ]);
    expect(expressionFindings({ maxPods: 'default_enis * (ips_per_eni - 1) + 2' }, admitted)).toEqual([expect.objectContaining({ severity: 'warning' })]);
    expect(expressionFindings({ maxPods: 'min(110, max_pods)', kubeReserved: { cpu: 'max(60, vcpus * 30)' } }, admitted)).toEqual([]);
  });
});

/**
 * The NodeOverlay and CapacityBuffer health checks, under each Lua runtime, against statuses
 * built from the CRDs' status schemas (status.conditions of metav1.Condition: type, status
 * True/False/Unknown, reason, message, lastTransitionTime, observedGeneration;
 * test/fixtures/karpenter-crds/v1.14.1/karpenter.sh_nodeoverlays.yaml and
 * autoscaling.x-k8s.io_capacitybuffers.yaml).
 */
import { CAPACITY_BUFFER_HEALTH_LUA, NODE_OVERLAY_HEALTH_LUA } from '../../src/model/application-health';
import { LUA_RUNTIMES, LuaRuntime, assertLua51 } from '../support/lua';

const condition = (type: string, status: 'True' | 'False' | 'Unknown', observedGeneration = 1) => ({
  type, status, reason: status === 'True' ? 'Ready' : 'Conflict', message: status === 'True' ? '' : 'conflicts with overlay other', lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration,
});
const object = (kind: string, conditions?: unknown[], generation = 1) => ({ kind, metadata: { name: 'x', generation }, ...(conditions ? { status: { conditions } } : {}) });

const CHECKS: [string, string, string][] = [
  ['NodeOverlay', NODE_OVERLAY_HEALTH_LUA, 'Ready'],
  ['CapacityBuffer', CAPACITY_BUFFER_HEALTH_LUA, 'Ready'],
  ['CapacityBuffer', CAPACITY_BUFFER_HEALTH_LUA, 'ReadyForProvisioning'],
];

describe.each(LUA_RUNTIMES.map((runtime) => [runtime.name, runtime] as [string, LuaRuntime]))('condition health checks under %s', (_name, lua) => {
  describe.each(CHECKS)('%s (%s)', (kind, script, type) => {
    const health = (obj: unknown) => lua.run(script, obj) as { status: string; message: string };

    it('is Progressing with no status yet', () => {
      expect(health(object(kind))).toMatchObject({ status: 'Progressing' });
    });

    it(`is Healthy when ${type} is True`, () => {
      expect(health(object(kind, [condition(type, 'True')]))).toMatchObject({ status: 'Healthy' });
    });

    it(`is Degraded when ${type} is False, with the reason and message`, () => {
      expect(health(object(kind, [condition(type, 'False')]))).toEqual({ status: 'Degraded', message: `${type} is False: Conflict: conflicts with overlay other` });
    });

    it(`is Progressing when ${type} is Unknown or was observed for an older generation`, () => {
      expect(health(object(kind, [condition(type, 'Unknown')]))).toMatchObject({ status: 'Progressing' });
      expect(health(object(kind, [condition(type, 'True', 1)], 2))).toMatchObject({ status: 'Progressing', message: 'waiting for the controller to observe generation 2' });
    });
  });
});

it('both are Lua 5.1, using no string or math library', () => {
  for (const script of [NODE_OVERLAY_HEALTH_LUA, CAPACITY_BUFFER_HEALTH_LUA]) {
    expect(() => assertLua51(script)).not.toThrow();
    expect(script).not.toMatch(/\b(string|math)\.|:\w+\(/);
  }
});

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
];

/**
 * The conditions Karpenter 1.14.1 writes on a CapacityBuffer: ReadyForProvisioning by the buffer
 * controller (kubernetes-sigs/karpenter v1.14.1 pkg/controllers/capacitybuffer/controller.go
 * l. 168-195, reasons in constants.go l. 22-33) and Provisioning by the provisioner
 * (pkg/controllers/provisioning/buffers.go computeProvisioningCondition, l. 146-190).
 */
const bufferCondition = (type: 'ReadyForProvisioning' | 'Provisioning', status: 'True' | 'False', reason: string, message: string, observedGeneration = 1) => ({
  type, status, reason, message, lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration,
});
const RESOLVED = bufferCondition('ReadyForProvisioning', 'True', 'Resolved', 'Pod template resolved successfully');

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

describe.each(LUA_RUNTIMES.map((runtime) => [runtime.name, runtime] as [string, LuaRuntime]))('the CapacityBuffer health check under %s', (_name, lua) => {
  const health = (conditions?: unknown[], generation = 1) => lua.run(CAPACITY_BUFFER_HEALTH_LUA, object('CapacityBuffer', conditions, generation)) as { status: string; message: string };

  it('is Progressing until Karpenter resolved the template and placed the pods', () => {
    expect(health().status).toBe('Progressing');
    expect(health([RESOLVED])).toEqual({ status: 'Progressing', message: 'waiting for Karpenter to place the buffer\'s pods' });
  });

  it('is Progressing, not Degraded, while its PodTemplate is missing (the buffer reconciled first)', () => {
    expect(health([bufferCondition('ReadyForProvisioning', 'False', 'PodTemplateNotFound', 'podtemplates "web-buffer" not found')]))
      .toEqual({ status: 'Progressing', message: 'waiting for its PodTemplate: podtemplates "web-buffer" not found' });
  });

  it('is Degraded when the template cannot be resolved for another reason', () => {
    expect(health([bufferCondition('ReadyForProvisioning', 'False', 'ResolutionFailed', 'Neither podTemplateRef nor scalableRef is set')]))
      .toEqual({ status: 'Degraded', message: 'ReadyForProvisioning is False: ResolutionFailed: Neither podTemplateRef nor scalableRef is set' });
  });

  it('is Progressing while the headroom needs new nodes, Healthy once it fits on existing capacity', () => {
    expect(health([RESOLVED, bufferCondition('Provisioning', 'False', 'RequiresNewCapacity', '2/2 virtual pods required new capacity, 0 failed')]))
      .toEqual({ status: 'Progressing', message: 'headroom not there yet: RequiresNewCapacity: 2/2 virtual pods required new capacity, 0 failed' });
    expect(health([RESOLVED, bufferCondition('Provisioning', 'True', 'FitsExistingCapacity', 'All 2 virtual pods fit on existing capacity')]))
      .toEqual({ status: 'Healthy', message: 'FitsExistingCapacity: All 2 virtual pods fit on existing capacity' });
    expect(health([RESOLVED, bufferCondition('Provisioning', 'False', 'BufferEmpty', 'Buffer has zero desired replicas')]).status).toBe('Healthy');
  });

  it('is Progressing while a condition was observed for an older generation', () => {
    expect(health([RESOLVED, bufferCondition('Provisioning', 'True', 'FitsExistingCapacity', 'All 2 virtual pods fit on existing capacity')], 2))
      .toEqual({ status: 'Progressing', message: 'waiting for Karpenter to observe generation 2' });
    expect(health([bufferCondition('ReadyForProvisioning', 'True', 'Resolved', '', 2), bufferCondition('Provisioning', 'True', 'FitsExistingCapacity', '', 1)], 2).status).toBe('Progressing');
  });
});

it('both are Lua 5.1, using no string or math library', () => {
  for (const script of [NODE_OVERLAY_HEALTH_LUA, CAPACITY_BUFFER_HEALTH_LUA]) {
    expect(() => assertLua51(script)).not.toThrow();
    expect(script).not.toMatch(/\b(string|math)\.|:\w+\(/);
  }
});

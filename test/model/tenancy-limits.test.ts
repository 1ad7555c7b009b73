/**
 * The tenancy policy at any size (issue 35, contract section 8.3): a 2,000-pool cluster with long
 * names and labels, its policy, binding and parameters rendered as synth renders them, held to the
 * limits the API server applies and the CEL library the other tests evaluate with does not
 * enforce (test/support/cel-cost.ts, each limit cited there): every expression within cel-go's
 * parser limits, each evaluation of a large legitimate object within the per-expression and
 * per-parameter cost, and each object small enough for client-side apply's annotation.
 */
import { Testing } from 'cdk8s';
import { PolicyChart } from '../../src/charts/policy-chart';
import type { Pool } from '../../src/config/platform';
import { nodeClassModel } from '../../src/model/node-class';
import { nodePoolModel } from '../../src/model/node-pool';
import { teamTenancySpec, tenancyPolicy, TenancyPolicyModel } from '../../src/model/tenancy';
import { AdmissionRequest, JsonObject, requestBindings, toCel } from '../support/admission-policy';
import {
  costedEvaluator, EXPRESSION_SIZE_CODE_POINT_LIMIT, expressionLimitProblems, MATCH_CONDITIONS_COST_BUDGET, PER_CALL_LIMIT, RUNTIME_COST_BUDGET,
} from '../support/cel-cost';
import { aDeploymentPod, aPodTemplate, aWorkload, RESOURCES } from '../support/pods';
import { aCluster, aPool } from '../pool-builders';

/** A name of `length` characters: `<prefix>-<i>` padded with letters. */
const named = (prefix: string, i: number, length: number) => `${prefix}-${i}-${'x'.repeat(Math.max(0, length - prefix.length - String(i).length - 2))}`;

/**
 * A cluster of `teams` teams with `perTeam` pools each, names as long as a DNS label allows, every
 * pool with five labels of long keys and values and two taints of its own, every team with twelve
 * namespaces (more than a refusal lists).
 */
function aLargeCluster(teams: number, perTeam: number) {
  const pools: Pool[] = [];
  for (let t = 0; t < teams; t++) {
    const team = named('team', t, 40);
    const namespaces = Array.from({ length: 12 }, (_, n) => named(`ns${n}`, t, 63));
    for (let p = 0; p < perTeam; p++) {
      const labels = Object.fromEntries(Array.from({ length: 5 }, (_, l) => [`${named(`label${l}`, p, 60)}.example.com/${named('key', l, 60)}`, named('value', p, 63)]));
      pools.push(aPool({
        labels,
        taints: [{ key: `example.com/${named('taint', p, 50)}`, value: named('v', p, 63), effect: 'NoSchedule' }, { key: 'example.com/preemptible', value: 'true', effect: 'NoExecute' }],
      }, { name: p === 0 ? team : `${team}-${named('pool', p, 63 - team.length - 1).slice(0, 63 - team.length - 1)}`, team, namespaces }));
    }
  }
  return aCluster(pools, { smokeTests: true });
}

/** The cluster's policy, as the plan makes it from its pools' models (synth's path, without the catalog a policy never reads). */
function policyOf(cluster: ReturnType<typeof aLargeCluster>): TenancyPolicyModel {
  const policy = tenancyPolicy(cluster, cluster.pools.map((pool) => ({ pool, nodePool: nodePoolModel(pool), nodeClass: nodeClassModel(pool, cluster) })));
  if (!policy) throw new Error('no policy');
  return policy;
}

/** The rendered objects of a policy: its parameters, the policy and its binding. */
function rendered(policy: TenancyPolicyModel): JsonObject[] {
  return Testing.synth(new PolicyChart(Testing.app(), 'team-pools', { policy })) as JsonObject[];
}

const requiredTerms = (terms: number, perTerm: number) => Array.from({ length: terms }, (_, t) => Array.from({ length: perTerm }, (_, e) => ({
  key: e % 2 === 0 ? 'kubernetes.io/arch' : `example.com/${named('req', e, 40)}`, operator: 'In', values: Array.from({ length: 10 }, (_, v) => named(`v${t}`, v, 40)),
})));
const manyTolerations = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `example.com/${named('tol', i, 40)}`, operator: 'Equal' as const, value: named('v', i, 40), effect: 'NoSchedule' as const }));
/** Large legitimate objects: 40 tolerations, a nodeSelector of eight labels, ten required terms of ten expressions of ten values each. */
const LARGE = {
  tolerations: manyTolerations(40),
  nodeSelector: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`example.com/${named('sel', i, 50)}`, named('v', i, 60)])),
  terms: requiredTerms(10, 10),
};
const LARGE_REQUESTS: readonly AdmissionRequest[] = [
  { operation: 'CREATE', namespace: 'payments', object: aDeploymentPod(LARGE), resource: RESOURCES.Pod },
  { operation: 'UPDATE', namespace: 'payments', object: aDeploymentPod(LARGE), oldObject: aDeploymentPod({ ...LARGE, tolerations: [] }), resource: RESOURCES.Pod },
  { operation: 'CREATE', namespace: 'payments', object: aWorkload('DaemonSet', LARGE), resource: RESOURCES.DaemonSet },
  { operation: 'CREATE', namespace: 'payments', object: aWorkload('Deployment', LARGE), resource: RESOURCES.Deployment },
  { operation: 'CREATE', namespace: 'payments', object: aPodTemplate(LARGE), resource: RESOURCES.PodTemplate },
];

/** What one evaluation of the policy against one parameter costs, as the API server counts it. */
function evaluationCost(policy: JsonObject, param: JsonObject, request: AdmissionRequest) {
  const spec = policy.spec as { matchConditions: { expression: string }[]; variables: { name: string; expression: string }[]; validations: { expression: string; messageExpression: string }[] };
  const bindings = { ...requestBindings(request), params: toCel(param) };
  const conditions = costedEvaluator([], bindings);
  const matchCosts = spec.matchConditions.map((c) => conditions.evaluate(c.expression).cost);
  const evaluation = costedEvaluator(spec.variables, bindings);
  const validationCosts = spec.validations.map((v) => evaluation.evaluate(v.expression).cost);
  // Kubernetes evaluates the message expressions of failed validations with variables computed afresh, against what is left of the budget.
  const messages = costedEvaluator(spec.variables, bindings);
  const messageCosts = spec.validations.map((v) => messages.evaluate(v.messageExpression).cost);
  const perCall = [...evaluation.variableCosts().values(), ...validationCosts, ...messages.variableCosts().values(), ...messageCosts];
  return { match: conditions.budgetSpent(), matchMax: Math.max(...matchCosts), perCallMax: Math.max(...perCall), total: evaluation.budgetSpent() + messages.budgetSpent() };
}

describe('a 2,000-pool cluster\'s tenancy policy, against the limits the API server applies', () => {
  // 200 teams of ten pools, and one team of 2,000 (split into parameters of at most 50 pools).
  const fleets = { 'many teams': policyOf(aLargeCluster(200, 10)), 'one large team': policyOf(aLargeCluster(1, 2000)) };

  it.each(Object.entries(fleets))('keeps every expression within cel-go\'s parser limits, at any size (%s)', (_, policy) => {
    const spec = rendered(policy).find((o) => o.kind === 'ValidatingAdmissionPolicy')?.spec as {
      matchConditions: { expression: string }[]; variables: { expression: string }[]; validations: { expression: string; messageExpression: string }[];
    };
    const all = [...spec.matchConditions.map((c) => c.expression), ...spec.variables.map((v) => v.expression), ...spec.validations.flatMap((v) => [v.expression, v.messageExpression])];
    expect(all.length).toBeGreaterThan(10);
    expect(all.flatMap(expressionLimitProblems)).toEqual([]);
    expect(Math.max(...all.map((e) => [...e].length))).toBeLessThan(EXPRESSION_SIZE_CODE_POINT_LIMIT / 10);
  });

  it.each(Object.entries(fleets))('keeps every object within client-side apply\'s 256 KiB of annotations (%s)', (_, policy) => {
    const objects = rendered(policy);
    expect(objects.length).toBe(policy.params.length + 2);
    // last-applied-configuration holds the object as applied; the annotations it sits beside count too.
    const annotationBytes = (o: JsonObject) => Buffer.byteLength(JSON.stringify(o)) + Object.entries(((o.metadata as JsonObject).annotations ?? {}) as Record<string, string>)
      .reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0) + Buffer.byteLength('kubectl.kubernetes.io/last-applied-configuration');
    expect(Math.max(...objects.map(annotationBytes))).toBeLessThan(262144);
  });

  it('splits a team of 2,000 pools into parameters of at most 50 pools and 64 KiB of them: <team>, <team>.2, ...', () => {
    const { params } = fleets['one large team'];
    const team = params[0].team;
    expect(params.map((p) => p.name).sort()).toEqual([team, ...Array.from({ length: params.length - 1 }, (_, i) => `${team}.${i + 2}`)].sort());
    expect(params.reduce((n, p) => n + p.pools.length, 0)).toBe(2000);
    expect(Math.max(...params.map((p) => p.pools.length))).toBeLessThanOrEqual(50);
    expect(Math.max(...params.map((p) => JSON.stringify(teamTenancySpec(p).pools).length))).toBeLessThan(64 * 1024 + 2 * 1024);
  });

  it.each(Object.entries(fleets))('keeps each evaluation of large legitimate objects within the per-expression and per-parameter cost (%s)', (_, policy) => {
    const objects = rendered(policy);
    const vap = objects.find((o) => o.kind === 'ValidatingAdmissionPolicy') as JsonObject;
    const params = objects.filter((o) => o.kind === 'TeamTenancy');
    // Every parameter holds as many pools as the largest: the first, a middle one and the last stand for all.
    const largest = Math.max(...params.map((p) => ((p.spec as JsonObject).pools as unknown[]).length));
    const sample = params.filter((p) => ((p.spec as JsonObject).pools as unknown[]).length === largest).filter((_p, i, all) => i === 0 || i === all.length - 1 || i === Math.floor(all.length / 2));
    const costs = sample.flatMap((param) => LARGE_REQUESTS.map((request) => evaluationCost(vap, param, request)));
    expect(Math.max(...costs.map((c) => c.matchMax))).toBeLessThanOrEqual(PER_CALL_LIMIT);
    expect(Math.max(...costs.map((c) => c.match))).toBeLessThanOrEqual(MATCH_CONDITIONS_COST_BUDGET);
    expect(Math.max(...costs.map((c) => c.perCallMax))).toBeLessThanOrEqual(PER_CALL_LIMIT);
    expect(Math.max(...costs.map((c) => c.total))).toBeLessThanOrEqual(RUNTIME_COST_BUDGET);
    // And it measures something: a 50-pool parameter against a large object costs real work.
    expect(Math.max(...costs.map((c) => c.total))).toBeGreaterThan(10_000);
  });

  it('runs out of budget on an object crafted to be expensive, which the policy, failing closed, refuses', () => {
    const vap = rendered(fleets['many teams']).find((o) => o.kind === 'ValidatingAdmissionPolicy') as JsonObject;
    const param = rendered(fleets['many teams']).find((o) => o.kind === 'TeamTenancy') as JsonObject;
    const crafted: AdmissionRequest = { operation: 'CREATE', namespace: 'payments', object: aDeploymentPod({ ...LARGE, tolerations: manyTolerations(10_000) }), resource: RESOURCES.Pod };
    const cost = evaluationCost(vap, param, crafted);
    expect(cost.perCallMax).toBeGreaterThan(PER_CALL_LIMIT);
    expect((vap.spec as JsonObject).failurePolicy).toBe('Fail');
  });
});

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
import { MAX_POOLS_PER_PART, SANE, tenancyPolicy, TenancyPolicyModel } from '../../src/model/tenancy';
import { admitAll, AdmissionRequest, JsonObject, requestBindings } from '../support/admission-policy';
import { renderedPairs } from './tenancy-facts';
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

/** The rendered objects of a policy: its parts and their bindings. */
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

/**
 * Hostile objects just within every sane size, built to make each pool as dear as it can be:
 * every toleration examined against every taint and tolerating none, every selector entry and
 * every relevant expression on the labels the pools carry, holding until the last, so nothing
 * short-circuits; a DaemonSet (which is compared with every pool) and a pod.
 */
function hostileRequests(policy: TenancyPolicyModel): AdmissionRequest[] {
  const keys = [...new Set(policy.pools.flatMap((p) => Object.keys(p.labels)))];
  const someLabels = policy.pools[0].labels;
  // Each term: SANE.relevant expressions on carried keys, NotIn many values (so each holds), the last one failing.
  const term = Array.from({ length: SANE.relevant }, (_, e) => ({
    key: keys[e % keys.length], operator: e === SANE.relevant - 1 ? 'In' : 'NotIn', values: Array.from({ length: SANE.relevantValues }, (_, v) => named('nope', v, 60)),
  }));
  const spec = {
    tolerations: Array.from({ length: SANE.tolerations }, (_, i) => ({ key: 'dedicated', operator: 'Equal' as const, value: named('nobody', i, 60), effect: 'NoSchedule' as const })),
    nodeSelector: Object.fromEntries([...keys.slice(0, SANE.nodeSelector - 1).filter((k) => k !== 'team').map((k) => [k, someLabels[k] ?? 'x']), ...Array.from({ length: 8 }, (_, i) => [`example.com/other-${i}`, 'x'])]),
    terms: Array.from({ length: SANE.terms }, () => [...term, ...Array.from({ length: SANE.expressions - SANE.relevant }, (_, e) => ({ key: `example.com/other-${e}`, operator: 'Exists' }))]),
  };
  return [
    { operation: 'CREATE', namespace: 'payments', object: aWorkload('DaemonSet', spec), resource: RESOURCES.DaemonSet },
    { operation: 'CREATE', namespace: 'payments', object: aDeploymentPod(spec), resource: RESOURCES.Pod },
  ];
}

/** What one evaluation of one policy part costs, as the API server counts it. */
function evaluationCost(policy: JsonObject, request: AdmissionRequest) {
  const spec = policy.spec as { matchConditions: { expression: string }[]; variables: { name: string; expression: string }[]; validations: { expression: string; messageExpression: string }[] };
  const bindings = { ...requestBindings(request), params: null };
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

/** The parts of the rendered set. */
const partsOf = (policy: TenancyPolicyModel) => rendered(policy).filter((o) => o.kind === 'ValidatingAdmissionPolicy');

describe('a 2,000-pool cluster\'s tenancy policies, against the limits the API server applies', () => {
  // 200 teams of ten pools, one team of 2,000, and 2,000 pools with labels as the config writes them (team, cost center, one of its own).
  const fleets = { 'many teams': policyOf(aLargeCluster(200, 10)), 'one large team': policyOf(aLargeCluster(1, 2000)), 'ordinary labels': policyOf(anOrdinaryCluster(250, 8)) };

  it.each(Object.entries(fleets))('keeps every expression within cel-go\'s parser limits, at any size (%s)', (_, policy) => {
    for (const vap of partsOf(policy)) {
      const spec = vap.spec as { matchConditions: { expression: string }[]; variables: { expression: string }[]; validations: { expression: string; messageExpression: string }[] };
      const all = [...spec.matchConditions.map((c) => c.expression), ...spec.variables.map((v) => v.expression), ...spec.validations.flatMap((v) => [v.expression, v.messageExpression])];
      expect(all.flatMap(expressionLimitProblems)).toEqual([]);
      expect(Math.max(...all.map((e) => [...e].length))).toBeLessThan(EXPRESSION_SIZE_CODE_POINT_LIMIT);
    }
  });

  it.each(Object.entries(fleets))('keeps every object within client-side apply\'s 256 KiB of annotations (%s)', (_, policy) => {
    const objects = rendered(policy);
    expect(objects.length).toBe(policy.parts.length * 2);
    // last-applied-configuration holds the object as applied; the annotations it sits beside count too.
    const annotationBytes = (o: JsonObject) => Buffer.byteLength(JSON.stringify(o)) + Object.entries(((o.metadata as JsonObject).annotations ?? {}) as Record<string, string>)
      .reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0) + Buffer.byteLength('kubectl.kubernetes.io/last-applied-configuration');
    expect(Math.max(...objects.map(annotationBytes))).toBeLessThan(262144);
  });

  it('holds every pool once, in pool order, each part named after what it holds', () => {
    for (const policy of Object.values(fleets)) {
      expect(policy.parts.flatMap((p) => p.pools.map((g) => g.pool))).toEqual(policy.pools.map((g) => g.pool));
      expect(new Set(policy.parts.map((p) => p.name)).size).toBe(policy.parts.length);
      expect(Math.max(...policy.parts.map((p) => p.pools.length))).toBeLessThanOrEqual(MAX_POOLS_PER_PART);
    }
    // A handful at 2,000 pools of ordinary labels; the long names and labels of the others take more.
    expect(fleets['ordinary labels'].parts.length).toBeLessThanOrEqual(4);
  });

  it.each(Object.entries(fleets))('keeps each evaluation of large legitimate and hostile objects within the per-call cost and the budget, and the whole request within a bound (%s)', (_, policy) => {
    const vaps = partsOf(policy);
    // Every part but the last holds as many pools as fit: the first, a middle one and the largest stand for all.
    const sample = [...new Set([vaps[0], vaps[Math.floor(vaps.length / 2)], vaps[vaps.reduce((m, v, i, all) => (JSON.stringify(v).length > JSON.stringify(all[m]).length ? i : m), 0)]])];
    const costs = sample.flatMap((vap) => [...LARGE_REQUESTS, ...hostileRequests(policy)].map((request) => evaluationCost(vap, request)));
    expect(Math.max(...costs.map((c) => c.matchMax))).toBeLessThanOrEqual(PER_CALL_LIMIT);
    expect(Math.max(...costs.map((c) => c.match))).toBeLessThanOrEqual(MATCH_CONDITIONS_COST_BUDGET);
    expect(Math.max(...costs.map((c) => c.perCallMax))).toBeLessThanOrEqual(PER_CALL_LIMIT);
    expect(Math.max(...costs.map((c) => c.total))).toBeLessThanOrEqual(RUNTIME_COST_BUDGET);
    // And it measures something: a part against a hostile object costs real work.
    expect(Math.max(...costs.map((c) => c.total))).toBeGreaterThan(10_000);
    WORST[_] = { parts: vaps.length, perPart: Math.max(...costs.map((c) => c.total + c.match)), perCall: Math.max(...costs.map((c) => c.perCallMax)) };
  });

  it('refuses the 3,000-toleration pod cheaply: every part stops at the sizes, whatever the number of pools', () => {
    const policy = fleets['ordinary labels'];
    const crafted: AdmissionRequest = { operation: 'CREATE', namespace: 'payments', object: aDeploymentPod({ ...LARGE, tolerations: manyTolerations(3000) }), resource: RESOURCES.Pod };
    const costs = partsOf(policy).map((vap) => evaluationCost(vap, crafted));
    expect(Math.max(...costs.map((c) => c.total + c.match))).toBeLessThan(5_000);
    const decision = admitAll(renderedPairs(rendered(policy)), crafted);
    expect(decision.outcome).toBe('refused');
    expect(decision.message).toMatch(/the Pod has 300\d tolerations, 8 node selector entries and 10 required node affinity terms; the tenancy policy judges objects of at most 64 tolerations/);
  });

  afterAll(() => {
    // The worst cases measured, for docs/tenancy.md (printed by `npx jest test/model/tenancy-limits.test.ts --verbose`).
    process.stdout.write(`tenancy cost at 2,000 pools: ${JSON.stringify(WORST)}\n`);
  });
});

/** The worst evaluation measured per fleet. */
const WORST: Record<string, { parts: number; perPart: number; perCall: number }> = {};

/** A cluster of `teams` teams with `perTeam` pools each, named and labelled as a config writes them. */
function anOrdinaryCluster(teams: number, perTeam: number) {
  const pools: Pool[] = [];
  for (let t = 0; t < teams; t++) {
    const team = `team-${t}`;
    for (let p = 0; p < perTeam; p++) {
      pools.push(aPool({ labels: { workload: p % 2 === 0 ? 'web' : 'batch' } }, { name: p === 0 ? team : `${team}-pool-${p}`, team, namespaces: [team, `${team}-ci`], costCenter: `cc-${t}` }));
    }
  }
  return aCluster(pools, { smokeTests: true });
}

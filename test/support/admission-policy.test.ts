/**
 * The admission stand-in itself, on small hand-written policies: each rule of the Kubernetes
 * documentation it emulates, so a test that passes through it cannot pass by a gap in it.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/
 */
import { admit, AdmissionRequest, bindingShapeProblems, JsonObject, PolicyPair, policyShapeProblems } from './admission-policy';

function aPolicy(spec: JsonObject, actions: string[] = ['Deny']): PolicyPair {
  return {
    policy: {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'p' },
      spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] }, ...spec },
    },
    binding: { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'b' }, spec: { policyName: 'p', validationActions: actions } },
  };
}

const pod = (labels: Record<string, string> = {}): JsonObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', labels }, spec: { containers: [{ name: 'c', image: 'i' }] } });
const create = (namespace = 'team-a', object: JsonObject = pod()): AdmissionRequest => ({ operation: 'CREATE', namespace, object });

describe('the admission stand-in', () => {
  it('refuses with the API server\'s wording when a validation is false', () => {
    const d = admit(aPolicy({ validations: [{ expression: 'false', message: 'no' }] }), create());
    expect(d).toMatchObject({ outcome: 'refused', message: 'pods "x" is forbidden: ValidatingAdmissionPolicy \'p\' with binding \'b\' denied request: no' });
  });

  it('skips what the resource rules or the namespace selector do not match', () => {
    const never = { validations: [{ expression: 'false' }] };
    expect(admit(aPolicy(never), { ...create(), operation: 'UPDATE', oldObject: pod() }).outcome).toBe('skipped');
    const selector = { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }], namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] } } };
    expect(admit(aPolicy({ ...never, ...selector }), create('kube-system')).outcome).toBe('skipped');
    expect(admit(aPolicy({ ...never, ...selector }), create('team-a')).outcome).toBe('refused');
  });

  it('skips when a match condition is false, and applies failurePolicy when one fails', () => {
    expect(admit(aPolicy({ matchConditions: [{ name: 'c', expression: 'false' }], validations: [{ expression: 'false' }] }), create()).outcome).toBe('skipped');
    expect(admit(aPolicy({ matchConditions: [{ name: 'c', expression: '1 / 0 == 1' }], validations: [{ expression: 'true' }] }), create()).outcome).toBe('refused');
    expect(admit(aPolicy({ failurePolicy: 'Ignore', matchConditions: [{ name: 'c', expression: '1 / 0 == 1' }], validations: [{ expression: 'false' }] }), create()).outcome).toBe('skipped');
  });

  it('evaluates variables lazily: an unread variable that would fail never fails the request', () => {
    const spec = { variables: [{ name: 'broken', expression: '1 / 0' }, { name: 'ok', expression: 'true' }] };
    expect(admit(aPolicy({ ...spec, validations: [{ expression: 'variables.ok || variables.broken == 1' }] }), create())).toMatchObject({ outcome: 'admitted', evaluated: ['ok'] });
    expect(admit(aPolicy({ ...spec, validations: [{ expression: 'variables.broken == 1' }] }), create()).outcome).toBe('refused');
    expect(admit(aPolicy({ ...spec, failurePolicy: 'Ignore', validations: [{ expression: 'variables.broken == 1' }] }), create()).outcome).toBe('admitted');
  });

  it('gives expressions object, oldObject, request, params and namespaceObject as Kubernetes does', () => {
    const expression = "object.metadata.labels.app == 'web' && oldObject == null && request.operation == 'CREATE' && request.namespace == 'team-a'"
      + " && request.kind.kind == 'Pod' && params == null && namespaceObject.metadata.labels['kubernetes.io/metadata.name'] == 'team-a'"
      + " && namespaceObject.metadata.labels.owner == 'a'";
    expect(admit(aPolicy({ validations: [{ expression }] }), { ...create('team-a', pod({ app: 'web' })), namespaceLabels: { owner: 'a' } }).outcome).toBe('admitted');
  });

  it('falls back to message when the messageExpression fails or yields line breaks', () => {
    const d = admit(aPolicy({ validations: [{ expression: 'false', message: 'static', messageExpression: "'a\\nb'" }] }), create());
    expect(d.message).toMatch(/denied request: static$/);
    expect(admit(aPolicy({ validations: [{ expression: 'false', message: 'static', messageExpression: 'string(1 / 0)' }] }), create()).message).toMatch(/static$/);
  });

  it('warns (Warn) or records (Audit) instead of refusing', () => {
    const spec = { validations: [{ expression: 'false', message: 'no' }] };
    expect(admit(aPolicy(spec, ['Warn']), create())).toMatchObject({ outcome: 'admitted', warnings: [expect.stringMatching(/no$/)] });
    expect(admit(aPolicy(spec, ['Audit']), create())).toMatchObject({ outcome: 'admitted', audit: ['no'] });
  });

  it('fails when an expression calls a function Kubernetes\' CEL has but the stand-in lacks, rather than pass it', () => {
    expect(() => admit(aPolicy({ validations: [{ expression: "authorizer.group('').resource('pods').check('create').allowed()" }] }), create())).toThrow(/authorizer is not emulated|not implemented/);
  });

  it('fails when a list or map literal mixes types, which Kubernetes\' CEL does not compile', () => {
    const mixed = aPolicy({ variables: [{ name: 'pools', expression: '[{"pool": "web", "dedicated": true}]' }], validations: [{ expression: 'variables.pools.size() == 1' }] });
    expect(policyShapeProblems(mixed.policy)).toEqual([expect.stringMatching(/map values of types stringValue, boolValue/)]);
    expect(() => admit(mixed, create())).toThrow(/HomogeneousAggregateLiterals/);
    const mixedList = aPolicy({ validations: [{ expression: "['a', 1].size() == 2" }] });
    expect(policyShapeProblems(mixedList.policy)).toEqual([expect.stringMatching(/list elements of types stringValue, int64Value/)]);
    const uniform = aPolicy({ variables: [{ name: 'm', expression: '{"web": ["a", "b"], "ml": []}' }], validations: [{ expression: "variables.m.web[0] == 'a'" }] });
    expect(policyShapeProblems(uniform.policy)).toEqual([]);
    expect(admit(uniform, create()).outcome).toBe('admitted');
  });

  it('reports the shape problems the API server would', () => {
    const { policy, binding } = aPolicy({});
    expect(policyShapeProblems(policy)).toEqual(['spec: validations or auditAnnotations: Required value']);
    expect(bindingShapeProblems({ ...binding, spec: { validationActions: ['Deny', 'Warn'] } })).toEqual([
      'spec.policyName: Required value', 'spec.validationActions: Deny and Warn may not be used together',
    ]);
  });
});

import { parseAllDocuments } from 'yaml';
import { loadPlatform } from '../../src/config/load';
import { synthesize } from '../../src/synth';
import { EXAMPLE_CONFIG } from '../builders';
import { defaulted, knownKinds, validate } from './crd-validator';

/** A plain JSON-like map, as read from YAML. */
type Plain = { [key: string]: unknown };

const REQUIREMENTS = ['spec', 'template', 'spec', 'requirements'];
const BUDGETS = ['spec', 'disruption', 'budgets'];

interface Manifest {
  readonly file: string;
  readonly object: Plain;
}

/** What synth generates for the example config (test/fixtures/example), by path. */
const generated = synthesize(loadPlatform(EXAMPLE_CONFIG).platform);

/** Every YAML document of the generated `.yaml` files in a folder and the folders below it, by path. */
function manifestsIn(folder: string): Manifest[] {
  const out: Manifest[] = [];
  for (const file of [...generated.keys()].filter((p) => p.startsWith(`${folder}/`) && p.endsWith('.yaml')).sort()) {
    for (const document of parseAllDocuments(generated.get(file) ?? '')) {
      const object: unknown = document.toJS();
      if (!isPlain(object)) throw new Error(`${file}: a document is not a map`);
      out.push({ file, object });
    }
  }
  return out;
}

const demoManifests = [...manifestsIn('dist/demo/nodepools'), ...manifestsIn('dist/demo/apps'), ...manifestsIn('argocd')];
const servedKinds = new Set(knownKinds());

function isServed(object: Plain): boolean {
  return servedKinds.has(`${String(object.apiVersion)} ${String(object.kind)}`);
}

function nameOf(object: Plain): unknown {
  return isPlain(object.metadata) ? object.metadata.name : undefined;
}

/** A deep copy of the demo manifest of that kind and name. */
function demo(kind: string, name: string): Plain {
  const found = demoManifests.find(({ object }) => object.kind === kind && nameOf(object) === name);
  if (found === undefined) throw new Error(`no demo manifest ${kind}/${name}`);
  return structuredClone(found.object);
}

/** A copy with overrides deep-merged: maps merge key by key, lists and scalars replace, `undefined` removes. */
function withOverrides(base: Plain, overrides: Plain): Plain {
  const out: Plain = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const previous = out[key];
    if (value === undefined) delete out[key];
    else if (isPlain(value) && isPlain(previous)) out[key] = withOverrides(previous, value);
    else out[key] = value;
  }
  return out;
}

/** A copy with `items` appended to the list at `at`. */
function withAppended(base: Plain, at: readonly string[], ...items: unknown[]): Plain {
  const [key, ...rest] = at;
  const current = base[key];
  if (rest.length > 0) {
    if (!isPlain(current)) throw new Error(`${key} is not a map`);
    return { ...base, [key]: withAppended(current, rest, ...items) };
  }
  if (!Array.isArray(current)) throw new Error(`${key} is not a list`);
  return { ...base, [key]: [...current, ...items] };
}

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The demo web NodePool with overrides. */
function aNodePool(overrides: Plain = {}): Plain {
  return withOverrides(demo('NodePool', 'web'), overrides);
}

/** The demo web EC2NodeClass with overrides. */
function aNodeClass(overrides: Plain = {}): Plain {
  return withOverrides(demo('EC2NodeClass', 'web'), overrides);
}

/** The demo Karpenter Application with overrides. */
function anApplication(overrides: Plain = {}): Plain {
  return withOverrides(demo('Application', 'demo-karpenter'), overrides);
}

function aRequirement(key: string, operator: string, values?: string[]): Plain {
  return values === undefined ? { key, operator } : { key, operator, values };
}

describe('validate: the generated example output', () => {
  it.each(demoManifests.filter(({ object }) => isServed(object)).map((m) => [m.file, String(m.object.kind), String(nameOf(m.object)), m.object]))(
    'accepts %s %s/%s',
    (_file, _kind, _name, object) => {
      expect(validate(object)).toEqual([]);
    },
  );

  it('covers every kind in the folders except the built-in ConfigMap patch and repository Secret', () => {
    const unserved = demoManifests.filter(({ object }) => !isServed(object)).map(({ file, object }) => `${file} ${String(object.kind)}`);
    expect(unserved).toEqual(['argocd/argocd-cm-patch.yaml ConfigMap', 'argocd/helm-repository.yaml Secret']);
  });

  it.each(demoManifests.filter(({ object }) => isServed(object)).map((m) => [String(m.object.kind), String(nameOf(m.object)), m.object]))(
    'leaves %s/%s unchanged when defaulting (nothing for the API server to fill in)',
    (_kind, _name, object) => {
      expect(defaulted(object)).toEqual(object);
    },
  );
});

describe('validate: NodePool', () => {
  it('rejects a Gt value that overflows CEL int', () => {
    const pool = withAppended(aNodePool(), REQUIREMENTS, aRequirement('karpenter.k8s.aws/instance-cpu', 'Gt', ['99999999999999999999']));
    expect(validate(pool)).toEqual([
      expect.stringMatching(/^NodePool\/web: spec\.template\.spec\.requirements: .*int overflow.* evaluating rule: requirements operator 'Gt'/),
    ]);
  });

  it('accepts a Gt value that fits CEL int', () => {
    expect(validate(withAppended(aNodePool(), REQUIREMENTS, aRequirement('karpenter.k8s.aws/instance-cpu', 'Gt', ['4'])))).toEqual([]);
  });

  it('rejects 101 requirements (maxItems 100) and then skips the CEL rules, as the API server does', () => {
    const requirements = Array.from({ length: 101 }, (_, i) => aRequirement(`example.com/key-${i}`, 'Exists'));
    const problems = validate(aNodePool({ spec: { template: { spec: { requirements } } } }));
    expect(problems).toEqual([
      expect.stringMatching(/^NodePool\/web: spec\.template\.spec\.requirements: too many: 101: must have at most 100 items$/),
      expect.stringMatching(/some validation rules were not checked/),
    ]);
  });

  it('rejects the label karpenter.sh/foo on template labels', () => {
    const problems = validate(aNodePool({ spec: { template: { metadata: { labels: { 'karpenter.sh/foo': 'x' } } } } }));
    expect(problems).toEqual([expect.stringMatching(/spec\.template\.metadata\.labels: .*label domain "karpenter\.sh" is restricted/)]);
  });

  it('rejects the requirement key kubernetes.io/hostname', () => {
    const problems = validate(withAppended(aNodePool(), REQUIREMENTS, aRequirement('kubernetes.io/hostname', 'In', ['node-1'])));
    expect(problems).toEqual([
      expect.stringMatching(/spec\.template\.spec\.requirements\[4\]\.key: invalid value: "kubernetes\.io\/hostname": label "kubernetes\.io\/hostname" is restricted/),
    ]);
  });

  it('rejects a budget with a schedule but no duration', () => {
    const problems = validate(withAppended(aNodePool(), BUDGETS, { nodes: '0', schedule: '0 9 * * *' }));
    expect(problems).toEqual([expect.stringMatching(/spec\.disruption\.budgets: .*'schedule' must be set with 'duration'/)]);
  });

  it('rejects consolidateAfter "10x"', () => {
    const problems = validate(aNodePool({ spec: { disruption: { consolidateAfter: '10x' } } }));
    expect(problems).toEqual([expect.stringMatching(/spec\.disruption\.consolidateAfter: invalid value: "10x": should match/)]);
  });

  it('rejects an unknown field in spec, which the API server would prune', () => {
    expect(validate(aNodePool({ spec: { surprise: true } }))).toEqual([expect.stringMatching(/spec\.surprise: unknown field/)]);
  });

  it('rejects a duplicate budget reason (x-kubernetes-list-type: set)', () => {
    const problems = validate(withAppended(aNodePool(), BUDGETS, { nodes: '1', reasons: ['Empty', 'Empty'] }));
    expect(problems).toEqual([expect.stringMatching(/spec\.disruption\.budgets\[2\]\.reasons\[1\]: duplicate value: "Empty"/)]);
  });

  it('reports what the API server silently drops: a namespace on a cluster-scoped object, status, non-nullable nulls', () => {
    const problems = validate(aNodePool({ metadata: { namespace: 'default' }, status: { nodes: 1 }, spec: { limits: { memory: null } } }));
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/metadata\.namespace: "default": the API server drops it/),
        expect.stringMatching(/status: set by the controller/),
        expect.stringMatching(/spec\.limits\[memory\]: null: the API server drops it/),
      ]),
    );
    expect(problems).toHaveLength(3);
  });

  it('rejects a name that is not a DNS subdomain', () => {
    expect(validate(aNodePool({ metadata: { name: 'Web_Pool' } }))).toEqual([expect.stringMatching(/metadata\.name: invalid value: "Web_Pool": a lowercase RFC 1123 subdomain/)]);
  });

  it('rejects a metadata label value that is not a valid label value', () => {
    expect(validate(aNodePool({ metadata: { labels: { team: 'web team' } } }))).toEqual([expect.stringMatching(/metadata\.labels: invalid value: "web team": a label value must be/)]);
  });

  it('skips the transition rule on nodeClassRef (it reads oldSelf) on create', () => {
    expect(validate(aNodePool({ spec: { template: { spec: { nodeClassRef: { kind: 'SomethingElse' } } } } }))).toEqual([]);
  });
});

describe('validate: EC2NodeClass', () => {
  it('rejects amiFamily Bottlerocket with the alias al2023@v20250505', () => {
    const problems = validate(aNodeClass({ spec: { amiFamily: 'Bottlerocket', amiSelectorTerms: [{ alias: 'al2023@v20250505' }] } }));
    expect(problems).toEqual([expect.stringMatching(/EC2NodeClass\/web: spec: .*amiFamily must be 'AL2023' or 'Custom' when using an AL2023 alias/)]);
  });

  it('rejects httpPutResponseHopLimit 65', () => {
    const problems = validate(aNodeClass({ spec: { metadataOptions: { httpPutResponseHopLimit: 65 } } }));
    expect(problems).toEqual([expect.stringMatching(/spec\.metadataOptions\.httpPutResponseHopLimit: invalid value: 65: should be less than or equal to 64/)]);
  });

  it('rejects a maxPods beyond int32 (format: int32)', () => {
    const problems = validate(aNodeClass({ spec: { kubelet: { maxPods: 2 ** 31 } } }));
    expect(problems).toEqual([expect.stringMatching(/spec\.kubelet\.maxPods: invalid value: 2147483648: must be of format int32/)]);
  });

  // The CRD's pattern has empty alternatives, `([1-9]||[1-5][0-7]|58)Ti` and `([1-9]||...|64)T`, so a bare unit
  // passes the API server, while sizes such as 18Ti fail because `[1-5][0-7]` leaves out x8 and x9.
  it.each(['Ti', 'T'])('accepts volumeSize "%s": the CRD pattern lets a bare unit through', (volumeSize) => {
    const nodeClass = aNodeClass({ spec: { blockDeviceMappings: [{ deviceName: '/dev/xvda', ebs: { volumeSize } }] } });
    expect(validate(nodeClass)).toEqual([]);
  });

  it('rejects volumeSize "18Ti", which the CRD pattern leaves out', () => {
    const nodeClass = aNodeClass({ spec: { blockDeviceMappings: [{ deviceName: '/dev/xvda', ebs: { volumeSize: '18Ti' } }] } });
    expect(validate(nodeClass)).toEqual([expect.stringMatching(/spec\.blockDeviceMappings\[0\]\.ebs\.volumeSize: invalid value: "18Ti": should match/)]);
  });
});

describe('validate: Application', () => {
  it('rejects a syncOption that is not a string, after pruning its members as the API server does', () => {
    const problems = validate(anApplication({ spec: { syncPolicy: { syncOptions: [{ CreateNamespace: true }] } } }));
    expect(problems).toEqual([
      expect.stringMatching(/spec\.syncPolicy\.syncOptions\[0\]\.CreateNamespace: unknown field/),
      expect.stringMatching(/spec\.syncPolicy\.syncOptions\[0\]: invalid value: "object": must be of type string/),
      expect.stringMatching(/some validation rules were not checked/),
    ]);
  });

  it('accepts an unknown syncOption name: the CRD types syncOptions only as strings', () => {
    expect(validate(anApplication({ spec: { syncPolicy: { syncOptions: ['NoSuchOption=true'] } } }))).toEqual([]);
  });

  it('rejects a missing destination', () => {
    const problems = validate(anApplication({ spec: { destination: undefined } }));
    expect(problems).toEqual([expect.stringMatching(/Application\/demo-karpenter: spec\.destination: required value/), expect.stringMatching(/some validation rules were not checked/)]);
  });
});

describe('validate: any object', () => {
  it('rejects a kind no vendored CRD serves', () => {
    const problems = validate({ apiVersion: 'karpenter.sh/v1beta1', kind: 'NodePool', metadata: { name: 'web' } });
    expect(problems).toEqual([expect.stringMatching(/^NodePool\/web: kind: no vendored CRD serves apiVersion "karpenter\.sh\/v1beta1" kind "NodePool"/)]);
  });
});

describe('defaulted', () => {
  it('fills in what the API server defaults on a minimal NodePool', () => {
    const minimal = aNodePool({ spec: { disruption: undefined, template: { spec: { expireAfter: undefined } } } });
    expect(defaulted(minimal)).toEqual(
      withOverrides(minimal, {
        spec: {
          disruption: { consolidateAfter: '0s', consolidationPolicy: 'WhenEmptyOrUnderutilized', budgets: [{ nodes: '10%' }] },
          template: { spec: { expireAfter: '720h' } },
        },
      }),
    );
  });

  it('fills in metadataOptions on an EC2NodeClass that leaves them out', () => {
    const nodeClass = aNodeClass({ spec: { metadataOptions: undefined } });
    expect(defaulted(nodeClass)).toEqual(
      withOverrides(nodeClass, {
        spec: { metadataOptions: { httpEndpoint: 'enabled', httpProtocolIPv6: 'disabled', httpPutResponseHopLimit: 1, httpTokens: 'required' } },
      }),
    );
  });

  it('does not change its input', () => {
    const minimal = aNodePool({ spec: { disruption: undefined } });
    const before = structuredClone(minimal);
    defaulted(minimal);
    expect(minimal).toEqual(before);
  });

  it('fails for a kind no vendored CRD serves', () => {
    expect(() => defaulted({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })).toThrow(/ConfigMap\/x: kind: no vendored CRD/);
  });
});

/**
 * `constructor`, `__proto__` and friends are ordinary keys everywhere a user names keys:
 * kept where they are valid, errors where they are not, never dropped and never a crash.
 */
import { CHART_VERSION } from '../../src/release/chart-values-keys.generated';
import { parseAllDocuments } from 'yaml';
import { synthesize } from '../../src/synth';
import { aConfig, rawConfigWithTeams, removeProjects } from '../builders';
import { load, problemsOf } from './helpers';

afterAll(removeProjects);

/** The EC2NodeClass and NodePool of pool `web` in cluster demo, as written to dist/. */
function written(platform: ReturnType<typeof load>['platform']) {
  const files = synthesize(platform);
  const docs = parseAllDocuments(files.get('dist/demo/nodepools/web/web.yaml') ?? '').map((d) => d.toJS());
  return { nodeClass: docs.find((d) => d.kind === 'EC2NodeClass'), nodePool: docs.find((d) => d.kind === 'NodePool'), files };
}

describe('keys named like JavaScript object internals', () => {
  it('keeps EC2 tags named __proto__, constructor and toString', () => {
    const { platform } = load({ rawConfig: rawConfigWithTeams(['  web:', '    tags: { __proto__: a, constructor: b, toString: c, hasOwnProperty: d }']) });
    const { nodeClass } = written(platform);
    expect(Object.getOwnPropertyNames(nodeClass.spec.tags)).toEqual(expect.arrayContaining(['__proto__', 'constructor', 'toString', 'hasOwnProperty']));
    expect(nodeClass.spec.tags.constructor).toBe('b');
  });

  it('keeps node labels named constructor and toString', () => {
    const { platform } = load({ config: aConfig({ teams: { web: { labels: { constructor: 'x', toString: 'y' } } } }) });
    expect(written(platform).nodePool.spec.template.metadata.labels).toEqual({ constructor: 'x', toString: 'y', team: 'web' });
  });

  it('fails when a team is named __proto__, as for any name that is not a DNS label', () => {
    expect(problemsOf({ rawConfig: rawConfigWithTeams(['  __proto__: {}']) })).toEqual([
      expect.stringMatching(/platform\.yaml:6:3: teams\.__proto__: invalid key "__proto__": must be a DNS-1123 label/),
    ]);
  });

  it('fails when a label is named __proto__ (not a valid label key)', () => {
    expect(problemsOf({ rawConfig: rawConfigWithTeams(['  web: { labels: { __proto__: x } }']) })).toEqual([
      expect.stringMatching(/teams\.web\.labels\.__proto__: invalid key "__proto__": must be a label key/),
    ]);
  });

  it('fails on a requirement keyed constructor only as the CRD would (it is a valid label key)', () => {
    const { platform } = load({ config: aConfig({ teams: { web: { requirements: [{ key: 'constructor', operator: 'In', values: ['a'] }] } } }) });
    expect(written(platform).nodePool.spec.template.spec.requirements).toContainEqual({ key: 'constructor', operator: 'In', values: ['a'] });
  });

  it('keeps helmValues keys named __proto__ and constructor inside free-form chart values', () => {
    const { platform } = load({ rawConfig: rawConfigWithTeams(['  web: {}']).replace(`karpenter: { version: ${CHART_VERSION} }`, `karpenter: { version: ${CHART_VERSION}, helmValues: { podAnnotations: { __proto__: a, constructor: b } } }`) });
    const values = parseAllDocuments(written(platform).files.get('dist/demo/karpenter/values.yaml') ?? '')[0].toJS();
    expect(Object.getOwnPropertyNames(values.podAnnotations).sort()).toEqual(['__proto__', 'constructor']);
  });

  it('fails when a helmValues key named constructor is not a chart key', () => {
    expect(problemsOf({ config: aConfig({ karpenter: { helmValues: { constructor: 1 } } }) })).toEqual([
      expect.stringMatching(/karpenter\.helmValues\.constructor: unknown chart key "constructor"/),
    ]);
  });

  it('fails on a controller setting named constructor as on any unknown setting', () => {
    expect(problemsOf({ config: aConfig({ karpenter: { controller: { settings: { constructor: 'x' } } } }) })).toEqual([
      expect.stringMatching(/karpenter\.controller\.settings\.constructor: unknown chart setting "constructor"/),
    ]);
  });

  it('treats an alias family named constructor as unknown', () => {
    expect(problemsOf({ config: aConfig({ defaults: { ami: { alias: 'constructor@v1' } } }) })).toEqual([
      expect.stringMatching(/defaults\.ami\.alias: unknown alias family "constructor"/),
    ]);
  });
});

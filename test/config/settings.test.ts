/**
 * A cluster's settings and where each comes from (issue 43, contract 8.2 and 9.3;
 * src/config/settings.ts): the fleet's `karpenter` and `tenancy`, then each group the cluster is
 * in, in file order, then the cluster's own, merged once; every value with its level, its group
 * and the path of platform.yaml that set it, or the default and the cluster when none did.
 */
import { clusterSettings } from '../../src/config/settings';
import { PlatformFile, platformSchema } from '../../src/config/schema';
import { aConfig, Plain } from '../builders';

/** The config, parsed as the loader parses it. */
const parsed = (config: Plain): PlatformFile => platformSchema.parse(config);

/**
 * Four clusters: `plain` in no group, `eu` in prod then prod-eu, `us` in prod only, `own` in
 * prod and setting the same fields itself.
 */
const FLEET = parsed(aConfig({
  karpenter: { version: '1.14.1', namespace: 'karpenter', controller: { replicas: 2, logLevel: 'info' } },
  tenancy: { exemptNamespaces: ['monitoring'] },
  windows: { nights: { timeZone: 'UTC', days: ['mon'], start: '22:00', duration: '6h' }, weekend: { timeZone: 'UTC', days: ['sat'], start: '00:00', duration: '8h' } },
  clusters: {
    demo: undefined,
    plain: { terraformOutputs: 'terraform/plain.json' },
    eu: { terraformOutputs: 'terraform/eu.json', labels: { env: 'prod', geo: 'eu' } },
    us: { terraformOutputs: 'terraform/us.json', labels: { env: 'prod', geo: 'us' } },
    own: {
      terraformOutputs: 'terraform/own.json', labels: { env: 'prod', geo: 'eu' }, window: 'weekend',
      karpenter: { namespace: 'kube-system', controller: { replicas: 5 } }, tenancy: { action: 'Deny', exemptNamespaces: [] },
    },
  },
  groups: {
    prod: {
      match: { labels: { env: 'prod' } }, window: 'nights',
      karpenter: { version: '1.14.0', namespace: 'platform', controller: { replicas: 3 } }, tenancy: { action: 'Audit', exemptNamespaces: ['logging'] },
    },
    'prod-eu': { match: { labels: { env: 'prod', geo: 'eu' } }, karpenter: { namespace: 'karpenter-eu' }, tenancy: { action: 'Warn' } },
  },
}));

describe('where each setting of a cluster comes from', () => {
  it('takes the fleet\'s where no group or cluster says it, at the top-level field', () => {
    const s = clusterSettings(FLEET, 'plain');
    expect(s.karpenterNamespace).toEqual({ value: 'karpenter', level: 'fleet', path: ['karpenter', 'namespace'] });
    expect(s.karpenterVersion).toEqual({ value: '1.14.1', level: 'fleet', path: ['karpenter', 'version'] });
    expect(s.tenancyExemptNamespaces).toEqual({ value: ['monitoring'], level: 'fleet', path: ['tenancy', 'exemptNamespaces'] });
  });

  it('gives the default, located at the cluster, where no level says it', () => {
    const s = clusterSettings(FLEET, 'plain');
    expect(s.tenancyAction).toEqual({ value: 'Deny', level: 'default', path: ['clusters', 'plain'] });
    expect(s.window).toEqual({ value: undefined, level: 'default', path: ['clusters', 'plain'] });
    expect(clusterSettings(parsed(aConfig()), 'demo').karpenterNamespace).toEqual({ value: 'kube-system', level: 'default', path: ['clusters', 'demo'] });
  });

  it('takes a group\'s over the fleet\'s, naming the group and its field', () => {
    const s = clusterSettings(FLEET, 'us');
    expect(s.karpenterNamespace).toEqual({ value: 'platform', level: 'group', group: 'prod', path: ['groups', 'prod', 'karpenter', 'namespace'] });
    expect(s.karpenterVersion).toEqual({ value: '1.14.0', level: 'group', group: 'prod', path: ['groups', 'prod', 'karpenter', 'version'] });
    expect(s.tenancyAction).toEqual({ value: 'Audit', level: 'group', group: 'prod', path: ['groups', 'prod', 'tenancy', 'action'] });
    expect(s.tenancyExemptNamespaces).toEqual({ value: ['logging'], level: 'group', group: 'prod', path: ['groups', 'prod', 'tenancy', 'exemptNamespaces'] });
    expect(s.window).toEqual({ value: 'nights', level: 'group', group: 'prod', path: ['groups', 'prod', 'window'] });
  });

  it('takes a later group\'s over an earlier one\'s, field by field (file order)', () => {
    const s = clusterSettings(FLEET, 'eu');
    expect(s.groups.map((g) => g.name)).toEqual(['prod', 'prod-eu']);
    expect(s.karpenterNamespace).toMatchObject({ value: 'karpenter-eu', group: 'prod-eu', path: ['groups', 'prod-eu', 'karpenter', 'namespace'] });
    expect(s.tenancyAction).toMatchObject({ value: 'Warn', group: 'prod-eu' });
    // prod-eu says nothing of these: prod's stand.
    expect(s.karpenterVersion).toMatchObject({ value: '1.14.0', group: 'prod' });
    expect(s.tenancyExemptNamespaces).toMatchObject({ value: ['logging'], group: 'prod' });
  });

  it('takes the cluster\'s own over every group\'s, an empty list included', () => {
    const s = clusterSettings(FLEET, 'own');
    expect(s.karpenterNamespace).toEqual({ value: 'kube-system', level: 'cluster', path: ['clusters', 'own', 'karpenter', 'namespace'] });
    expect(s.tenancyAction).toEqual({ value: 'Deny', level: 'cluster', path: ['clusters', 'own', 'tenancy', 'action'] });
    expect(s.tenancyExemptNamespaces).toEqual({ value: [], level: 'cluster', path: ['clusters', 'own', 'tenancy', 'exemptNamespaces'] });
    expect(s.window).toEqual({ value: 'weekend', level: 'cluster', path: ['clusters', 'own', 'window'] });
  });

  it('deep-merges karpenter key by key, each key at the level that set it', () => {
    const s = clusterSettings(FLEET, 'own');
    expect(s.karpenter).toMatchObject({ version: '1.14.0', namespace: 'kube-system', controller: { replicas: 5, logLevel: 'info' } });
    expect(s.sourceOf(['karpenter', 'controller', 'replicas'])).toEqual({ level: 'cluster', path: ['clusters', 'own', 'karpenter', 'controller', 'replicas'] });
    expect(s.sourceOf(['karpenter', 'controller', 'logLevel'])).toEqual({ level: 'fleet', path: ['karpenter', 'controller', 'logLevel'] });
    expect(clusterSettings(FLEET, 'us').sourceOf(['karpenter', 'controller', 'replicas'])).toEqual({ level: 'group', group: 'prod', path: ['groups', 'prod', 'karpenter', 'controller', 'replicas'] });
    expect(s.sourceOf(['karpenter', 'controller', 'featureGates', 'nodeOverlay'])).toEqual({ level: 'default', path: ['clusters', 'own'] });
  });
});

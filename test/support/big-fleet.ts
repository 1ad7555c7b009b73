/**
 * The fleet of issue 38, written as its platform team would write it with groups: 120 clusters
 * (dev 10 at stage 1, staging 30 at stage 2, prod 80 at stage 3) in three regions, each cluster
 * one line with its labels; eight teams; groups for each environment and each prod region (with
 * the region's maintenance window), and staging on the older Karpenter release. Tests of fleet
 * scale (SUMMARY's size, errors of a run, fit for one cluster, a prod-only change) start here.
 */
import { aTerraform, Plain } from '../builders';

/** The regions of the fleet: label `geo`, AWS region, and the window of its prod clusters. */
export const REGIONS = [
  { geo: 'eu', region: 'eu-west-1', window: { timeZone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu'], start: '22:00', duration: '6h' } },
  { geo: 'us', region: 'us-east-1', window: { timeZone: 'America/New_York', days: ['mon', 'tue', 'wed', 'thu'], start: '21:00', duration: '6h' } },
  { geo: 'ap', region: 'ap-northeast-2', window: { timeZone: 'Asia/Seoul', days: ['mon', 'tue', 'wed', 'thu'], start: '23:00', duration: '6h' } },
] as const;

/** How many clusters of each environment, and its stage. */
export const ENVIRONMENTS = [
  { env: 'dev', count: 10, stage: 1 },
  { env: 'staging', count: 30, stage: 2 },
  { env: 'prod', count: 80, stage: 3 },
] as const;

/** The eight teams: the team's own pool, and two with a second pool. */
export const TEAMS = ['checkout', 'search', 'payments', 'catalog', 'identity', 'ml', 'data', 'edge'] as const;

/** A cluster's id: `<env>-<geo>-<nn>`. */
export function bigFleetClusterIds(): string[] {
  const ids: string[] = [];
  for (const { env, count } of ENVIRONMENTS) {
    for (let i = 0; i < count; i++) ids.push(`${env}-${REGIONS[i % REGIONS.length].geo}-${String(Math.floor(i / REGIONS.length) + 1).padStart(2, '0')}`);
  }
  return ids;
}

/**
 * The config (as data, for `writeProject`) and each cluster's Terraform outputs. `edit` changes
 * the config before it is returned (a test's one change).
 */
export function bigFleet(edit: (config: Plain) => void = () => undefined): { config: Plain; terraform: Record<string, Plain> } {
  const clusters: Plain = {};
  const terraform: Record<string, Plain> = {};
  for (const id of bigFleetClusterIds()) {
    const [env, geo] = id.split('-');
    const stage = ENVIRONMENTS.find((e) => e.env === env)!.stage;
    const region = REGIONS.find((r) => r.geo === geo)!.region;
    clusters[id] = { terraformOutputs: `terraform/${id}.json`, stage, destination: { name: id }, labels: { env, geo } };
    terraform[id] = aTerraform({ cluster_name: id, cluster_endpoint: `https://${id.replace(/-/g, '').toUpperCase()}0123456789.gr7.${region}.eks.amazonaws.com`, cluster_version: '1.34' });
  }
  const teams: Plain = Object.fromEntries(TEAMS.map((t, i) => [t, {
    owner: `${t}@acme.example`,
    instanceCategories: i % 2 ? ['c', 'm'] : ['m', 'r'],
    instanceGeneration: { gt: 5 },
    limits: { cpu: '200', memory: '800Gi' },
    terminationGracePeriod: '24h',
    ...(i < 2 ? { pools: { batch: { capacityTypes: ['spot', 'on-demand'], arch: ['arm64'] } } } : {}),
  }]));
  const config: Plain = {
    gitops: { repoURL: 'https://github.com/acme/platform-gitops.git', targetRevision: 'main', stages: { 3: { soak: '24h', environment: 'production' } } },
    karpenter: { version: '1.14.1' },
    windows: Object.fromEntries(REGIONS.map((r) => [`prod-${r.geo}`, r.window])),
    groups: {
      dev: { match: { labels: { env: 'dev' } }, overrides: { expireAfter: '168h' } },
      staging: { match: { labels: { env: 'staging' } }, karpenter: { version: '1.13.1' } },
      prod: { match: { labels: { env: 'prod' } }, karpenter: { controller: { replicas: 3 } }, tenancy: { action: 'Deny' } },
      ...Object.fromEntries(REGIONS.map((r) => [`prod-${r.geo}`, { match: { labels: { env: 'prod', geo: r.geo } }, window: `prod-${r.geo}` }])),
    },
    clusters,
    defaults: { ami: { alias: 'al2023@v20260409' } },
    teams,
  };
  edit(config);
  return { config, terraform };
}

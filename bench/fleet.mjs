// The fleet `npm run bench -- --fleet CLUSTERSxTEAMS` measures, written as a platform team writes
// one with groups (test/support/big-fleet.ts is the same fleet for the tests): dev, staging and
// prod clusters (1/12, 1/4 and the rest; 10, 30 and 80 of 120) at stages 1, 2 and 3, spread over
// three regions, each cluster one line with its stage, its Argo CD destination by name and its
// labels (env, geo); a group per environment (staging on the previous Karpenter release, prod
// with three controller replicas and the tenancy policy denying) and one per prod region with the
// region's maintenance window; stage 3 soaks 24h behind a GitHub environment; TEAMS teams, the
// first two with a second pool.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The regions: label `geo`, AWS region, the window of its prod clusters. */
const REGIONS = [
  { geo: 'eu', region: 'eu-west-1', window: '{ timeZone: Europe/Berlin, days: [mon, tue, wed, thu], start: "22:00", duration: 6h }' },
  { geo: 'us', region: 'us-east-1', window: '{ timeZone: America/New_York, days: [mon, tue, wed, thu], start: "21:00", duration: 6h }' },
  { geo: 'ap', region: 'ap-northeast-2', window: '{ timeZone: Asia/Seoul, days: [mon, tue, wed, thu], start: "23:00", duration: 6h }' },
];

/** How many clusters of each environment a fleet of `clusters` has, and its stage. */
export function environments(clusters) {
  const dev = Math.max(1, Math.round(clusters / 12));
  const staging = Math.max(1, Math.round(clusters / 4));
  return [{ env: 'dev', count: dev, stage: 1 }, { env: 'staging', count: staging, stage: 2 }, { env: 'prod', count: Math.max(1, clusters - dev - staging), stage: 3 }];
}

/**
 * Writes `dir/platform.yaml` and `dir/terraform/<cluster>.json` for a fleet of `clusters`
 * clusters and `teams` teams whose AMI is `alias`; returns the cluster ids in file order.
 */
export function writeFleet(dir, clusters, teams, alias) {
  mkdirSync(join(dir, 'terraform'), { recursive: true });
  const ids = [];
  let lines = '';
  for (const { env, count, stage } of environments(clusters)) {
    for (let i = 0; i < count; i++) {
      const { geo, region } = REGIONS[i % REGIONS.length];
      const id = `${env}-${geo}-${String(Math.floor(i / REGIONS.length) + 1).padStart(2, '0')}`;
      ids.push(id);
      writeFileSync(join(dir, `terraform/${id}.json`), JSON.stringify({
        cluster_name: id, karpenter_node_role_name: `KarpenterNodeRole-${id}`, karpenter_interruption_queue_name: `Karpenter-${id}`,
        cluster_endpoint: `https://${id.replace(/-/g, '').toUpperCase()}0123456789.gr7.${region}.eks.amazonaws.com`, cluster_version: '1.34',
      }));
      lines += `  ${id}: { terraformOutputs: terraform/${id}.json, stage: ${stage}, destination: { name: ${id} }, labels: { env: ${env}, geo: ${geo} } }\n`;
    }
  }
  let text = 'gitops:\n  repoURL: https://github.com/acme/platform-gitops.git\n  targetRevision: main\n  stages:\n    "3": { soak: 24h, environment: production }\n'
    + 'karpenter:\n  version: 1.14.1\n'
    + `windows:\n${REGIONS.map((r) => `  prod-${r.geo}: ${r.window}\n`).join('')}`
    + 'groups:\n'
    + '  dev: { match: { labels: { env: dev } }, overrides: { expireAfter: 168h } }\n'
    + '  staging: { match: { labels: { env: staging } }, karpenter: { version: 1.13.1 } }\n'
    + '  prod: { match: { labels: { env: prod } }, karpenter: { controller: { replicas: 3 } }, tenancy: { action: Deny } }\n'
    + REGIONS.map((r) => `  prod-${r.geo}: { match: { labels: { env: prod, geo: ${r.geo} } }, window: prod-${r.geo} }\n`).join('')
    + `clusters:\n${lines}`
    + `defaults:\n  ami: { alias: ${alias} }\n`
    + 'teams:\n';
  for (let t = 0; t < teams; t++) {
    text += `  team-${t}:\n    owner: team-${t}@acme.example\n    instanceCategories: [${t % 2 ? 'c, m' : 'm, r'}]\n    instanceGeneration: { gt: 5 }\n`
      + '    limits: { cpu: "200", memory: 800Gi }\n    terminationGracePeriod: 24h\n'
      + (t < 2 ? '    pools:\n      batch: { capacityTypes: [spot, on-demand], arch: [arm64] }\n' : '');
  }
  writeFileSync(join(dir, 'platform.yaml'), text);
  return ids;
}

/**
 * One derivation (issue 29, STYLE.md): every surface a user reads says the same of a pool, to
 * the cent. A fleet with a fleet-wide overlay that halves the price of some families (m7i and
 * r7i, not c7i) and a static pool is committed without the overlay, then given it, synthesized
 * and reviewed through the real command line. Each figure is read from what a user sees:
 * the cluster's page `dist/prod/SUMMARY.md` (the pool's row, the cost table), `dist/prod/summary.json`,
 * the table `synth --verbose` prints, `explain --format json`, `fit` (terminal and JSON) and
 * `diff`'s cost lines. Each team
 * has one pool on the one cluster, so a team's ceiling in the cost table and the review is its
 * pool's.
 *
 * web: dynamic, c7i/m7i/r7i up to 16 vCPUs, limits cpu 64 (the ceiling is 64 cpu at the highest
 * price per cpu among its types). ingest: static, 4 replicas of m7i.large or m7i.xlarge (the
 * ceiling is 4 nodes at the dearest type).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { karpenterCatalog } from '../src/catalog/catalog';
import { aFleetConfig, cli, CliResult, Fleet, removeFleets } from './review/fleet';

afterAll(removeFleets);

const TEAMS = {
  web: { instanceFamilies: ['c7i', 'm7i', 'r7i'], instanceCpu: { lte: 16 }, limits: { cpu: '64' } },
  ingest: { replicas: 4, instanceTypes: ['m7i.large', 'm7i.xlarge'] },
};
const HALF = { half: { requirements: [{ key: 'karpenter.k8s.aws/instance-family', operator: 'In', values: ['m7i', 'r7i'] }], priceAdjustment: '-50%' } };

/** A pod every pool can hold: it tolerates every taint and asks for little. */
const PROBE = [
  'apiVersion: v1', 'kind: Pod', 'metadata: { name: probe }', 'spec:', '  tolerations: [{ operator: Exists }]',
  '  containers: [{ name: probe, image: nginx, resources: { requests: { cpu: 10m, memory: 16Mi } } }]', '',
].join('\n');

/** A price per node-hour as SUMMARY, explain and fit show it. */
const perHour = (n: number) => n.toFixed(4);
/** A ceiling as SUMMARY, explain and the review show it. */
const usd = (n: number) => `$${n.toFixed(2)}`;
const listPrice = (type: string) => karpenterCatalog().instanceType(type)?.price ?? NaN;

/** The rows of a Markdown table whose header row starts with `| first |`, each by column name. */
function markdownTable(text: string, first: string): Map<string, string>[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`| ${first} |`));
  const cells = (line: string) => line.slice(2, -2).split(' | ');
  const header = cells(lines[start]);
  const rows: Map<string, string>[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(new Map(cells(line).map((c, i) => [header[i], c])));
  }
  return rows;
}

/** The table synth prints, each row by column name (columns are separated by two spaces or more). */
function synthTable(out: string): Map<string, string>[] {
  const lines = out.split('\n');
  const start = lines.findIndex((l) => l.startsWith('CLUSTER '));
  const cells = (line: string) => line.trim().split(/\s{2,}/);
  const header = cells(lines[start]);
  return lines.slice(start + 1).filter((l) => /^\S+\s{2,}\S/.test(l) && !l.startsWith('/')).map((l) => new Map(cells(l).map((c, i) => [header[i], c])));
}

/** `diff`'s cost line of a team: its prod ceiling before and after. */
function reviewed(out: string, team: string): { before: string; after: string } {
  const line = new RegExp(`^ {2}[▲▼] team ${team}: prod (\\$[\\d.]+) -> (\\$[\\d.]+), total`, 'm').exec(out);
  if (!line) throw new Error(`diff shows no cost line for team ${team}:\n${out}`);
  return { before: line[1], after: line[2] };
}

interface PoolData { name: string; replicas: number | null; limits: Record<string, string>; instanceTypes: { count: number; cheapest: { perHour: number }; dearest: { perHour: number } }; ceiling: { perHour: number; boundBy: string } }
interface Explained { instanceTypes: string[]; onDemandPricePerHour: { min: number; max: number }; maxCostPerHour: number; boundBy: string }
interface FitEntry { pool: string; instanceTypes: number; onDemandPricePerHour: { min: number; max: number }; static?: { nodes: number; admittedTypes: number } }

describe('one derivation: every surface says the same of a pool', () => {
  let fleet: Fleet;
  let synth: CliResult;
  let review: CliResult;
  let summary: string;
  let baseSummary: string;
  let data: { teams: { team: string; perCluster: Record<string, number> }[] };
  let pools: { pools: PoolData[] };
  let fitted: FitEntry[];
  let fitLines: string[];
  const explained = new Map<string, Explained>();

  beforeAll(async () => {
    fleet = await Fleet.create(aFleetConfig(['prod'], { teams: TEAMS }));
    baseSummary = fleet.read('dist/prod/SUMMARY.md');
    fleet.configure(aFleetConfig(['prod'], { teams: TEAMS, overlays: HALF }));
    synth = await fleet.synth('--verbose');
    review = await fleet.diff();
    summary = fleet.read('dist/prod/SUMMARY.md');
    data = JSON.parse(fleet.read('dist/summary.json'));
    pools = JSON.parse(fleet.read('dist/prod/summary.json'));
    for (const pool of ['web', 'ingest']) {
      const r = await cli(['explain', `prod/${pool}`, '--config', fleet.configPath, '--format', 'json']);
      expect(r.code).toBe(0);
      explained.set(pool, JSON.parse(r.out));
    }
    const probe = join(fleet.dir, 'probe.yaml');
    writeFileSync(probe, PROBE);
    fitted = JSON.parse((await cli(['fit', probe, '--config', fleet.configPath, '--format', 'json'])).out).workloads[0].fits;
    fitLines = (await cli(['fit', probe, '--config', fleet.configPath])).out.split('\n');
  });

  /** Every figure of `pool`, as each surface shows it. */
  function figures(pool: string) {
    const row = markdownTable(summary, 'pool').find((r) => r.get('pool') === `\`${pool}\``);
    const [, count, min, max] = /^(\d+) \(\$([\d.]+)–\$([\d.]+)\)$/.exec(row?.get('instance types (on-demand $/hour, after overlays)') ?? '') ?? [];
    const pooled = pools.pools.find((p) => p.name === pool) as PoolData;
    const printed = synthTable(synth.out).find((r) => r.get('POOL') === pool);
    const explanation = explained.get(pool) as Explained;
    const fit = fitted.find((f) => f.pool === pool) as FitEntry;
    const [, fitMin, fitMax] = new RegExp(`^ {2}✓ prod/${pool} .*\\(\\$([\\d.]+) to \\$([\\d.]+) per node-hour\\)`).exec(fitLines.find((l) => l.includes(`prod/${pool} `)) ?? '') ?? [];
    const cost = markdownTable(summary, 'team').find((r) => r.get('team') === pool);
    return {
      count: {
        summary: Number(count), summaryJson: pooled.instanceTypes.count, synth: Number(printed?.get('TYPES')),
        explain: explanation.instanceTypes.length, fit: fit.static?.admittedTypes ?? fit.instanceTypes,
      },
      min: { summary: min, summaryJson: perHour(pooled.instanceTypes.cheapest.perHour), explain: perHour(explanation.onDemandPricePerHour.min), fit: perHour(fit.onDemandPricePerHour.min), fitTerminal: fitMin },
      max: { summary: max, summaryJson: perHour(pooled.instanceTypes.dearest.perHour), explain: perHour(explanation.onDemandPricePerHour.max), fit: perHour(fit.onDemandPricePerHour.max), fitTerminal: fitMax },
      ceiling: {
        summaryCostTable: cost?.get('ceiling per hour'), summaryJson: usd(pooled.ceiling.perHour), summaryJsonTeam: usd(data.teams.find((t) => t.team === pool)?.perCluster.prod ?? NaN),
        explain: usd(explanation.maxCostPerHour), review: reviewed(review.out, pool).after,
      },
      boundBy: { summaryJson: pooled.ceiling.boundBy, explain: explanation.boundBy },
      nodes: { summary: row?.get('nodes'), synth: printed?.get('NODES'), summaryJson: pooled.replicas, fit: fit.static?.nodes },
      limits: { summary: row?.get('limits'), synth: printed?.get('LIMITS'), summaryJson: pooled.limits },
      fit,
    };
  }

  /** Each group of figures holds one value, the same on every surface. */
  const agree = (group: Record<string, unknown>, value: unknown) => expect(group).toEqual(Object.fromEntries(Object.keys(group).map((k) => [k, value])));

  it('agrees on the dynamic pool with the price overlay: instance types, price range and ceiling', () => {
    const web = figures('web');
    // c7i, m7i and r7i from large to 4xlarge.
    agree(web.count, 12);
    // m7i.large at half its list price is the cheapest; c7i.4xlarge, not halved, the dearest.
    agree(web.min, perHour(listPrice('m7i.large') / 2));
    agree(web.max, perHour(listPrice('c7i.4xlarge')));
    // 64 cpu at c7i's price per cpu, now the highest: m7i's and r7i's are halved.
    agree(web.ceiling, usd(64 * listPrice('c7i.large') / 2));
    agree(web.boundBy, 'cpu: 64');
    // A dynamic pool: no node count anywhere.
    expect(web.nodes).toEqual({ summary: '-', synth: '-', summaryJson: null, fit: undefined });
    expect(web.limits).toEqual({ summary: 'cpu: 64, memory: 400Gi', synth: 'cpu=64,memory=400Gi', summaryJson: { cpu: '64', memory: '400Gi' } });
  });

  it('agrees on the static pool: its replicas, instance types, price range and ceiling', () => {
    const ingest = figures('ingest');
    agree(ingest.count, 2);
    agree(ingest.min, perHour(listPrice('m7i.large') / 2));
    agree(ingest.max, perHour(listPrice('m7i.xlarge') / 2));
    // 4 nodes at the dearest type after the overlay.
    agree(ingest.ceiling, usd(4 * listPrice('m7i.xlarge') / 2));
    agree(ingest.boundBy, 'replicas: 4 at m7i.xlarge');
    expect(ingest.nodes).toEqual({ summary: 'static 4', synth: 'static 4', summaryJson: 4, fit: 4 });
    // Its NodePool carries none of the limits it inherits (defaults.limits cpu and memory): nor do the summaries.
    expect(fleet.read('dist/prod/nodepools/ingest/ingest.yaml')).not.toMatch(/limits:/);
    expect(ingest.limits).toEqual({ summary: '-', synth: '-', summaryJson: {} });
    expect(fitLines).toContain(
      `  ✓ prod/ingest  fits on any of the pool's 4 nodes: both instance types it admits can hold it ($${perHour(listPrice('m7i.large') / 2)} to $${perHour(listPrice('m7i.xlarge') / 2)} per node-hour); no node is launched for it`,
    );
  });

  it('reviews each ceiling from what the base commit\'s SUMMARY showed to what the new one shows', () => {
    const before = (team: string) => markdownTable(baseSummary, 'team').find((r) => r.get('team') === team)?.get('ceiling per hour');
    expect(reviewed(review.out, 'web')).toEqual({ before: before('web'), after: figures('web').ceiling.summaryCostTable });
    expect(reviewed(review.out, 'ingest')).toEqual({ before: before('ingest'), after: figures('ingest').ceiling.summaryCostTable });
    // Before the overlay, at list prices: r7i has the highest price per cpu, and m7i.xlarge is the dearest static node.
    expect(before('web')).toBe(usd(64 * listPrice('r7i.large') / 2));
    expect(before('ingest')).toBe(usd(4 * listPrice('m7i.xlarge')));
  });
});

/**
 * The tenancy policies as Argo CD delivers them (issue 43, contract 9.3): a change of who may use
 * which pools makes new policies of other names; Argo CD, run through its model
 * (test/support/argocd-sim.ts, from argo-cd v3.5.1's gitops-engine sync_context.go: waves, prune
 * waves mirrored, PruneLast), creates them before it prunes the old ones, so at every moment of
 * the sync each guarded pool is judged by a whole policy and its binding, of one revision or the
 * other. Every change of the cluster's policies and bindings is watched as the API server makes it.
 */
import type { Platform } from '../../src/config/platform';
import { synthesize } from '../../src/synth';
import { aTerraform } from '../builders';
import { load } from '../config/helpers';
import { aFleetConfig, TEAMS } from '../review/fleet';
import { FleetSim } from '../support/fleet-sim';
import type { Plain } from '../builders';

const teams = TEAMS as { web: Plain; ml: Plain };
const config = (ml: readonly string[]) => aFleetConfig(['prod'], { clusters: { prod: { destination: { name: 'prod' } } }, teams: { web: { ...teams.web, namespaces: ['web'] }, ml: { ...teams.ml, namespaces: ml } } });
const platformOf = (ml: readonly string[]): Platform => load({ config: config(ml), terraform: { prod: aTerraform({ cluster_name: 'prod' }) } }).platform;
const start = Date.parse('2027-01-11T00:00:00Z');

/** A file set with every tenancy object's sync options replaced (`strip`: what a release without PruneLast would write). */
const withSyncOptions = (files: ReadonlyMap<string, string>, options: string) => new Map([...files].map(([path, text]) => [path,
  path.endsWith('/policies/team-pools.yaml') ? text.replaceAll('argocd.argoproj.io/sync-options: PruneLast=true,Delete=confirm', `argocd.argoproj.io/sync-options: ${options}`) : text]));

/**
 * Runs prod from `before` to `after` (each a namespaces list for team ml), and after every change
 * of a policy or binding, which pools a live policy with its live binding holds.
 */
function deliver(before: readonly string[], after: readonly string[], options?: string) {
  const first = platformOf(before);
  const files = (p: Platform) => (options === undefined ? synthesize(p) : withSyncOptions(synthesize(p), options));
  const fleet = new FleetSim({ files: files(first), platform: first }, { start: new Date(start), end: new Date(start + 2 * 86_400_000), initialNodeClaims: () => 1, windows: {} });
  const converged = fleet.runUntilTrue(() => fleet.converged(), start + 86_400_000);
  const prod = fleet.clusters.get('prod');
  if (!prod || !converged) throw new Error('the fleet did not come up');
  const guarded = () => {
    const bound = new Set(prod.api.list('ValidatingAdmissionPolicyBinding').map((b) => String((b.applied.spec as Plain).policyName)));
    return prod.api.list('ValidatingAdmissionPolicy').filter((p) => bound.has(p.name)).flatMap((p) => {
      const pools = ((p.applied.spec as Plain).variables as Plain[]).find((v) => v.name === 'pools');
      return JSON.parse(String(pools?.expression ?? '[]')) as string[];
    });
  };
  const moments: string[][] = [];
  prod.api.watch((live) => {
    if (live.kind === 'ValidatingAdmissionPolicy' || live.kind === 'ValidatingAdmissionPolicyBinding') moments.push(guarded().sort());
  });
  const names = () => prod.api.list('ValidatingAdmissionPolicy').map((p) => p.name).sort();
  const was = names();
  const second = platformOf(after);
  fleet.commit({ files: files(second), platform: second }, 'ml: namespaces');
  const done = fleet.runUntilTrue(() => fleet.converged(), start + 2 * 86_400_000);
  return { done, moments, was, now: names() };
}

describe('the tenancy policies as Argo CD delivers a change', () => {
  it('creates the new policy and binding before it prunes the old ones: every pool judged at every moment, the old set gone at the end', () => {
    const { done, moments, was, now } = deliver(['ml'], ['ml', 'research']);
    expect(done).toBe(true);
    expect(now).toHaveLength(1);
    expect(now).not.toEqual(was);
    expect(moments.length).toBeGreaterThanOrEqual(4);
    for (const guarded of moments) expect(new Set(guarded)).toEqual(new Set(['ml-gpu', 'web']));
  });

  it('fails without PruneLast: Argo CD prunes the old binding before the new one is created, and for a while no policy judges anything', () => {
    const { moments } = deliver(['ml'], ['ml', 'research'], 'Delete=confirm');
    expect(moments.some((guarded) => guarded.length === 0)).toBe(true);
  });
});

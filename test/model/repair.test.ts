/**
 * Node repair and the budgets (issue 46, contract 9.4: "a compiled window or freeze never holds
 * node repair"). Karpenter's budget choice is test/support/karpenter-budgets.ts (written from
 * kubernetes-sigs/karpenter v1.14.1 nodepool.go `GetAllowedDisruptionsByReason`, which takes any
 * reason string); that 1.15 repairs through it with the reason `Repair` is the v1.15 docs'
 * (aws/karpenter-provider-aws v1.15.0, website/content/en/v1.15/concepts/disruption.md).
 */
import { windowSummary } from '../../src/model/windows-summary';
import { repairPace, repairText } from '../../src/schedule/repair';
import { Budget, MaintenanceWindow, windowPlan } from '../../src/schedule/windows';
import { problemsOf, warningsOf } from '../config/helpers';
import { aCluster, aKarpenter, aPlatform, aPool } from '../pool-builders';
import { BudgetSimulator } from '../support/karpenter-budgets';

const WINDOWS: MaintenanceWindow[] = [
  { name: 'eu', timeZone: 'Europe/Berlin', days: ['mon', 'tue', 'wed', 'thu'], start: '22:00', duration: '6h' },
  { name: 'us', timeZone: 'America/New_York', days: ['sat'], start: '01:00', duration: '3h' },
  { name: 'kolkata', timeZone: 'Asia/Kolkata', days: ['sun', 'wed'], start: '02:30', duration: '90m' },
];
/** A plain week (no daylight-saving change in it). */
const WEEK_START = Date.parse('2027-01-18T00:00:00Z');
const MINUTE = 60_000;

describe('a compiled window never holds node repair', () => {
  it.each(WINDOWS)('window $name: at every quarter hour of a week, repair is allowed exactly what the pool\'s own budgets allow; drift is held outside the window', (window) => {
    const own: Budget[] = [{ nodes: '10%' }, { nodes: '2', schedule: '0 12 * * *', duration: '1h' }];
    const compiled = [...own, ...windowPlan(window).budgets];
    const withWindow = new BudgetSimulator(compiled, new Date(WEEK_START), new Date(WEEK_START + 8 * 1440 * MINUTE));
    const alone = new BudgetSimulator(own, new Date(WEEK_START), new Date(WEEK_START + 8 * 1440 * MINUTE));
    let heldDrift = 0;
    for (let t = WEEK_START; t < WEEK_START + 7 * 1440 * MINUTE; t += 15 * MINUTE) {
      expect(withWindow.allowed(t, 'Repair', 40)).toBe(alone.allowed(t, 'Repair', 40));
      if (withWindow.allowed(t, 'Drifted', 40) === 0) heldDrift++;
    }
    expect(heldDrift).toBeGreaterThan(0);
  });

  it('says so: the repair pace of a pool, inside and outside its window, by release and settings', () => {
    const budgets: Budget[] = [{ nodes: '10%' }, { nodes: '0', schedule: '0 9 * * 1-5', duration: '8h' }, ...windowPlan(WINDOWS[0]).budgets];
    const on = { nodeRepair: true };
    const pace = (version: string, settings = {}, gates: Record<string, boolean> = on) => repairText(repairPace(budgets, { version, budgetedRelease: version >= '1.15', featureGates: gates, settings }), true);
    expect(pace('1.15.0')).toBe('repaired up to 10% of the pool\'s nodes at a time, none during `0 9 * * 1-5` (UTC) for 8h, inside and outside the window alike (the window holds Drifted only)');
    expect(pace('1.15.0', { legacyNodeRepair: true })).toMatch(/^repaired as soon as its condition has lasted its toleration: settings\.legacyNodeRepair/);
    expect(pace('1.14.1')).toMatch(/^repaired as soon as its condition has lasted its toleration: Karpenter 1\.14\.1 repairs by its node health controller/);
    expect(pace('1.15.0', {}, {})).toMatch(/^node repair off/);
  });

  it('writes the pace on the cluster\'s page when node repair is on', () => {
    const cluster = aCluster([aPool(), aPool({}, { name: 'batch', team: 'batch' })], {
      id: 'prod', window: WINDOWS[0], karpenter: aKarpenter({ version: '1.15.0' }, { featureGates: { nodeRepair: true } }),
    });
    const lines = windowSummary(aPlatform([cluster]), cluster);
    expect(lines).toContain('Node repair (Karpenter 1.15.0): `web`, `batch`: repaired up to 10% of the pool\'s nodes at a time, inside and outside the window alike (the window holds Drifted only).');
    expect(windowSummary(aPlatform([{ ...cluster, karpenter: aKarpenter({ version: '1.15.0' }) }]), cluster).join('\n')).toMatch(/Node repair/);
    const off = { ...cluster, karpenter: aKarpenter({ version: '1.15.0' }) };
    expect(windowSummary(aPlatform([off]), off).join('\n')).not.toMatch(/Node repair/);
  });
});

describe('budgets and repair in the config', () => {
  const config = (version: string, budgets: string, gates = 'featureGates: { nodeRepair: true }') => ({
    rawConfig: [
      'gitops:',
      '  repoURL: https://github.com/acme/platform-gitops.git',
      `karpenter: { version: ${version}, controller: { ${gates} } }`,
      'clusters:',
      '  demo: { terraformOutputs: terraform/demo.json }',
      'defaults: { ami: { alias: al2023@v20250505 }, limits: { cpu: "100", memory: 400Gi } }',
      'teams:',
      '  web:',
      `    disruption: { budgets: ${budgets} }`,
    ].join('\n'),
  });

  it('refuses the reason Repair on a release whose NodePool CRD does not list it, at the reason', () => {
    expect(problemsOf(config('1.14.1', '[{ nodes: "1", reasons: [Repair] }]'))).toEqual([
      expect.stringMatching(/platform\.yaml:9:\d+: teams\.web\.disruption\.budgets\[0\]\.reasons\[0\]: cluster demo runs Karpenter 1\.14\.1, whose NodePool CRD does not accept the budget reason Repair \(allowed: Underutilized, Empty, Drifted\): on Karpenter 1\.15 node repair is paced by the budgets without reasons/),
    ]);
  });

  it('warns on 1.15 with node repair on that a zero budget without reasons holds broken nodes too, and not with reasons or on 1.14', () => {
    const freeze = '[{ nodes: "10%" }, { nodes: "0", schedule: "0 9 * * 1-5", duration: 8h }]';
    expect(warningsOf(config('1.15.0', freeze)).filter((w) => /node repair/.test(w))).toEqual([
      expect.stringMatching(/platform\.yaml:9:\d+: teams\.web\.disruption\.budgets\[1\]: on cluster demo \(Karpenter 1\.15\.0, featureGates\.nodeRepair\) node repair is a disruption paced by budgets, so this budget without reasons also keeps broken nodes of pool web from being replaced during `0 9 \* \* 1-5` \(UTC\) for 8h: add reasons: \[Underutilized, Empty, Drifted\]/),
    ]);
    expect(warningsOf(config('1.15.0', '[{ nodes: "0", schedule: "0 9 * * 1-5", duration: 8h, reasons: [Drifted] }]')).filter((w) => /node repair/.test(w))).toEqual([]);
    expect(warningsOf(config('1.14.1', freeze)).filter((w) => /node repair/.test(w))).toEqual([]);
  });
});

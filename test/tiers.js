// The slow tier of the tests (README, "Tests"; docs/performance.md, "Test suites"): `npm test`
// runs every suite but these, `npm run test:all` (what CI runs) runs them too. A suite is slow
// when it synthesizes fleets of a hundred clusters or more, starts many processes, regenerates a
// release or fuzzes; each says why.

/** The slow tier, each with why. */
module.exports.SLOW = {
  'test/output/processes.test.ts': 'kills synth processes at each step of a change and runs the next one',
  'test/output/open-files.test.ts': 'synthesizes 1,000 teams under ulimit -n 256',
  'test/review/fleet-scale.test.ts': 'two synths of 100 clusters x 20 pools and their review',
  'test/fleet-commands.test.ts': 'synth, fit and explain on 120 clusters',
  'test/fleet-groups.test.ts': 'the 120-cluster fleet of groups, changed and synthesized',
  'test/model/fleet-summary.test.ts': 'the fleet page at 120 and 500 clusters',
  'test/upgrade/release-1.15.test.ts': 'regenerates the vendored release data for a new release',
  'test/upgrade/upgrade.test.ts': 'runs npm run upgrade on a copy of the project',
  'test/upgrade/settings-generator.test.ts': 'regenerates the settings rules from the controller source',
  'test/fuzz/synth.test.ts': 'property-based: synthesizes a hundred random configs',
  'test/init/init.test.ts': 'runs init on copies of the project',
  'test/rollout-simulation.test.ts': 'simulates Argo CD, Karpenter and promotion through a rollout',
  'test/rollout-simulation-gate.test.ts': 'simulates the drift gate through a rollout',
  'test/rollout-simulation-promotion.test.ts': 'simulates promotion through stages',
  'test/gate/memory.test.ts': 'runs the gate on 3,000 NodeClaims under its memory limit',
  'test/config/schema-parity.test.ts': 'runs every schema field through the editor schema and the loader',
};

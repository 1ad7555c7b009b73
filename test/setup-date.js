// Every test runs on one fixed day, so that what depends on the day of a run (which Karpenter
// minors are still supported: src/config/support.ts) does not change under the suite as the
// calendar moves. A test of another day passes its own (runDate's env, or the variable to a
// process it starts). The commands read the clock when the variable is unset.
process.env.KARPENTER_GITOPS_TODAY = '2026-11-28';

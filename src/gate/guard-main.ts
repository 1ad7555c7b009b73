/**
 * The guard gate program, as its hook Job runs it: `node -e <the bundle of this file>` in the
 * official Node.js image, no shell and no npm package, configured by `GUARD` (JSON of a
 * GuardSpec). Exit 0 once the team's pools are guarded as the commit has them, 1 when the
 * configuration is wrong or the API server keeps denying the reads, 128 + the signal's number
 * when stopped (the Job's deadline ends it so).
 */
import { inClusterConfig, KubeApi, serverUrl } from './api';
import { runGuard } from './guard';
import { GUARD_ENV, parseGuardSpec } from './guard-spec';

const out = (line: string) => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

function main(): void {
  // As PID 1 of its container, a process without a handler is not ended by SIGTERM.
  process.on('SIGTERM', () => stop('SIGTERM', 15));
  process.on('SIGINT', () => stop('SIGINT', 2));
  const parsed = parseGuardSpec(process.env[GUARD_ENV]);
  if (!parsed.ok) {
    for (const p of parsed.problems) err(`error: ${p}`);
    process.exit(1);
  }
  const config = inClusterConfig(process.env);
  if ('problem' in config) {
    err(`error: ${config.problem}`);
    process.exit(1);
  }
  out(`reading ${serverUrl(config)} as the ServiceAccount of ${config.tokenFile}`);
  const api = new KubeApi(config, out, 'karpenter-gitops-guard-gate');
  const runtime = { now: () => Date.now(), sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)), out, err };
  void runGuard(parsed.spec, api, runtime).then((code) => {
    api.close();
    process.exit(code);
  });
}

function stop(signal: string, number: number): void {
  out(`stopped: ${signal}`);
  process.exit(128 + number);
}

main();

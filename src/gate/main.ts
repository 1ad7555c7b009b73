/**
 * The drift gate program, as the Job runs it: `node /gate/gate.js`, the bundle of this file
 * mounted from its ConfigMap, in the official Node.js image, no shell and no npm package, configured by `GATE` (JSON of a
 * GateSpec). Exit 0 when Karpenter is done with the revision, 1 when the configuration is
 * wrong or the API server keeps denying the reads, 128 + the signal's number when stopped.
 */
import { inClusterConfig, KubeApi, serverUrl } from './api';
import { runGate } from './run';
import { GATE_ENV, parseGateSpec } from './spec';

const out = (line: string) => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

function main(): void {
  // As PID 1 of its container, a process without a handler is not ended by SIGTERM.
  process.on('SIGTERM', () => stop('SIGTERM', 15));
  process.on('SIGINT', () => stop('SIGINT', 2));
  const parsed = parseGateSpec(process.env[GATE_ENV]);
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
  const api = new KubeApi(config, out);
  const runtime = { now: () => Date.now(), sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)), out, err };
  void runGate(parsed.spec, api, runtime).then((code) => {
    api.close();
    process.exit(code);
  });
}

function stop(signal: string, number: number): void {
  out(`stopped: ${signal}`);
  process.exit(128 + number);
}

main();

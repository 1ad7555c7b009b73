/**
 * The gate in-process against the API server stand-in, in simulated time: `sleep` advances
 * a clock at once and runs the events due by then (Argo CD applying, Karpenter looking), so
 * hours of waiting take a moment.
 */
import { Api, ClusterConfig, inClusterConfig, KubeApi } from '../../src/gate/api';
import type { GateRuntime } from '../../src/gate/look';
import { runGate } from '../../src/gate/run';
import type { GateSpec } from '../../src/gate/spec';
import type { KubeApiStandIn } from '../support/kube-api';

/** Thrown by the simulated sleep past the horizon: the gate was still waiting then. */
class Horizon extends Error {}

/** A line the gate wrote, with the simulated second it wrote it at. */
export interface Said {
  readonly at: number;
  readonly line: string;
}

/** How a simulated run ended. */
export interface Outcome {
  /** The exit code, or `still waiting` at the horizon. */
  readonly result: number | 'still waiting';
  /** Simulated seconds at the end. */
  readonly at: number;
  readonly out: readonly Said[];
  readonly err: readonly Said[];
}

/**
 * Runs the gate against the stand-in until it returns or `horizonSeconds` of simulated time
 * pass. `events` run once simulated time reaches their second (before the look after it).
 */
export function simulate(api: KubeApiStandIn, spec: GateSpec, options: { horizonSeconds: number; events?: readonly [number, () => void][] }): Promise<Outcome> {
  return simulateProgram(runGate, api, spec, options);
}

/** {@link simulate} for any gate program's run function (the drift gate's runGate, the guard gate's runGuard). */
export async function simulateProgram<S>(
  run: (spec: S, api: Api, runtime: GateRuntime) => Promise<number>, api: KubeApiStandIn, spec: S,
  options: { horizonSeconds: number; events?: readonly [number, () => void][] },
): Promise<Outcome> {
  let now = 0;
  const pending = [...(options.events ?? [])].sort((a, b) => a[0] - b[0]);
  const out: Said[] = [];
  const err: Said[] = [];
  const runtime = {
    now: () => now,
    sleep: (ms: number) => {
      now += ms;
      if (now > options.horizonSeconds * 1000) return Promise.reject(new Horizon());
      while (pending.length && pending[0][0] * 1000 <= now) pending.shift()![1]();
      return Promise.resolve();
    },
    out: (line: string) => out.push({ at: now / 1000, line }),
    err: (line: string) => err.push({ at: now / 1000, line }),
  };
  const client = new KubeApi(inClusterConfig(api.env()) as ClusterConfig, runtime.out);
  try {
    return { result: await run(spec, client, runtime), at: now / 1000, out, err };
  } catch (e) {
    if (e instanceof Horizon) return { result: 'still waiting', at: now / 1000, out, err };
    throw e;
  } finally {
    client.close();
  }
}

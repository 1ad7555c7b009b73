import { App, Chart } from 'cdk8s';
import { NodePoolChart } from './charts/node-pool-chart';
import type { Platform } from './config/platform';
import { renderYaml } from './output/render';

/**
 * Builds every generated file of a platform in memory: path (relative to the
 * output root) to YAML text. Writes nothing.
 *
 * Each file gets its own cdk8s App: `Chart.toJson()` walks the whole App it
 * belongs to, so one App holding every chart would make synth quadratic in pools.
 */
export function synthesize(platform: Platform): Map<string, string> {
  const files = new Map<string, string>();
  const add = (path: string, build: (app: App) => Chart) => {
    files.set(path, renderYaml(build(new App({ outdir: '.' })).toJson()));
  };
  for (const cluster of platform.clusters) {
    for (const pool of cluster.pools) {
      add(`dist/${cluster.id}/nodepools/${pool.name}.yaml`, (app) => new NodePoolChart(app, pool.name, { cluster, pool }));
    }
  }
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1)));
}

import { explainPool, renderExplanation } from '../explain/explain';
import { loadPlan } from '../model/checks';
import type { Options } from './build';
import { EXIT, Reporter } from './reporter';

/** `explain CLUSTER/POOL`: every resolved field with its origin, the instance types, prices and the cost bound (contract 5.3). */
export function explain(say: Reporter, { configPath }: Options, target: string, format: 'terminal' | 'json'): number {
  const [clusterId, poolName] = target.split('/');
  const { platform, plan } = loadPlan(configPath, { ...say.loadOptions, provenance: true });
  const explanation = explainPool(platform, clusterId, poolName, plan);
  if (typeof explanation === 'string') {
    say.error(explanation);
    return EXIT.failed;
  }
  say.out(format === 'json' ? JSON.stringify(explanation, null, 2) : renderExplanation(explanation).trimEnd());
  return EXIT.ok;
}

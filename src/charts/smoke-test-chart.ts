import { Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-31';
import { Construct } from 'constructs';
import { SmokeTestDeployment } from '../constructs/smoke-test-deployment';
import { MANAGED_BY } from '../model/node-pool';
import type { SmokeTestModel } from '../model/smoke-test';

/** Properties of a {@link SmokeTestChart}. */
export interface SmokeTestChartProps {
  /** The smoke test of one pool: the Deployment that fits only on it. */
  readonly test: SmokeTestModel;
  /** Namespace of the smoke tests. */
  readonly namespace: string;
}

/** `dist/<cluster>/smoke-tests/<pool>.yaml`: the Deployment that only fits on that pool. */
export class SmokeTestChart extends Chart {
  public constructor(scope: Construct, id: string, props: SmokeTestChartProps) {
    super(scope, id, { disableResourceNameHashes: true, labels: { 'app.kubernetes.io/managed-by': MANAGED_BY } });
    new SmokeTestDeployment(this, 'Test', { test: props.test, namespace: props.namespace });
  }
}

/** Properties of a {@link SmokeTestNamespaceChart}. */
export interface SmokeTestNamespaceChartProps {
  /** Name of the namespace. */
  readonly namespace: string;
}

/**
 * `dist/<cluster>/smoke-tests/_namespace.yaml`: the namespace of the smoke tests,
 * enforcing the restricted Pod Security profile. (A pool name cannot start with
 * `_`, so the file never clashes with a pool's.)
 */
export class SmokeTestNamespaceChart extends Chart {
  public constructor(scope: Construct, id: string, props: SmokeTestNamespaceChartProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new kplus.Namespace(this, 'Namespace', {
      metadata: {
        name: props.namespace,
        labels: {
          'app.kubernetes.io/managed-by': MANAGED_BY,
          'pod-security.kubernetes.io/enforce': 'restricted',
          'pod-security.kubernetes.io/enforce-version': 'latest',
          'pod-security.kubernetes.io/warn': 'restricted',
          'pod-security.kubernetes.io/audit': 'restricted',
        },
      },
    });
  }
}

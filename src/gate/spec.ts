/**
 * What the drift gate waits for, as the model writes it into the Job's `GATE` environment
 * variable (JSON): the contract between the generator and the gate program.
 */

/** One object of this revision: its name and the digest the generator wrote on it. */
export interface GateObject {
  readonly name: string;
  /** The value of the object's {@link DIGEST_ANNOTATION} annotation in this revision. */
  readonly digest: string;
}

/** The Karpenter controller a gate waits for. */
export interface GateController {
  readonly namespace: string;
  /** The controller Deployment's name (the chart's fullname, `karpenter` by default). */
  readonly deployment: string;
  /**
   * The Deployment's `helm.sh/chart` label, `<chart>-<version>` (e.g. `karpenter-1.14.1`).
   * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/charts/karpenter/templates/_helpers.tpl#L29-L37
   */
  readonly chart: string;
  /** The Deployment's `spec.template.metadata.annotations["karpenter-gitops.io/values-digest"]` ({@link VALUES_DIGEST_ANNOTATION}). */
  readonly valuesDigest: string;
}

/**
 * The configuration of the drift gate program (`GATE`, JSON): a stage-N cluster receives a
 * revision only after every stage-(N-1) cluster has synced it and Karpenter is done with it.
 */
export interface GateSpec {
  /** The cluster's id, for the log. */
  readonly cluster: string;
  /** The Karpenter controller Deployment: it must run this chart version with these values, rolled out and available. */
  readonly controller: GateController;
  /** The objects of this revision, each with the digest annotation `karpenter-gitops.io/digest` the generator wrote on it. */
  readonly nodePools: readonly GateObject[];
  readonly nodeClasses: readonly GateObject[];
  readonly nodeOverlays: readonly GateObject[];
  /** Seconds all conditions must hold without a break before the gate passes (≥ one drift re-evaluation, 5 min). */
  readonly settleSeconds: number;
  /** Seconds between two looks. */
  readonly pollSeconds: number;
}

/** The annotation the generator writes on every NodePool, EC2NodeClass and NodeOverlay: the digest of the object as generated. */
export const DIGEST_ANNOTATION = 'karpenter-gitops.io/digest';
/** The annotation the generator writes on the controller's pod template: the digest of the chart values. */
export const VALUES_DIGEST_ANNOTATION = 'karpenter-gitops.io/values-digest';
/** The ClusterRole that lets the gate read what it looks at; named in the message when the API server denies a read. */
export const GATE_CLUSTER_ROLE = 'karpenter-gitops-drift-gate';
/** One rule of the gate's RBAC (`rbac.authorization.k8s.io/v1` PolicyRule). */
export interface GateRbacRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  /**
   * Granted by a Role in the controller's namespace, for the controller's Deployment by name
   * only, not by the ClusterRole. @default false
   */
  readonly controllerOnly?: boolean;
}

/**
 * Everything the gate reads: it gets each object of the revision (the rules of
 * {@link GATE_CLUSTER_ROLE}) and the controller Deployment (a Role for that one name), and lists
 * the NodeClaims of the pools. Nothing else: the gate only ever reads.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/rbac/#role-and-clusterrole
 */
export const GATE_RBAC_RULES: readonly GateRbacRule[] = [
  { apiGroups: ['karpenter.sh'], resources: ['nodepools', 'nodeoverlays'], verbs: ['get'] },
  { apiGroups: ['karpenter.sh'], resources: ['nodeclaims'], verbs: ['list'] },
  { apiGroups: ['karpenter.k8s.aws'], resources: ['ec2nodeclasses'], verbs: ['get'] },
  { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'], controllerOnly: true },
];
/** The environment variable that holds the {@link GateSpec} as JSON. */
export const GATE_ENV = 'GATE';

/** A parsed {@link GateSpec}, or every problem of the given text, one line each. */
export type ParsedSpec = { readonly ok: true; readonly spec: GateSpec } | { readonly ok: false; readonly problems: readonly string[] };

/**
 * Reads `GATE`: JSON of a {@link GateSpec}. Every problem is reported, one line each
 * (`GATE: controller.chart: expected a non-empty string, got 42`).
 */
export function parseGateSpec(text: string | undefined): ParsedSpec {
  if (text === undefined || text.trim() === '') return { ok: false, problems: [`${GATE_ENV}: not set: the Job passes the gate's configuration as JSON in ${GATE_ENV}`] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, problems: [`${GATE_ENV}: not JSON: ${(err as Error).message}`] };
  }
  const problems: string[] = [];
  const at = (path: string, want: string, got: unknown) => problems.push(`${GATE_ENV}: ${path}: expected ${want}, got ${JSON.stringify(got) ?? 'nothing'}`);
  const record = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
  const str = (o: Record<string, unknown>, key: string, path: string) => {
    if (typeof o[key] !== 'string' || o[key] === '') at(path, 'a non-empty string', o[key]);
  };
  const positive = (o: Record<string, unknown>, key: string) => {
    if (typeof o[key] !== 'number' || !Number.isFinite(o[key]) || o[key] <= 0) at(key, 'a number of seconds above 0', o[key]);
  };
  const root = record(value);
  if (!root) return { ok: false, problems: [`${GATE_ENV}: expected a JSON object, got ${JSON.stringify(value)}`] };
  str(root, 'cluster', 'cluster');
  const controller = record(root.controller);
  if (!controller) at('controller', 'an object', root.controller);
  else for (const key of ['namespace', 'deployment', 'chart', 'valuesDigest']) str(controller, key, `controller.${key}`);
  for (const key of ['nodePools', 'nodeClasses', 'nodeOverlays']) {
    const list = root[key];
    if (!Array.isArray(list)) {
      at(key, 'a list', list);
      continue;
    }
    list.forEach((item, i) => {
      const o = record(item);
      if (!o) at(`${key}[${i}]`, 'an object with name and digest', item);
      else for (const field of ['name', 'digest']) str(o, field, `${key}[${i}].${field}`);
    });
  }
  positive(root, 'settleSeconds');
  positive(root, 'pollSeconds');
  return problems.length ? { ok: false, problems } : { ok: true, spec: value as GateSpec };
}

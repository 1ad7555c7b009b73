/**
 * CEL expressions in an EC2NodeClass's kubelet (`maxPods`, `kubeReserved`, `systemReserved`;
 * Karpenter 1.15, behind the AWS feature gate NodeClassCEL), compiled and evaluated for an
 * instance type as the controller does: its variables and functions, its conversion of a double
 * result, its range check of maxPods and its rounding of reserved resources. Transcribed from
 * aws/karpenter-provider-aws at 1d927085.
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/cel/environment.go
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/providers/instancetype/types.go
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/designs/dynamic-kubelet-configuration-via-expressions.md
 */
import type * as Cel from '@bufbuild/cel';
import type { InstanceType } from '../catalog/catalog';
import { isQuantity } from '../config/kubelet';

/**
 * The variables of an expression: environment.go L54-L76. `default_enis` and `ips_per_eni` come
 * from EC2's DescribeInstanceTypes, which the catalog does not carry.
 */
export interface ExpressionVars {
  readonly vcpus: bigint;
  readonly memory_mib: bigint;
  readonly max_pods: bigint;
  readonly instance_type: string;
}

/** Variables the controller has and the catalog does not: an expression using one is compiled but not evaluated here. */
const UNKNOWN_VARIABLES = ['default_enis', 'ips_per_eni'] as const;

let celLibrary: typeof Cel | undefined;
/**
 * The CEL library, loaded on the first expression: most fleets have none, and loading it cost
 * every command (and every test suite that loads a config) about 0.15 s.
 */
function cel(): typeof Cel {
  return (celLibrary ??= require('@bufbuild/cel'));
}

/** `max` and `min` over int and double, a mixed pair giving a double: environment.go L95-L179. */
function minMax({ celFunc, CelScalar }: typeof Cel) {
  const I = CelScalar.INT;
  const D = CelScalar.DOUBLE;
  return (['max', 'min'] as const).flatMap((name) => {
    const pick = (l: number | bigint, r: number | bigint) => (name === 'max' ? (l > r ? l : r) : (l < r ? l : r));
    return [
      celFunc(name, [I, I], I, (l, r) => pick(l, r) as bigint),
      celFunc(name, [D, D], D, (l, r) => pick(l, r) as number),
      celFunc(name, [I, D], D, (l, r) => pick(Number(l), r) as number),
      celFunc(name, [D, I], D, (l, r) => pick(l, Number(r)) as number),
    ];
  });
}

/** The controller's CEL environment, made on first use: most fleets have no expression. */
let env: ReturnType<typeof Cel.celEnv> | undefined;
function ENV(): ReturnType<typeof Cel.celEnv> {
  if (env) return env;
  const library = cel();
  const I = library.CelScalar.INT;
  env = library.celEnv({
    variables: { vcpus: I, memory_mib: I, max_pods: I, instance_type: library.CelScalar.STRING, default_enis: I, ips_per_eni: I },
    funcs: minMax(library),
  });
  return env;
}

/** Compiled expressions by their text: one pool's expression is evaluated for every type it admits, on every cluster. */
const compiled = new Map<string, Compiled>();

const MAX_INT32 = 2147483647n;

/** A compiled expression, or why it does not compile. */
export type Compiled = { readonly run: (vars: ExpressionVars) => bigint | string } | { readonly error: string };

/**
 * Compiles an expression (environment.go L214-L233) into a function giving its integer result for
 * one instance type (L238-L277: an int as is; a double truncated toward zero, refused when not
 * finite; any other type refused, which cel-go finds when compiling), or what went wrong.
 */
export function compileExpression(expression: string): Compiled {
  let found = compiled.get(expression);
  if (!found) {
    found = compile(expression);
    compiled.set(expression, found);
  }
  return found;
}

function compile(expression: string): Compiled {
  let evaluate: (vars: Record<string, unknown>) => unknown;
  try {
    evaluate = cel().plan(ENV(), cel().parse(expression)) as (vars: Record<string, unknown>) => unknown;
  } catch (err) {
    return { error: `does not compile: ${(err as Error).message.split('\n')[0]}` };
  }
  return {
    run: (vars) => {
      const out = evaluate({ ...vars });
      if (cel().isCelError(out)) return out.message === 'unresolved attribute' ? 'uses a variable Karpenter does not define (vcpus, memory_mib, default_enis, ips_per_eni, max_pods, instance_type)' : out.message;
      if (typeof out === 'bigint') return out;
      if (typeof out === 'number') return Number.isFinite(out) ? BigInt(Math.trunc(out)) : `returned a non-finite value (${out})`;
      return `must return int or double, returned ${typeof out === 'string' ? 'a string' : typeof out}`;
    },
  };
}

/** The variables of one instance type of the catalog: types.go L268-L279 (buildCELVars). */
export function expressionVars(type: InstanceType, maxPods: bigint): ExpressionVars {
  return {
    vcpus: BigInt(type.labels.get('karpenter.k8s.aws/instance-cpu') ?? '0'),
    memory_mib: BigInt(type.labels.get('karpenter.k8s.aws/instance-memory') ?? '0'),
    max_pods: maxPods,
    instance_type: type.name,
  };
}

/**
 * maxPods's result must be in [0, MaxInt32]: types.go L224-L231 (resolveMaxPods).
 */
function maxPodsProblem(result: bigint): string | undefined {
  return result < 0n || result > MAX_INT32 ? `evaluated to ${result}, outside the valid range [0, ${MAX_INT32}]` : undefined;
}

/**
 * A reserved resource's result: a negative one is refused (types.go L176-L185), the rest become a
 * quantity in the key's unit, cpu rounded up to 10m and memory to 16Mi (environment.go L49-L50,
 * L365-L390: formatResourceResult and roundUpTo).
 */
export function reservedQuantity(key: string, result: bigint): string {
  switch (key) {
    case 'cpu': return `${roundUpTo(result, 10n)}m`;
    case 'memory': return `${roundUpTo(result, 16n)}Mi`;
    case 'ephemeral-storage': return `${result}Gi`;
    default: return String(result);
  }
}

/** environment.go L382-L390: exact multiples and zero untouched; no overflow past MaxInt64. */
function roundUpTo(value: bigint, granularity: bigint): bigint {
  if (granularity <= 1n || value <= 0n || value % granularity === 0n) return value;
  if (value > 9223372036854775807n - granularity) return value;
  return (value / granularity + 1n) * granularity;
}

/** Whether a kubelet configuration holds a CEL expression: kubeletconfiguration.go L117-L150 (HasExpressions). */
export function hasExpressions(kubelet: Readonly<Record<string, unknown>> | undefined): boolean {
  if (!kubelet) return false;
  if (typeof kubelet.maxPods === 'string') return true;
  return ['kubeReserved', 'systemReserved'].some((f) => Object.values((kubelet[f] ?? {}) as Record<string, unknown>).some((v) => typeof v === 'string' && !isQuantity(v)));
}

/** One expression's outcome over the admitted types. */
export interface ExpressionFinding {
  /** `maxPods`, `kubeReserved.cpu`. */
  readonly field: string;
  readonly message: string;
  readonly severity: 'error' | 'warning';
}

/**
 * Every expression of a pool's kubelet, evaluated for each instance type it admits: a compile
 * error, or the types where it fails or leaves its range, as the controller would find them when
 * launching one (types.go L157-L231). `max_pods` is the type's default for maxPods's own
 * expression (types.go L214), and maxPods's result, where it is set, for the reserved ones.
 */
export function expressionFindings(kubelet: Readonly<Record<string, unknown>>, admitted: readonly InstanceType[]): ExpressionFinding[] {
  const out: ExpressionFinding[] = [];
  const expressions: [string, string][] = [];
  if (typeof kubelet.maxPods === 'string') expressions.push(['maxPods', kubelet.maxPods]);
  for (const f of ['kubeReserved', 'systemReserved']) {
    for (const [k, v] of Object.entries((kubelet[f] ?? {}) as Record<string, unknown>)) if (typeof v === 'string' && !isQuantity(v)) expressions.push([`${f}.${k}`, v]);
  }
  const compiled = new Map(expressions.map(([field, e]) => [field, compileExpression(e)]));
  const maxPodsOf = (t: InstanceType): bigint => {
    const fallback = BigInt(t.allocatable.get('pods') ?? 0);
    if (typeof kubelet.maxPods === 'number') return BigInt(kubelet.maxPods);
    const c = compiled.get('maxPods');
    if (!c || 'error' in c) return fallback;
    const r = c.run(expressionVars(t, fallback));
    return typeof r === 'bigint' && !maxPodsProblem(r) ? r : fallback;
  };
  for (const [field, expression] of expressions) {
    const c = compiled.get(field);
    if (!c) continue;
    if ('error' in c) {
      out.push({ field, severity: 'error', message: `CEL expression "${expression}" ${c.error}` });
      continue;
    }
    const unknown = UNKNOWN_VARIABLES.filter((v) => new RegExp(`\\b${v}\\b`).test(expression));
    if (unknown.length) {
      out.push({ field, severity: 'warning', message: `CEL expression "${expression}" uses ${unknown.join(' and ')}, which the instance catalog does not carry: it was compiled but not evaluated for the pool's instance types` });
      continue;
    }
    const failures: string[] = [];
    for (const t of admitted) {
      const maxPods = field === 'maxPods' ? BigInt(t.allocatable.get('pods') ?? 0) : maxPodsOf(t);
      const r = c.run(expressionVars(t, maxPods));
      const why = typeof r === 'string' ? r : field === 'maxPods' ? maxPodsProblem(r) : r < 0n ? `evaluated to a negative value (${r})` : undefined;
      if (why) failures.push(`${t.name}: ${why}`);
    }
    if (failures.length) {
      out.push({
        field, severity: 'error',
        message: `CEL expression "${expression}" fails on ${failures.length} of the ${admitted.length} instance types the pool admits (${failures.slice(0, 3).join('; ')}${failures.length > 3 ? '; …' : ''}): `
          + 'Karpenter could not launch those types; fix the expression (e.g. bound it with max(0, …) or min(…))',
      });
    }
  }
  return out;
}

/**
 * The kubelet configuration one instance type's node gets: each CEL expression replaced by its
 * result for that type, as the controller writes it into the node's configuration (maxPods first,
 * its result the reserved expressions' `max_pods`: types.go L157-L231; reserved results rounded by
 * {@link reservedQuantity}). An expression that fails there, or uses a variable the catalog lacks,
 * is left out (the type's default stands; synth has already reported it). `fit` places pods with it.
 */
export function kubeletForType<K extends { readonly maxPods?: number | string; readonly kubeReserved?: Readonly<Record<string, string>>; readonly systemReserved?: Readonly<Record<string, string>> }>(kubelet: K, type: InstanceType): K {
  if (!hasExpressions(kubelet as Readonly<Record<string, unknown>>)) return kubelet;
  const fallback = BigInt(type.allocatable.get('pods') ?? 0);
  const evaluate = (expression: string, maxPods: bigint): bigint | undefined => {
    if (UNKNOWN_VARIABLES.some((v) => new RegExp(`\\b${v}\\b`).test(expression))) return undefined;
    const c = compileExpression(expression);
    if ('error' in c) return undefined;
    const r = c.run(expressionVars(type, maxPods));
    return typeof r === 'bigint' ? r : undefined;
  };
  let maxPods: number | undefined = typeof kubelet.maxPods === 'number' ? kubelet.maxPods : undefined;
  if (typeof kubelet.maxPods === 'string') {
    const r = evaluate(kubelet.maxPods, fallback);
    maxPods = r !== undefined && !maxPodsProblem(r) ? Number(r) : undefined;
  }
  const reserved = (map: Readonly<Record<string, string>> | undefined) => {
    if (!map) return undefined;
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(map)) {
      if (isQuantity(v)) {
        out[k] = v;
        continue;
      }
      const r = evaluate(v, maxPods !== undefined ? BigInt(maxPods) : fallback);
      if (r !== undefined && r >= 0n) out[k] = reservedQuantity(k, r);
    }
    return out;
  };
  const { maxPods: _m, kubeReserved, systemReserved, ...rest } = kubelet;
  return {
    ...rest,
    ...(maxPods !== undefined ? { maxPods } : {}),
    ...(kubeReserved ? { kubeReserved: reserved(kubeReserved) } : {}),
    ...(systemReserved ? { systemReserved: reserved(systemReserved) } : {}),
  } as unknown as K;
}

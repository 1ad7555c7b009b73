import { release, releaseProblem } from './release';
import type { CrdDefault, CrdKind } from './types';

/**
 * The defaults of one field of a kind's schema and of the fields inside it, from the release's
 * {@link CrdDefault} paths: the part of the structural schema the API server's defaulting walks.
 */
interface DefaultsNode {
  /** The field's own default. @default - none: only fields inside it have one */
  value?: unknown;
  /** Its properties with a default at or inside them. */
  readonly properties: Map<string, DefaultsNode>;
  /** Every item of it, an array (`[]`). @default - no item default */
  items?: DefaultsNode;
  /** Every value of it, a map (`.*`, the schema's `additionalProperties`). @default - no map value default */
  values?: DefaultsNode;
}

/**
 * `object` (JSON data, as parsed from YAML or JSON) as the API server stores it on CREATE once
 * the `kind` CRD of Karpenter `version` has defaulted it (its `crdDefaults`, from
 * {@link release}): a deep copy, with each default set where its field is absent or null, inside
 * an object, array item or map value that is there; a default that sets an object is set first,
 * then the defaults inside it. Defaults only: nothing is pruned and nothing validated. The input
 * is not modified.
 *
 * A null is taken as the API server takes a non-nullable one, since no defaulted field of these
 * CRDs is nullable (the upgrade refuses a CRD with one).
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#defaulting
 * @see https://github.com/kubernetes/kubernetes/blob/94341df30b4aef29676b997d0e2320534d05bfab/staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting/algorithm.go
 *   (k8s.io/apiextensions-apiserver `Default`)
 * @throws when no vendored release answers for `version` (see {@link releaseProblem})
 */
export function withCrdDefaults(kind: CrdKind, object: unknown, version: string): unknown {
  const facts = release(version);
  if (facts === undefined) throw new Error(releaseProblem(version) ?? `no vendored release answers for Karpenter ${version}`);
  const copy = copyJson(object);
  applyDefaults(copy, defaultsTree(facts.crdDefaults[kind]));
  return copy;
}

/** The tree of `defaults` by field: `spec.disruption.budgets[].nodes` under `spec`, `disruption`, `budgets`, `[]`. */
function defaultsTree(defaults: readonly CrdDefault[]): DefaultsNode {
  const root: DefaultsNode = { properties: new Map() };
  for (const { path, value } of defaults) {
    let node = root;
    for (const step of path.match(/\[\]|[^.[\]]+/g) ?? []) {
      if (step === '[]') node = node.items ??= { properties: new Map() };
      else if (step === '*') node = node.values ??= { properties: new Map() };
      else {
        const child = node.properties.get(step) ?? { properties: new Map() };
        node.properties.set(step, child);
        node = child;
      }
    }
    node.value = value;
  }
  return root;
}

/**
 * `Default` of apiextensions-apiserver on `x`, in place: an object's absent or null properties
 * first, then every member (those just set too); every item of an array. A null default is no
 * default (`prop.Default.Object == nil`). A schema never has both `properties` and
 * `additionalProperties` (structural schemas forbid it), so a member is one or the other.
 */
function applyDefaults(x: unknown, node: DefaultsNode): void {
  if (Array.isArray(x)) {
    const { items } = node;
    if (items === undefined) return;
    x.forEach((item, i) => {
      if (item === null && hasDefault(items)) x[i] = copyJson(items.value);
      applyDefaults(x[i], items);
    });
    return;
  }
  if (!isObject(x)) return;
  for (const [key, property] of node.properties) {
    if (hasDefault(property) && (!Object.hasOwn(x, key) || x[key] === null)) setMember(x, key, copyJson(property.value));
  }
  for (const key of Object.keys(x)) {
    const property = node.properties.get(key);
    if (property !== undefined) applyDefaults(x[key], property);
    else if (node.values !== undefined) {
      if (x[key] === null && hasDefault(node.values)) setMember(x, key, copyJson(node.values.value));
      applyDefaults(x[key], node.values);
    }
  }
}

function hasDefault(node: DefaultsNode): boolean {
  return node.value !== undefined && node.value !== null;
}

/** A deep copy of JSON data, as the API server decodes it: a member that is undefined is left out, an undefined item is null. */
function copyJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item: unknown) => (item === undefined ? null : copyJson(item)));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) if (member !== undefined) setMember(out, key, copyJson(member));
  return out;
}

/** Sets a member as JSON decoding does: a `__proto__` key is an ordinary member, not the prototype. */
function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

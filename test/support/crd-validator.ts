/**
 * A test-only stand-in for what the Kubernetes API server does with a custom resource on CREATE,
 * driven by the vendored CRDs: Karpenter's from the release the generator was made from
 * (`test/fixtures/karpenter-release/pkg/apis/crds/`, replaced by `npm run upgrade`), Argo CD's
 * from `test/fixtures/crds/` (see the READMEs there for versions).
 *
 * The steps follow the API server's own order:
 * 1. decoding: unknown fields are pruned, non-nullable nulls without a default are dropped, ObjectMeta is coerced
 *    (apiextensions-apiserver `customresource_handler.go`, `unstructuredSchemaCoercer.apply`);
 * 2. defaulting from `default:` (`schema/defaulting/algorithm.go`);
 * 3. `PrepareForCreate` drops `status` when the status subresource is on, `BeforeCreate` clears the namespace of a
 *    cluster-scoped object (`registry/customresource/strategy.go`, apiserver `registry/rest/meta.go`);
 * 4. validation: ObjectMeta name/namespace, the OpenAPI v3 schema (compiled for ajv), list-type set/map uniqueness,
 *    the scale subresource's replicas, then the CEL `x-kubernetes-validations` rules, which are skipped when an
 *    earlier error is of a blocking type (`strategy.go`, `hasBlockingErr`).
 *
 * Where the API server silently drops a field (1 and 3), this validator reports a problem as well: the project
 * never wants a field it writes to disappear.
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/
 *
 * Upstream: MODELS.kubernetes (test/support/upstream.ts names the release; its test fails once the project moves past it).
 */
import { readdirSync, readFileSync } from 'fs';
import * as path from 'path';
import Ajv, { type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import {
  celEnv,
  celMethod,
  CelScalar,
  isCelError,
  listType,
  parse as parseCel,
  plan,
  type CelInput,
  type CelResult,
} from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { parseAllDocuments } from 'yaml';

// ==== Types

/** A JSON value: what the API server decodes a manifest into. */
type Json = null | boolean | number | string | Json[] | JsonObject;
interface JsonObject {
  [key: string]: Json;
}

/** One entry of `x-kubernetes-validations`. */
interface ValidationRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly fieldPath?: string;
  readonly reason?: string;
  readonly optionalOldSelf?: boolean;
}

/** The structural-schema subset of OpenAPI v3 that CRDs use. */
interface Schema {
  readonly [keyword: string]: unknown;
  readonly type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly additionalProperties?: Schema | boolean;
  readonly items?: Schema;
  readonly default?: Json;
  readonly nullable?: boolean;
  readonly format?: string;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
  readonly 'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  readonly 'x-kubernetes-validations'?: readonly ValidationRule[];
}

/** One served version of a CRD. */
interface Crd {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly statusSubresource: boolean;
  readonly specReplicasPath?: string;
  readonly schema: Schema;
}

/** A problem at a field; `blocking` marks the error types that stop CEL rules from running. */
interface Problem {
  readonly path: string;
  readonly message: string;
  readonly blocking?: boolean;
}

type Report = (problem: Problem) => void;

// ==== Public API

/**
 * Validates a manifest as the API server would on CREATE.
 *
 * @returns one line per problem, `<kind>/<name>: <path>: <message>`; empty when the API server would accept the
 *   object and keep every field it was given
 */
export function validate(obj: unknown): string[] {
  const label = objectLabel(obj);
  return checkCreate(obj).map((problem) => `${label}: ${problem.path || '(root)'}: ${problem.message}`);
}

/**
 * Validates a manifest as a cluster running Karpenter `release` would: against that release's
 * NodePool and EC2NodeClass CRDs (`test/fixtures/karpenter-crds/v<release>/`, kept by each upgrade).
 *
 * @throws when the release's CRDs are not vendored
 */
export function validateFor(release: string, obj: unknown): string[] {
  const label = objectLabel(obj);
  return checkCreate(obj, release).map((problem) => `${label}: ${problem.path || '(root)'}: ${problem.message}`);
}

/**
 * The object as the API server would store it on CREATE: pruned, defaulted, status and a cluster-scoped namespace
 * dropped. `expect(defaulted(x)).toEqual(x)` means there is nothing for the server to fill in or drop, so Argo CD
 * sees no drift. The input is not modified.
 *
 * @param release - Karpenter's CRDs of that release (see {@link validateFor}) @default - the release of test/fixtures/karpenter-release
 * @throws when no vendored CRD serves the object's apiVersion and kind
 */
export function defaulted(obj: unknown, release?: string): unknown {
  const found = lookUpCrd(obj, release);
  if ('problem' in found) {
    throw new Error(`crd-validator: ${objectLabel(obj)}: ${found.problem.path || '(root)'}: ${found.problem.message}`);
  }
  return admit(found.crd, found.object, () => undefined);
}


/** The `apiVersion kind` pairs the vendored CRDs serve, sorted. */
export function knownKinds(): string[] {
  return [...crds().values()].map((crd) => `${crd.apiVersion} ${crd.kind}`).sort();
}

// ==== The CREATE pipeline

function checkCreate(obj: unknown, release?: string): Problem[] {
  const found = lookUpCrd(obj, release);
  if ('problem' in found) return [found.problem];
  return checkAgainst(found.crd, found.object);
}

/** What the API server reports creating `given` of a kind `crd` serves: pruning, metadata, schema, then (unless blocked) the CEL rules. */
function checkAgainst(crd: Crd, given: JsonObject): Problem[] {
  const problems: Problem[] = [];
  const report: Report = (problem) => problems.push(problem);
  const object = admit(crd, given, report);
  validateMetadata(crd, object, report);
  schemaProblems(crd, object).forEach(report);
  validateScaleReplicas(crd, object, report);
  if (problems.some((problem) => problem.blocking)) {
    report({
      path: '',
      message: 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    });
  } else {
    ruleProblems(crd.schema, object).forEach(report);
  }
  return problems;
}

/** Decoding, defaulting and the create strategy: every step that changes the object. */
function admit(crd: Crd, object: JsonObject, report: Report): JsonObject {
  prune(object, crd.schema, '', report, true);
  pruneNonNullableNulls(object, crd.schema, '', report);
  coerceMetadata(object, report);
  applyDefaults(object, crd.schema);
  dropStatusOnCreate(crd, object, report);
  clearClusterScopedNamespace(crd, object, report);
  return object;
}

function dropStatusOnCreate(crd: Crd, object: JsonObject, report: Report): void {
  if (!crd.statusSubresource || !('status' in object)) return;
  report({ path: 'status', message: 'set by the controller: the API server drops it on create (status subresource)' });
  delete object.status;
}

type Lookup = { readonly crd: Crd; readonly object: JsonObject } | { readonly problem: Problem };

function lookUpCrd(obj: unknown, release?: string): Lookup {
  const object = cloneJson(obj, '(root)');
  if (!isJsonObject(object)) return { problem: { path: '', message: `must be an object, got ${show(object)}` } };
  const { apiVersion, kind } = object;
  const crd = crds(release).get(`${String(apiVersion)} ${String(kind)}`);
  if (crd === undefined) {
    return {
      problem: {
        path: 'kind',
        message: `no vendored CRD serves apiVersion ${show(apiVersion ?? null)} kind ${show(kind ?? null)} (known: ${knownKinds().join(', ')})`,
      },
    };
  }
  return { crd, object };
}

function objectLabel(obj: unknown): string {
  const object = isPlainObject(obj) ? obj : {};
  const metadata = isPlainObject(object.metadata) ? object.metadata : {};
  const kind = typeof object.kind === 'string' ? object.kind : '<no kind>';
  const name = typeof metadata.name === 'string' ? metadata.name : '<no name>';
  return `${kind}/${name}`;
}

// ==== Loading the vendored CRDs

const CRD_DIRS = [path.join(__dirname, '..', 'fixtures', 'karpenter-release', 'pkg', 'apis', 'crds'), path.join(__dirname, '..', 'fixtures', 'crds')];

let crdsByType: ReadonlyMap<string, Crd> | undefined;
const releaseCrdDirs = new Map<string, string>();

/**
 * Where a release's Karpenter CRDs are when this repository does not vendor it: a release an
 * upgrade test made in a copy of the repository (its `test/fixtures/karpenter-crds/v<release>/`).
 */
export function useReleaseCrds(release: string, dir: string): void {
  releaseCrdDirs.set(release, dir);
  crdsOfRelease.delete(release);
}
const crdsOfRelease = new Map<string, ReadonlyMap<string, Crd>>();

/** The vendored CRDs by `apiVersion kind`, read once; with `release`, Karpenter's are that release's. */
function crds(release?: string): ReadonlyMap<string, Crd> {
  if (release === undefined) {
    crdsByType ??= loadCrds(CRD_DIRS);
    return crdsByType;
  }
  let found = crdsOfRelease.get(release);
  if (!found) {
    found = loadCrds([path.join(__dirname, '..', 'fixtures', 'crds'), releaseCrdDirs.get(release) ?? path.join(__dirname, '..', 'fixtures', 'karpenter-crds', `v${release}`)]);
    crdsOfRelease.set(release, found);
  }
  return found;
}

function loadCrds(dirs: readonly string[]): ReadonlyMap<string, Crd> {
  const byType = new Map<string, Crd>();
  const files = dirs.flatMap((dir) => readdirSync(dir).filter((file) => file.endsWith('.yaml')).sort().map((file) => path.join(dir, file)));
  for (const file of files) {
    for (const document of parseAllDocuments(readFileSync(file, 'utf8'))) {
      const content: unknown = document.toJS();
      for (const crd of servedVersions(content)) byType.set(`${crd.apiVersion} ${crd.kind}`, crd);
    }
  }
  return byType;
}

interface CrdDocument {
  readonly kind: string;
  readonly spec: {
    readonly group: string;
    readonly scope: 'Namespaced' | 'Cluster';
    readonly names: { readonly kind: string };
    readonly versions: readonly {
      readonly name: string;
      readonly served: boolean;
      readonly schema: { readonly openAPIV3Schema: Schema };
      readonly subresources?: { readonly status?: object; readonly scale?: { readonly specReplicasPath: string } };
    }[];
  };
}

function servedVersions(content: unknown): Crd[] {
  if (!isPlainObject(content) || content.kind !== 'CustomResourceDefinition') return [];
  const { spec } = content as unknown as CrdDocument;
  return spec.versions
    .filter((version) => version.served)
    .map((version) => ({
      apiVersion: `${spec.group}/${version.name}`,
      kind: spec.names.kind,
      namespaced: spec.scope === 'Namespaced',
      statusSubresource: version.subresources?.status !== undefined,
      specReplicasPath: version.subresources?.scale?.specReplicasPath,
      schema: version.schema.openAPIV3Schema,
    }));
}

// ==== Paths: the API server's field.Path notation (`spec.limits[cpu]`, `spec.requirements[0].key`)

function childPath(parent: string, name: string): string {
  return parent === '' ? name : `${parent}.${name}`;
}

function indexPath(parent: string, index: number | string): string {
  return `${parent}[${index}]`;
}

/** A property is a child (`.name`); a key of an additionalProperties map is a subscript (`[name]`). */
function memberPath(schema: Schema | undefined, parent: string, key: string): string {
  const isMapKey = schema?.properties?.[key] === undefined && isSchema(schema?.additionalProperties);
  return isMapKey ? indexPath(parent, key) : childPath(parent, key);
}

/** The schema of an object's member, from `properties` or else `additionalProperties`. */
function memberSchema(schema: Schema | undefined, key: string): Schema | undefined {
  const property = schema?.properties?.[key];
  if (property !== undefined) return property;
  const additional = schema?.additionalProperties;
  return isSchema(additional) ? additional : undefined;
}

// ==== Decoding: pruning and nulls
// @see apiextensions-apiserver pkg/apiserver/schema/pruning/algorithm.go, schema/defaulting/prunenulls.go

/** The root's type and object meta are not pruned by the schema (ObjectMeta has its own coercion). */
const ROOT_META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

function prune(value: Json, schema: Schema | undefined, at: string, report: Report, isRoot = false): void {
  if (schema?.['x-kubernetes-preserve-unknown-fields'] === true) {
    pruneKnownMembers(value, schema, at, report);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => prune(item, schema?.items, indexPath(at, i), report));
    return;
  }
  if (!isJsonObject(value)) return;
  for (const key of Object.keys(value)) {
    if (isRoot && ROOT_META_FIELDS.has(key)) continue;
    const member = memberSchema(schema, key);
    if (member === undefined) {
      report({ path: childPath(at, key), message: 'unknown field: the API server drops it (not in the CRD schema)' });
      delete value[key];
    } else {
      prune(value[key], member, memberPath(schema, at, key), report);
    }
  }
}

/** Under `x-kubernetes-preserve-unknown-fields`, unknown members stay but known ones are still pruned inside. */
function pruneKnownMembers(value: Json, schema: Schema, at: string, report: Report): void {
  if (Array.isArray(value)) {
    const { items } = schema;
    if (items !== undefined) value.forEach((item, i) => pruneKnownMembers(item, items, indexPath(at, i), report));
    return;
  }
  if (!isJsonObject(value)) return;
  for (const key of Object.keys(value)) {
    const member = memberSchema(schema, key);
    if (member !== undefined) prune(value[key], member, memberPath(schema, at, key), report);
  }
}

function pruneNonNullableNulls(value: Json, schema: Schema | undefined, at: string, report: Report): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => pruneNonNullableNulls(item, schema?.items, indexPath(at, i), report));
    return;
  }
  if (!isJsonObject(value)) return;
  for (const key of Object.keys(value)) {
    const member = memberSchema(schema, key);
    const memberAt = memberPath(schema, at, key);
    if (value[key] === null && member !== undefined && member.nullable !== true && member.default === undefined) {
      report({ path: memberAt, message: 'null: the API server drops it (the field is not nullable)' });
      delete value[key];
    } else {
      pruneNonNullableNulls(value[key], member, memberAt, report);
    }
  }
}

// ==== ObjectMeta
// @see apiextensions-apiserver pkg/apiserver/schema/objectmeta/coerce.go, apimachinery api/validation/objectmeta.go

/** The JSON names of metav1.ObjectMeta; anything else under metadata is dropped by the API server. */
const OBJECT_META_FIELDS = new Set([
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers',
  'managedFields',
]);

function coerceMetadata(object: JsonObject, report: Report): void {
  const { metadata } = object;
  if (!isJsonObject(metadata)) return;
  for (const key of Object.keys(metadata)) {
    if (OBJECT_META_FIELDS.has(key)) continue;
    report({ path: `metadata.${key}`, message: 'unknown field: the API server drops it (not an ObjectMeta field)' });
    delete metadata[key];
  }
}

function clearClusterScopedNamespace(crd: Crd, object: JsonObject, report: Report): void {
  const { metadata } = object;
  if (crd.namespaced || !isJsonObject(metadata) || metadata.namespace === undefined || metadata.namespace === '') {
    return;
  }
  report({
    path: 'metadata.namespace',
    message: `${show(metadata.namespace)}: the API server drops it (${crd.kind} is cluster-scoped)`,
  });
  delete metadata.namespace;
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const MAX_ANNOTATIONS_BYTES = 256 * 1024;

/** `ValidateObjectMeta` on create: name, namespace, labels, annotations and finalizers. */
function validateMetadata(crd: Crd, object: JsonObject, report: Report): void {
  const { metadata } = object;
  if (!isJsonObject(metadata)) {
    const problem = metadata === undefined ? 'required value' : `invalid value: ${show(metadata)}: must be an object`;
    report({ path: 'metadata', message: problem, blocking: true });
    return;
  }
  const { name, generateName, namespace, labels, annotations, finalizers } = metadata;
  if (name === undefined && generateName === undefined) {
    report({ path: 'metadata.name', message: 'required value: name or generateName is required', blocking: true });
  }
  if (name !== undefined) checkName('metadata.name', name, DNS1123_SUBDOMAIN, 253, 'RFC 1123 subdomain', report);
  if (crd.namespaced && namespace !== undefined && namespace !== '') {
    checkName('metadata.namespace', namespace, DNS1123_LABEL, 63, 'RFC 1123 label', report);
  }
  if (labels !== undefined) validateLabels(labels, report);
  if (annotations !== undefined) validateAnnotations(annotations, report);
  if (finalizers !== undefined) validateFinalizers(finalizers, report);
}

function checkName(at: string, value: Json, shape: RegExp, maxLength: number, what: string, report: Report): void {
  if (typeof value !== 'string') {
    report({ path: at, message: `invalid value: ${show(value)}: must be a string`, blocking: true });
  } else if (value.length > maxLength) {
    report({ path: at, message: `invalid value: ${show(value)}: must be no more than ${maxLength} characters` });
  } else if (!shape.test(value)) {
    report({
      path: at,
      message: `invalid value: ${show(value)}: a lowercase ${what} must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
    });
  }
}

function validateLabels(labels: Json, report: Report): void {
  for (const [key, value] of stringMapEntries('metadata.labels', labels, report)) {
    checkQualifiedName('metadata.labels', key, report);
    if (value.length > 63 || (value !== '' && !QUALIFIED_NAME_PART.test(value))) {
      report({
        path: 'metadata.labels',
        message: `invalid value: ${show(value)}: a label value must be empty or at most 63 alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric character`,
      });
    }
  }
}

function validateAnnotations(annotations: Json, report: Report): void {
  let bytes = 0;
  for (const [key, value] of stringMapEntries('metadata.annotations', annotations, report)) {
    checkQualifiedName('metadata.annotations', key.toLowerCase(), report);
    bytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (bytes > MAX_ANNOTATIONS_BYTES) {
    report({ path: 'metadata.annotations', message: `too long: must have at most ${MAX_ANNOTATIONS_BYTES} bytes` });
  }
}

function validateFinalizers(finalizers: Json, report: Report): void {
  if (!Array.isArray(finalizers)) {
    report({ path: 'metadata.finalizers', message: `invalid value: ${show(finalizers)}: must be a list of strings`, blocking: true });
    return;
  }
  finalizers.forEach((finalizer, i) => {
    if (typeof finalizer === 'string') checkQualifiedName(indexPath('metadata.finalizers', i), finalizer, report);
    else report({ path: indexPath('metadata.finalizers', i), message: `invalid value: ${show(finalizer)}: must be a string`, blocking: true });
  });
}

/** The entries of a map of strings; anything else is reported (the API server fails to decode it). */
function stringMapEntries(at: string, map: Json, report: Report): [string, string][] {
  if (!isJsonObject(map)) {
    report({ path: at, message: `invalid value: ${show(map)}: must be a map of strings`, blocking: true });
    return [];
  }
  const entries: [string, string][] = [];
  for (const [key, value] of Object.entries(map)) {
    if (typeof value === 'string') entries.push([key, value]);
    else report({ path: indexPath(at, key), message: `invalid value: ${show(value)}: must be a string`, blocking: true });
  }
  return entries;
}

/** A label or annotation key: an optional DNS subdomain prefix and `/`, then a name of at most 63 characters. */
function checkQualifiedName(at: string, key: string, report: Report): void {
  const slash = key.indexOf('/');
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  const badPrefix = prefix !== undefined && (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix));
  const badName = name.length > 63 || !QUALIFIED_NAME_PART.test(name);
  if (badPrefix || badName) {
    report({
      path: at,
      message: `invalid value: ${show(key)}: a qualified name is an optional lowercase RFC 1123 subdomain prefix and '/', then 1-63 alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric character`,
    });
  }
}

// ==== Defaulting
// @see apiextensions-apiserver pkg/apiserver/schema/defaulting/algorithm.go

/** Fills absent (and non-nullable null) members from `default:`, then recurses, also into what it filled in. */
function applyDefaults(value: Json, schema: Schema | undefined): void {
  if (schema === undefined) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      if (isNonNullableNull(item, schema.items)) value[i] = copyDefault(schema.items);
      applyDefaults(value[i], schema.items);
    });
    return;
  }
  if (!isJsonObject(value)) return;
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (property.default === undefined) continue;
    if (!Object.hasOwn(value, key) || isNonNullableNull(value[key], property)) value[key] = copyDefault(property);
  }
  for (const key of Object.keys(value)) {
    const member = memberSchema(schema, key);
    if (member === undefined) continue;
    if (schema.properties?.[key] === undefined && isNonNullableNull(value[key], member)) {
      value[key] = copyDefault(member);
    }
    applyDefaults(value[key], member);
  }
}

function isNonNullableNull(value: Json, schema: Schema | undefined): boolean {
  return value === null && schema !== undefined && schema.nullable !== true;
}

function copyDefault(schema: Schema | undefined): Json {
  return cloneJson(schema?.default ?? null, 'default');
}

// ==== OpenAPI v3 schema validation with ajv
// @see apiextensions-apiserver pkg/apiserver/validation/validation.go, formats.go; kube-openapi pkg/validation/validate

let ajv: Ajv | undefined;
const compiledSchemas = new Map<Crd, ValidateFunction>();

/** Error types that make the API server skip CEL rules (`hasBlockingErr` in registry/customresource/strategy.go). */
const BLOCKING_KEYWORDS = new Set(['type', 'enum', 'required', 'maxLength', 'maxItems', 'maxProperties']);

function createAjv(): Ajv {
  const instance = new Ajv({ allErrors: true, verbose: true, strict: true, strictTypes: false, allowUnionTypes: true });
  instance.addFormat('int32', { type: 'number', validate: (n: number) => inIntegerRange(n, 2 ** 31) });
  instance.addFormat('int64', { type: 'number', validate: (n: number) => inIntegerRange(n, 2 ** 63) });
  // go-openapi strfmt date-time, which also takes a space or no seconds or no zone
  instance.addFormat('date-time', /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/);
  instance.addKeyword({ keyword: 'listMapKeys', type: 'array', schemaType: 'array', errors: true, validate: listMapKeys });
  return instance;
}

function inIntegerRange(n: number, bound: number): boolean {
  return n >= -bound && n < bound;
}

/** `x-kubernetes-list-type: map`: no two items share the values of the key fields. */
const listMapKeys: SchemaValidateFunction = (keys: unknown, items: unknown): boolean => {
  if (!Array.isArray(keys) || !Array.isArray(items)) return true;
  const seen = new Set<string>();
  const errors: Partial<ErrorObject>[] = [];
  items.forEach((item: unknown, index) => {
    // an unset key is distinct from every value, null included
    const itemKeys = isPlainObject(item) ? keys.map((key: unknown) => (String(key) in item ? [item[String(key)]] : [])) : [];
    const identity = JSON.stringify(itemKeys);
    if (seen.has(identity)) errors.push({ keyword: 'listMapKeys', message: 'duplicate', params: { index, identity } });
    seen.add(identity);
  });
  listMapKeys.errors = errors;
  return errors.length === 0;
};

/**
 * The CRD's schema compiled for ajv, once; its CEL rules are compiled at the same time, so a rule that needs a
 * function this validator lacks fails on the first object of that kind, not only when a test reaches the rule.
 */
function schemaValidator(crd: Crd): ValidateFunction {
  let check = compiledSchemas.get(crd);
  if (check === undefined) {
    ajv ??= createAjv();
    check = ajv.compile(toAjvSchema(crd.schema));
    compileRulesIn(crd.schema);
    compiledSchemas.set(crd, check);
  }
  return check;
}

function schemaProblems(crd: Crd, object: JsonObject): Problem[] {
  const check = schemaValidator(crd);
  if (check(object)) return [];
  return (check.errors ?? [])
    .filter((error) => !/\/(anyOf|oneOf)\/\d+\//.test(error.schemaPath))
    .map((error) => describeAjvError(error, object, crd.schema));
}

/** Keywords that carry no value validation, or that other steps handle. */
const NON_VALIDATING_KEYWORDS = new Set([
  'description', 'title', 'example', 'externalDocs', 'default', 'x-kubernetes-validations', 'x-kubernetes-map-type',
  'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-list-map-keys',
]);
const COPIED_KEYWORDS = new Set([
  'enum', 'required', 'pattern', 'minLength', 'maxLength', 'minItems', 'maxItems', 'uniqueItems', 'minimum',
  'maximum', 'multipleOf', 'minProperties', 'maxProperties',
]);
/**
 * String formats the API server checks (dashes removed, as go-openapi normalizes them) that this translation does
 * not implement: a CRD that uses one must fail loudly rather than pass unchecked.
 */
const UNIMPLEMENTED_STRING_FORMATS = new Set([
  'bsonobjectid', 'uri', 'email', 'hostname', 'ipv4', 'ipv6', 'cidr', 'mac', 'uuid', 'uuid3', 'uuid4', 'uuid5', 'isbn',
  'isbn10', 'isbn13', 'creditcard', 'ssn', 'hexcolor', 'rgbcolor', 'byte', 'date', 'duration', 'k8sshortname',
  'k8slongname',
]);

/** Rewrites a structural schema into JSON Schema (draft-07) that ajv checks the way kube-openapi does. */
function toAjvSchema(schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (NON_VALIDATING_KEYWORDS.has(keyword)) continue;
    if (COPIED_KEYWORDS.has(keyword)) out[keyword] = value;
    else translateKeyword(schema, keyword, out);
  }
  const type = ajvType(schema);
  if (type !== undefined) out.type = type;
  if (Array.isArray(out.enum) && schema.nullable === true) out.enum = [...out.enum, null];
  return out;
}

function translateKeyword(schema: Schema, keyword: string, out: Record<string, unknown>): void {
  switch (keyword) {
    case 'type':
    case 'nullable':
    case 'x-kubernetes-int-or-string':
      return; // ajvType
    case 'properties':
      out.properties = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, toAjvSchema(v)]));
      return;
    case 'additionalProperties':
    case 'items':
    case 'not':
      out[keyword] = toAjvSchema(asSchema(schema[keyword], keyword));
      return;
    case 'anyOf':
    case 'allOf':
    case 'oneOf':
      out[keyword] = asSchemaList(schema[keyword], keyword).map(toAjvSchema);
      return;
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      if (schema[keyword] === true) out[keyword] = schema[keyword === 'exclusiveMinimum' ? 'minimum' : 'maximum'];
      return;
    case 'format':
      translateFormat(schema, out);
      return;
    case 'x-kubernetes-list-type':
      if (schema[keyword] === 'set') out.uniqueItems = true;
      if (schema[keyword] === 'map') out.listMapKeys = schema['x-kubernetes-list-map-keys'] ?? [];
      return;
    default:
      throw new Error(`crd-validator: schema keyword ${keyword} is not supported by this validator`);
  }
}

/**
 * The API server keeps int32/int64 on integers, float/double on numbers and its known string formats, and ignores
 * every other format (`StripUnsupportedFormatsPostProcessorForVersion`).
 */
function translateFormat(schema: Schema, out: Record<string, unknown>): void {
  const { format, type } = schema;
  if (format === undefined) return;
  const normalized = format.replace(/-/g, '');
  if (type === 'integer' && (format === 'int32' || format === 'int64')) {
    out.format = format;
  } else if ((type === 'string' || type === undefined) && normalized === 'datetime') {
    out.format = 'date-time';
  } else if ((type === 'number' && format === 'float') || ((type === 'string' || type === undefined) && UNIMPLEMENTED_STRING_FORMATS.has(normalized))) {
    throw new Error(`crd-validator: format ${format} is checked by the API server but not by this validator`);
  }
}

/** int-or-string is an integer or a string; nullable adds null; no type (preserve-unknown-fields) is anything. */
function ajvType(schema: Schema): string | string[] | undefined {
  const base = schema['x-kubernetes-int-or-string'] === true ? ['integer', 'string'] : schema.type && [schema.type];
  if (base === undefined) return undefined;
  const types = schema.nullable === true ? [...base, 'null'] : base;
  return types.length === 1 ? types[0] : types;
}

function describeAjvError(error: ErrorObject, root: JsonObject, schema: Schema): Problem {
  const at = pathOfPointer(error.instancePath, root, schema);
  const value = shownValue(toJson(error.data));
  const blocking = BLOCKING_KEYWORDS.has(error.keyword);
  const params: Record<string, unknown> = error.params;
  switch (error.keyword) {
    case 'required':
      return { path: childPath(at, String(params.missingProperty)), message: 'required value', blocking };
    case 'enum':
      return {
        path: at,
        message: `unsupported value: ${value}: supported values: ${asJsonList(params.allowedValues).map(show).join(', ')}`,
        blocking,
      };
    case 'type':
      return { path: at, message: `invalid value: ${value}: must be of type ${String(params.type)}`, blocking };
    case 'pattern':
      return { path: at, message: `invalid value: ${value}: should match '${String(params.pattern)}'`, blocking };
    case 'maxItems':
      return { path: at, message: `too many: ${sizeOf(error.data)}: must have at most ${String(params.limit)} items`, blocking };
    case 'maxProperties':
      return { path: at, message: `too many: ${sizeOf(error.data)}: must have at most ${String(params.limit)} properties`, blocking };
    case 'maxLength':
      return { path: at, message: `too long: may not be longer than ${String(params.limit)}`, blocking };
    case 'minLength':
      return { path: at, message: `invalid value: ${value}: should be at least ${String(params.limit)} chars long`, blocking };
    case 'minItems':
    case 'minProperties':
      return { path: at, message: `invalid value: ${sizeOf(error.data)}: should have at least ${String(params.limit)}`, blocking };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { path: at, message: `invalid value: ${value}: should be ${COMPARISONS[String(params.comparison)] ?? String(params.comparison)} ${String(params.limit)}`, blocking };
    case 'uniqueItems': {
      const later = Math.max(Number(params.i), Number(params.j)); // the API server reports the later duplicate
      return { path: indexPath(at, later), message: `duplicate value: ${show(itemAt(error.data, later))}` };
    }
    case 'listMapKeys':
      return { path: indexPath(at, Number(params.index)), message: `duplicate value: map keys ${String(params.identity)}` };
    case 'format':
      return { path: at, message: `invalid value: ${value}: must be of format ${String(params.format)}`, blocking };
    default:
      return { path: at, message: `invalid value: ${value}: ${error.message ?? error.keyword}`, blocking };
  }
}

/** Turns ajv's JSON pointer into the API server's path notation, using the schema to tell properties from map keys. */
function pathOfPointer(pointer: string, root: Json, schema: Schema): string {
  const segments = pointer === '' ? [] : pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let at = '';
  let node: Json | undefined = root;
  let nodeSchema: Schema | undefined = schema;
  for (const segment of segments) {
    if (Array.isArray(node)) {
      at = indexPath(at, segment);
      node = node[Number(segment)];
      nodeSchema = nodeSchema?.items;
    } else {
      at = memberPath(nodeSchema, at, segment);
      node = isJsonObject(node) ? node[segment] : undefined;
      nodeSchema = memberSchema(nodeSchema, segment);
    }
  }
  return at;
}

const COMPARISONS: Readonly<Record<string, string>> = {
  '<=': 'less than or equal to',
  '>=': 'greater than or equal to',
  '<': 'less than',
  '>': 'greater than',
};

function sizeOf(data: unknown): number {
  if (Array.isArray(data)) return data.length;
  return isPlainObject(data) ? Object.keys(data).length : 0;
}

function itemAt(data: unknown, index: number): Json {
  return Array.isArray(data) ? toJson(data[index]) : null;
}

// ==== The scale subresource
// @see apiextensions-apiserver pkg/registry/customresource/validator.go, ValidateScaleSpec

function validateScaleReplicas(crd: Crd, object: JsonObject, report: Report): void {
  if (crd.specReplicasPath === undefined) return;
  const fields = crd.specReplicasPath.replace(/^\./, '').split('.');
  let node: Json | undefined = object;
  for (const field of fields) node = isJsonObject(node) ? node[field] : undefined;
  if (node === undefined) return;
  const at = fields.join('.');
  if (typeof node !== 'number' || !Number.isInteger(node)) {
    report({ path: at, message: `invalid value: ${show(node)}: must be an integer` });
  } else if (node < 0) {
    report({ path: at, message: `invalid value: ${node}: should be a non-negative integer` });
  } else if (node > 2 ** 31 - 1) {
    report({ path: at, message: `invalid value: ${node}: should be less than or equal to ${2 ** 31 - 1}` });
  }
}

// ==== CEL rules (x-kubernetes-validations)
// @see apiextensions-apiserver pkg/apiserver/schema/cel/validation.go; apiserver pkg/cel/library/regex.go, escaping.go

/**
 * The Kubernetes regex library: `<string>.find(<regex>)` and `<string>.findAll(<regex>[, <limit>])`.
 * Go evaluates RE2; JavaScript's engine agrees on the leftmost-first match for the RE2 syntax the CRDs use.
 */
const kubernetesRegexLibrary = [
  celMethod('find', CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function find(pattern) {
    return regex(pattern).exec(this)?.[0] ?? '';
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING], listType(CelScalar.STRING), function findAll(pattern) {
    return findAllMatches(this, pattern, -1);
  }),
  celMethod(
    'findAll',
    CelScalar.STRING,
    [CelScalar.STRING, CelScalar.INT],
    listType(CelScalar.STRING),
    function findAllLimited(pattern, limit) {
      return findAllMatches(this, pattern, Number(limit));
    },
  ),
];

const regexes = new Map<string, RegExp>();

function regex(pattern: string): RegExp {
  let compiled = regexes.get(pattern);
  if (compiled === undefined) {
    compiled = new RegExp(pattern, 'u');
    regexes.set(pattern, compiled);
  }
  return compiled;
}

function findAllMatches(text: string, pattern: string, limit: number): string[] {
  const matches = [...text.matchAll(new RegExp(regex(pattern).source, 'gu'))].map((match) => match[0]);
  return limit < 0 ? matches : matches.slice(0, limit);
}

const env = celEnv({ funcs: [...strings, ...kubernetesRegexLibrary] });

/** Calls the bufbuild planner handles itself rather than through registered functions (see its planner.js). */
const PLANNER_BUILTINS = new Set(['_&&_', '_||_', '_?_:_', '_[_]', '_[?_]', '_?._', '@not_strictly_false', '__not_strictly_false__']);

interface CompiledRule {
  readonly evaluate: (bindings: { self: CelInput }) => CelResult;
  /** Reads `oldSelf`: a transition rule, evaluated on UPDATE only. */
  readonly transition: boolean;
}
type CelExpr = ReturnType<typeof parseCel>['expr'];

const compiledRules = new Map<string, CompiledRule>();

/** Parses and plans an expression once; a function the environment lacks is a gap in this validator, so it throws. */
function compileRule(expression: string): CompiledRule {
  let compiled = compiledRules.get(expression);
  if (compiled === undefined) {
    const parsed = parseCel(expression);
    const missing = [...calledFunctions(parsed.expr)].filter((name) => !PLANNER_BUILTINS.has(name) && !env.funcs.find(name));
    if (missing.length > 0) {
      throw new Error(`crd-validator: CEL function ${missing.join(', ')} (rule ${expression}) is not implemented`);
    }
    compiled = { evaluate: plan(env, parsed), transition: usesOldSelf(parsed.expr) };
    compiledRules.set(expression, compiled);
  }
  return compiled;
}

function calledFunctions(expr: CelExpr | undefined, into = new Set<string>()): Set<string> {
  for (const child of celChildren(expr)) calledFunctions(child, into);
  if (expr?.exprKind.case === 'callExpr') into.add(expr.exprKind.value.function);
  return into;
}

function usesOldSelf(expr: CelExpr | undefined): boolean {
  if (expr?.exprKind.case === 'identExpr' && expr.exprKind.value.name === 'oldSelf') return true;
  return celChildren(expr).some(usesOldSelf);
}

function celChildren(expr: CelExpr | undefined): (CelExpr | undefined)[] {
  const kind = expr?.exprKind;
  switch (kind?.case) {
    case 'selectExpr':
      return [kind.value.operand];
    case 'callExpr':
      return [kind.value.target, ...kind.value.args];
    case 'listExpr':
      return kind.value.elements;
    case 'structExpr':
      return kind.value.entries.flatMap((e) => [e.keyKind.case === 'mapKey' ? e.keyKind.value : undefined, e.value]);
    case 'comprehensionExpr':
      return [kind.value.iterRange, kind.value.accuInit, kind.value.loopCondition, kind.value.loopStep, kind.value.result];
    default:
      return [];
  }
}

function compileRulesIn(schema: Schema): void {
  for (const rule of schema['x-kubernetes-validations'] ?? []) {
    compileRule(rule.rule);
    if (rule.messageExpression !== undefined) compileRule(rule.messageExpression);
  }
  const { properties, additionalProperties, items } = schema;
  Object.values(properties ?? {}).forEach(compileRulesIn);
  if (isSchema(additionalProperties)) compileRulesIn(additionalProperties);
  if (items !== undefined) compileRulesIn(items);
}

function ruleProblems(schema: Schema, object: JsonObject): Problem[] {
  const problems: Problem[] = [];
  checkRules(object, schema, '', (problem) => problems.push(problem), true);
  return problems;
}

/** Evaluates the rules at each schema node that has a value, `self` bound to that value, then recurses. */
function checkRules(value: Json, schema: Schema, at: string, report: Report, isRoot = false): void {
  if (value === null) return;
  const rules = (schema['x-kubernetes-validations'] ?? []).filter((rule) => !isTransitionRule(rule));
  if (rules.length > 0) {
    const self = isRoot && isJsonObject(value) ? rootToCel(value, schema) : toCel(value, schema);
    for (const rule of rules) {
      const problem = evaluateRule(rule, self, value, at);
      if (problem !== undefined) report(problem);
    }
  }
  if (Array.isArray(value)) {
    const { items } = schema;
    if (items !== undefined) value.forEach((item, i) => checkRules(item, items, indexPath(at, i), report));
  } else if (isJsonObject(value)) {
    for (const [key, member] of Object.entries(value)) {
      const memberSchemaOf = memberSchema(schema, key);
      if (memberSchemaOf !== undefined) checkRules(member, memberSchemaOf, memberPath(schema, at, key), report);
    }
  }
}

/** Rules that read `oldSelf` compare with the stored object, so they run on UPDATE only. */
function isTransitionRule(rule: ValidationRule): boolean {
  if (rule.optionalOldSelf === true) {
    throw new Error(`crd-validator: optionalOldSelf (rule ${rule.rule}) is not implemented`);
  }
  return compileRule(rule.rule).transition;
}

function evaluateRule(rule: ValidationRule, self: CelInput, value: Json, at: string): Problem | undefined {
  const result = compileRule(rule.rule).evaluate({ self });
  if (result === true) return undefined;
  if (isCelError(result)) {
    return { path: at, message: `invalid value: ${shownValue(value)}: ${result.message} evaluating rule: ${ruleName(rule)}` };
  }
  const fieldAt = rule.fieldPath === undefined ? at : childPath(at, rule.fieldPath.replace(/^\./, ''));
  return { path: fieldAt, message: `${reasonPrefix(rule.reason)}: ${shownValue(value)}: ${ruleMessage(rule, self)}` };
}

function ruleName(rule: ValidationRule): string {
  return (rule.message ?? rule.rule).trim();
}

function ruleMessage(rule: ValidationRule, self: CelInput): string {
  if (rule.messageExpression !== undefined) {
    const message = compileRule(rule.messageExpression).evaluate({ self });
    if (typeof message === 'string' && message.trim() !== '') return message;
  }
  const hasMessage = rule.message !== undefined && rule.message !== '';
  return hasMessage ? rule.message.trim() : `failed rule: ${rule.rule.trim()}`;
}

function reasonPrefix(reason: string | undefined): string {
  switch (reason) {
    case 'FieldValueForbidden':
      return 'forbidden';
    case 'FieldValueRequired':
      return 'required value';
    case 'FieldValueDuplicate':
      return 'duplicate value';
    default:
      return 'invalid value';
  }
}

/** The API server prints objects and lists as their type, scalars as JSON. */
function shownValue(value: Json): string {
  if (Array.isArray(value)) return '"array"';
  return isJsonObject(value) ? '"object"' : show(value);
}

// ==== JSON → CEL values, typed by the schema
// @see apiserver pkg/cel/common/valuesunstructured.go (UnstructuredToVal)

/** Integers become CEL int (bigint), numbers double, objects with properties maps with escaped member names. */
function toCel(value: Json, schema: Schema | undefined): CelInput {
  if (value === null) return null;
  if (schema === undefined || (schema.type === undefined && schema['x-kubernetes-int-or-string'] !== true)) {
    return untypedToCel(value);
  }
  if (typeof value === 'number') return schema.type === 'number' ? value : integer(value);
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map((item) => toCel(item, schema.items));
  return objectToCel(value, schema);
}

function objectToCel(value: JsonObject, schema: Schema): CelInput {
  const { properties } = schema;
  if (properties !== undefined) return propertiesToCel(value, properties);
  const additional = schema.additionalProperties;
  if (isSchema(additional)) return new Map(Object.entries(value).map(([k, v]) => [k, toCel(v, additional)]));
  return untypedToCel(value);
}

/** Members that are properties, under their escaped names; others are not accessible from CEL. */
function propertiesToCel(value: JsonObject, properties: Readonly<Record<string, Schema>>): Map<string, CelInput> {
  const entries: [string, CelInput][] = [];
  for (const [key, member] of Object.entries(value)) {
    const name = escapeCelName(key);
    const property = properties[key];
    if (name !== undefined && property !== undefined) entries.push([name, toCel(member, property)]);
  }
  return new Map(entries);
}

/** At the root, CEL sees apiVersion, kind and, of metadata, only name and generateName. */
function rootToCel(value: JsonObject, schema: Schema): CelInput {
  const { metadata, ...rest } = value;
  const self = propertiesToCel(rest, schema.properties ?? {});
  self.set('apiVersion', rest.apiVersion ?? null);
  self.set('kind', rest.kind ?? null);
  if (isJsonObject(metadata)) {
    const visible = Object.entries(metadata).filter(([key]) => key === 'name' || key === 'generateName');
    self.set('metadata', new Map(visible));
  }
  return self;
}

function untypedToCel(value: Json): CelInput {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(untypedToCel);
  return new Map(Object.entries(value).map(([k, v]) => [k, untypedToCel(v)]));
}

function integer(value: number): bigint {
  if (!Number.isInteger(value)) throw new Error(`crd-validator: ${value} reached CEL as an integer (schema check missed it)`);
  return BigInt(value);
}

const CEL_RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let',
  'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

/** Kubernetes' escaping of property names in CEL; undefined when the property is not accessible from CEL. */
function escapeCelName(name: string): string | undefined {
  if (name === '' || /^[0-9]/.test(name) || !/^[a-zA-Z0-9_.\-/]+$/.test(name)) return undefined;
  if (CEL_RESERVED.has(name)) return `__${name}__`;
  const escapes: Record<string, string> = { __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' };
  return name.replace(/__|[.\-/]/g, (match) => escapes[match] ?? match);
}

// ==== JSON helpers

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isJsonObject(value: Json | undefined): value is JsonObject {
  return isPlainObject(value);
}

function isSchema(value: unknown): value is Schema {
  return isPlainObject(value);
}

function asSchema(value: unknown, keyword: string): Schema {
  if (!isSchema(value)) throw new Error(`crd-validator: ${keyword} must be a schema object, got ${typeof value}`);
  return value;
}

function asSchemaList(value: unknown, keyword: string): Schema[] {
  if (!Array.isArray(value)) throw new Error(`crd-validator: ${keyword} must be a list of schemas`);
  return value.map((item: unknown) => asSchema(item, keyword));
}

function asJsonList(value: unknown): Json[] {
  return Array.isArray(value) ? value.map(toJson) : [];
}

/** A deep copy that keeps JSON values only; anything else (a function, a bigint, a Date) is a bug in the test. */
function cloneJson(value: unknown, at: string): Json {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (Array.isArray(value)) return value.map((item: unknown, i) => cloneJson(item, indexPath(at, i)));
  if (isObjectLiteral(value)) {
    // Object.fromEntries defines properties: a `__proto__` key stays an ordinary key, as in JSON.
    return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)
      .map(([key, member]) => [key, cloneJson(member, childPath(at, key))])) as JsonObject;
  }
  throw new TypeError(`crd-validator: ${at}: ${String(value)} is not a JSON value`);
}

/** A literal or null-prototype object, from this realm or another (jest runs tests in a vm context). */
function isObjectLiteral(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === null || Object.getPrototypeOf(prototype) === null;
}

function toJson(value: unknown): Json {
  return value === undefined ? null : cloneJson(value, 'value');
}

function show(value: Json): string {
  return JSON.stringify(value);
}

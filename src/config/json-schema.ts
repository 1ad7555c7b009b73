import { z } from 'zod';
import { CHART_VALUES_KEYS } from '../release/chart-values-keys.generated';
import type { ChartKeyNode } from '../release/types';
import { ALIAS_RELEASES } from './kubernetes';
import { COST_CENTER_LABEL, GENERATED_TAG_KEYS, TEAM_LABEL } from './reserved';
import { BUDGET_NODES, platformSchemaFor, QUANTITY, RESERVED_CLUSTER_IDS } from './schema';

/** A JSON Schema object, as the generator writes it. */
type Json = Record<string, unknown>;

/**
 * The JSON Schema editors use to complete and check `config/platform.yaml`
 * (`schema/platform.schema.json`). It is zod's JSON Schema of the same schema the command line
 * validates with, plus every rule zod cannot express itself but JSON Schema can: the checks
 * written as refinements (alias releases, `@latest` without `allowLatest`, a budget's schedule
 * and duration together, restricted label domains and generator-owned tags, resource names,
 * Karpenter's cron, selector terms' one-of rules, Windows-reserved ids) and the chart's values
 * keys under `helmValues`. A map that may be `null` is one type list, not `anyOf [map, null]`,
 * so an editor shows one error for one mistake. What only the command line can check
 * (inheritance, the Terraform outputs, the instance catalog, Kubernetes versions) is listed in
 * the README; test/config/schema-parity.test.ts holds the two to the same corpus.
 * @see https://json-schema.org/draft-07/json-schema-validation
 */
export function platformJsonSchema(): Json {
  const schema = z.toJSONSchema(platformSchemaFor('json-schema'), { io: 'input', target: 'draft-7' }) as Json;
  return visit(schema, '') as Json;
}

/** Rewrites every node of the schema, children first. */
function visit(node: unknown, key: string): unknown {
  if (Array.isArray(node)) return node.map((n) => visit(n, key));
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    // Children of `properties` are named by their key; anything else keeps the name of the node.
    out[k] = k === 'properties' && v && typeof v === 'object'
      ? Object.fromEntries(Object.entries(v as Json).map(([name, child]) => [name, visit(child, name)]))
      : visit(v, k === 'additionalProperties' || k === 'items' || k === 'anyOf' ? key : k);
  }
  return rules(nullable(out), key);
}

/** `anyOf: [X, {type: null}]` → X with `type: [X's type, "null"]`: one error per mistake in an editor. */
function nullable(node: Json): Json {
  const anyOf = node.anyOf as Json[] | undefined;
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return node;
  const other = anyOf.find((b) => b.type !== 'null');
  if (!other || !anyOf.some((b) => b.type === 'null' && Object.keys(b).length === 1) || typeof other.type !== 'string') return node;
  const { anyOf: _, ...rest } = node;
  return { ...rest, ...other, type: [other.type, 'null'] };
}

/** The rules the command line checks in code, added where the node is recognised by its properties. */
function rules(node: Json, key: string): Json {
  const props = (node.properties ?? {}) as Json;
  const has = (...names: string[]) => names.every((n) => n in props);
  let out = node;
  if (has('alias', 'allowLatest', 'selectorTerms', 'family')) out = amiRules(out);
  if (has('nodes', 'schedule', 'duration', 'reasons')) out = budgetRules(out);
  if (has('key', 'operator', 'values', 'minValues')) out = requirementRules(out);
  if (has('server', 'name') && Object.keys(props).length === 2) out = { ...out, oneOf: [{ required: ['server'] }, { required: ['name'] }] };
  if (has('id', 'name', 'owner', 'ssmParameter')) out = amiTermRules(out);
  if (key === 'subnetSelectorTerms' || key === 'securityGroupSelectorTerms') out = oneOfTerm(out);
  if (key === 'labels' && isMap(out)) out = { ...out, propertyNames: { ...(out.propertyNames as Json), allOf: [...RESTRICTED_LABELS, { not: { const: TEAM_LABEL } }, { not: { const: COST_CENTER_LABEL } }] } };
  // A pool's EC2 tags (a selector term's tags select, they are not written).
  if (has('tags', 'userData')) out = { ...out, properties: { ...(out.properties as Json), tags: tagRules((out.properties as Json).tags as Json) } };
  if (has('tags', 'id') && isMap(props.tags as Json)) out = { ...out, properties: { ...(out.properties as Json), tags: { ...(props.tags as Json), maxProperties: 20 } } };
  if (key === 'limits' && isMap(out)) out = { ...out, propertyNames: { type: 'string', pattern: RESOURCE_NAME } };
  if (has('cpu', 'memory', 'resources', 'replicas')) {
    out = { ...out, properties: { ...(out.properties as Json), resources: { ...(props.resources as Json), propertyNames: { type: 'string', pattern: CONTAINER_RESOURCE } } } };
  }
  // A quantity is never negative.
  if (out.type === 'string' && out.pattern === QUANTITY.source) out = { ...out, not: { pattern: '^-' } };
  if (key === 'helmValues') out = { ...out, ...chartKeys(CHART_VALUES_KEYS), type: out.type };
  if (key === 'teams' && isMap(out)) out = { ...out, propertyNames: { ...(out.propertyNames as Json), not: { pattern: WINDOWS_RESERVED } } };
  if (key === 'clusters' && isMap(out)) {
    out = { ...out, minProperties: 1, propertyNames: { ...(out.propertyNames as Json), not: { anyOf: [{ pattern: WINDOWS_RESERVED }, { enum: [...RESERVED_CLUSTER_IDS] }] } } };
  }
  if (has('gt', 'gte', 'lt', 'lte') && Object.keys(props).length === 4) out = { ...out, minProperties: 1 };
  if ((key === 'reasons' || key === 'namespaces') && out.type === 'array') out = { ...out, uniqueItems: true };
  return out;
}

function isMap(node: Json): boolean {
  const type = node.type;
  return (type === 'object' || (Array.isArray(type) && type.includes('object'))) && 'additionalProperties' in node && !('properties' in node);
}

/** Each family's alias releases, `@latest` only with `allowLatest: true`, alias xor selectorTerms (with a family), a family that matches the alias. */
function amiRules(node: Json): Json {
  const props = node.properties as Json;
  const aliases = Object.entries(ALIAS_RELEASES).map(([family, r]) => `${family}@${r.pattern.source.slice(1, -1)}`);
  const families: Readonly<Record<string, string>> = { al2023: 'AL2023', al2: 'AL2', bottlerocket: 'Bottlerocket' };
  return {
    ...node,
    properties: { ...props, alias: { ...(props.alias as Json), pattern: `^(${aliases.join('|')})$` } },
    oneOf: [{ required: ['alias'] }, { required: ['selectorTerms'] }],
    dependencies: { selectorTerms: ['family'] },
    allOf: [
      { if: { required: ['alias'], properties: { alias: { pattern: '@latest$' } } }, then: { required: ['allowLatest'], properties: { allowLatest: { const: true } } } },
      ...Object.entries(families).map(([prefix, family]) => ({
        if: { required: ['alias', 'family'], properties: { alias: { pattern: `^${prefix}@` } } },
        then: { properties: { family: { enum: [family, 'Custom'] } } },
      })),
    ],
  };
}

function budgetRules(node: Json): Json {
  const props = node.properties as Json;
  return {
    ...node,
    properties: {
      ...props,
      schedule: { ...(props.schedule as Json), pattern: CRON },
      nodes: { ...(props.nodes as Json), anyOf: [{ type: 'string', pattern: BUDGET_NODES.source }, { type: 'integer', minimum: 0 }] },
    },
    dependencies: { schedule: ['duration'], duration: ['schedule'] },
  };
}

/** The values each operator takes, as the NodePool CRD's CEL rules and the command line demand. */
function requirementRules(node: Json): Json {
  const props = node.properties as Json;
  return {
    ...node,
    properties: { ...props, key: { ...(props.key as Json), allOf: RESTRICTED_LABELS } },
    allOf: [
      { if: { properties: { operator: { enum: ['In', 'NotIn'] } } }, then: { required: ['values'], properties: { values: { minItems: 1 } } } },
      { if: { properties: { operator: { enum: ['Exists', 'DoesNotExist'] } } }, then: { properties: { values: { maxItems: 0 } } } },
      {
        if: { properties: { operator: { enum: ['Gt', 'Gte', 'Lt', 'Lte'] } } },
        then: { required: ['values'], properties: { values: { minItems: 1, maxItems: 1, items: { pattern: '^[0-9]{1,19}$' } } } },
      },
    ],
  };
}

function amiTermRules(node: Json): Json {
  return {
    ...node,
    anyOf: [{ required: ['id'] }, { required: ['name'] }, { required: ['tags'] }, { required: ['ssmParameter'] }],
    if: { required: ['id'] },
    then: { not: { anyOf: [{ required: ['name'] }, { required: ['tags'] }, { required: ['owner'] }] } },
  };
}

/** Subnet terms take exactly one of id, tags; security group terms one of id, name, tags. */
function oneOfTerm(node: Json): Json {
  const items = node.items as Json | undefined;
  if (!items?.properties) return node;
  const names = ['id', 'name', 'tags'].filter((n) => n in (items.properties as Json));
  return { ...node, items: { ...items, oneOf: names.map((n) => ({ required: [n] })) } };
}

function tagRules(node: Json): Json {
  return {
    ...node,
    propertyNames: {
      ...(node.propertyNames as Json),
      minLength: 1,
      not: { anyOf: [{ enum: ['eks:eks-cluster-name', 'karpenter.sh/nodepool', 'karpenter.sh/nodeclaim', 'karpenter.k8s.aws/ec2nodeclass', ...GENERATED_TAG_KEYS] }, { pattern: '^kubernetes\\.io/cluster' }] },
    },
  };
}

/** The chart's values keys: closed maps list their keys, free-form nodes take anything. */
function chartKeys(node: ChartKeyNode): Json {
  if (node.freeForm) return {};
  if (!node.children) return {};
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(node.children).map(([k, child]) => [k, chartKeys(child)])),
    additionalProperties: false,
  };
}

/** Label keys the command line refuses: Karpenter's own domains but its well-known labels, and the hostname. */
const RESTRICTED_LABELS: readonly Json[] = [
  { not: { enum: ['karpenter.sh/nodepool', 'kubernetes.io/hostname'] } },
  { if: { pattern: '^([^/]*\\.)?karpenter\\.sh/' }, then: { const: 'karpenter.sh/capacity-type' } },
  { if: { pattern: '^([^/]*\\.)?karpenter\\.k8s\\.aws/' }, then: { pattern: '^karpenter\\.k8s\\.aws/(instance-[a-z-]+|capacity-reservation-[a-z-]+|ec2nodeclass|placement-group-(id|partition))$' } },
];

const WINDOWS_RESERVED = '^(con|prn|aux|nul|com[0-9]|lpt[0-9])$';

/** What a container requests: cpu, memory, ephemeral-storage, hugepages-<size>, or domain/name. */
const CONTAINER_RESOURCE = '^(cpu|memory|ephemeral-storage|hugepages-[0-9]+(Ki|Mi|Gi)|([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)/([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$';

/** cpu, memory, ephemeral-storage, pods, nodes, hugepages-<size>, or domain/name. */
const RESOURCE_NAME = '^(cpu|memory|ephemeral-storage|pods|nodes|hugepages-[0-9]+(Ki|Mi|Gi)|([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)/([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$';

/**
 * Karpenter's cron dialect, approximately: an @ macro, or five fields of numbers, names,
 * ranges, steps, lists and `*`. Exact ranges and names are checked by the command line.
 */
const CRON_FIELD = '(\\*|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(/[0-9]+)?(,(\\*|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(/[0-9]+)?)*';
const CRON = `^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|${CRON_FIELD}( +${CRON_FIELD}){4})$`;

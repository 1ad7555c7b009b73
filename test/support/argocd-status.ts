/**
 * Application statuses as Argo CD 3.5.1 writes them. Argo CD's controller builds the status as
 * Go structs and stores it as JSON (`encoding/json`), so what a health check reads is decided by
 * the Go types' JSON tags, not by the spec it compared: a field tagged `omitempty` is left out
 * when it is "", false, 0, a nil pointer or an empty slice; a struct field is always written,
 * even empty (`{}`, or `{repoURL: ""}` for an ApplicationSource, whose `repoURL` has no
 * omitempty); `omitzero` leaves out a zero struct (Go 1.24+; Argo CD 3.5.1 builds with 1.26).
 *
 * The tables below are transcribed from `pkg/apis/application/v1alpha1/types.go` at v3.5.1
 * (the line of each type is given), field by field and tag by tag; fields the health check never
 * reaches are `raw` (kept as given). {@link goJson} turns JSON into what Go writes after reading
 * it into the type (unknown keys dropped, missing ones zero) and writing it back, and
 * {@link anApplicationStatus} simulates `CompareAppState` (controller/state.go l. 633-652) and a
 * sync on top of it. Cross-checked with Argo CD's own test data for an empty status
 * (cmd/argocd/commands/admin/backup_test.go l. 222-231: `health: {}`, `sourceHydrator: {}`,
 * `summary: {}`, `sync: {comparedTo: {destination: {}, source: {repoURL: ""}}, status: ""}`).
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/pkg/apis/application/v1alpha1/types.go
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/controller/state.go
 * @see https://pkg.go.dev/encoding/json#Marshal (omitempty, omitzero)
 *
 * Upstream: MODELS.argocd (test/support/upstream.ts names the release; its test fails once the project moves past it).
 */

/** A Go type as far as its JSON form goes. */
export type GoType =
  | 'string' | 'bool' | 'int'
  /** metav1.Time: RFC 3339, and `null` for the zero time (k8s.io/apimachinery pkg/apis/meta/v1/time.go MarshalJSON). */
  | 'time'
  /** JSON the check never looks into, kept as given; empty when null or {} or []. */
  | 'raw'
  | { readonly struct: StructName }
  | { readonly pointer: GoType }
  | { readonly slice: GoType };

/** The structs transcribed below. */
type StructName =
  | 'ApplicationSource' | 'ApplicationSourceHelm' | 'HelmParameter' | 'HelmFileParameter' | 'ApplicationSourceDirectory'
  | 'ApplicationSourceJsonnet' | 'ApplicationDestination' | 'ResourceIgnoreDifferences' | 'ComparedTo' | 'SyncStatus'
  | 'AppHealthStatus' | 'OperationState' | 'ApplicationStatus' | 'ApplicationSummary' | 'SourceHydratorStatus' | 'ApplicationCondition';

/** One field: its JSON name, type and tag options. */
interface GoField {
  readonly json: string;
  readonly type: GoType;
  readonly omitempty?: boolean;
  readonly omitzero?: boolean;
}

const s = (json: string, omitempty = true): GoField => ({ json, type: 'string', omitempty });
const b = (json: string): GoField => ({ json, type: 'bool', omitempty: true });
const strings = (json: string): GoField => ({ json, type: { slice: 'string' }, omitempty: true });
const raw = (json: string, omitempty = true): GoField => ({ json, type: 'raw', omitempty });
const struct = (json: string, name: StructName, options: Omit<GoField, 'json' | 'type'> = {}): GoField => ({ json, type: { struct: name }, ...options });
const pointer = (json: string, type: GoType): GoField => ({ json, type: { pointer: type }, omitempty: true });
const slice = (json: string, type: GoType): GoField => ({ json, type: { slice: type }, omitempty: true });

/** The structs, transcribed from types.go v3.5.1 (line of the type in the comment). */
const STRUCTS: Record<StructName, readonly GoField[]> = {
  // l. 196
  ApplicationSource: [
    s('repoURL', false), s('path'), s('targetRevision'), pointer('helm', { struct: 'ApplicationSourceHelm' }),
    pointer('kustomize', 'raw'), pointer('directory', { struct: 'ApplicationSourceDirectory' }), pointer('plugin', 'raw'),
    s('chart'), s('ref'), s('name'), s('tagPrefix'),
  ],
  // l. 567
  ApplicationSourceHelm: [
    strings('valueFiles'), slice('parameters', { struct: 'HelmParameter' }), s('releaseName'), s('values'),
    slice('fileParameters', { struct: 'HelmFileParameter' }), s('version'), b('passCredentials'), b('ignoreMissingValueFiles'),
    b('skipCrds'), pointer('valuesObject', 'raw'), s('namespace'), s('kubeVersion'), strings('apiVersions'), b('skipTests'),
    b('skipSchemaValidation'),
  ],
  // l. 605, 615
  HelmParameter: [s('name'), s('value'), b('forceString')],
  HelmFileParameter: [s('name'), s('path')],
  // l. 931: jsonnet is `json:"jsonnet,omitempty,omitzero"`
  ApplicationSourceDirectory: [b('recurse'), struct('jsonnet', 'ApplicationSourceJsonnet', { omitempty: true, omitzero: true }), s('exclude'), s('include')],
  // l. 916
  ApplicationSourceJsonnet: [slice('extVars', 'raw'), slice('tlas', 'raw'), strings('libs')],
  // l. 1195
  ApplicationDestination: [s('server'), s('namespace'), s('name')],
  // l. 124: kind has no omitempty
  ResourceIgnoreDifferences: [s('group'), s('kind', false), s('name'), s('namespace'), strings('jsonPointers'), strings('jqPathExpressions'), strings('managedFieldsManagers')],
  // l. 1930: Source is a struct (not a pointer) tagged omitempty, so it is always written
  ComparedTo: [
    struct('source', 'ApplicationSource', { omitempty: true }), struct('destination', 'ApplicationDestination'),
    slice('sources', { struct: 'ApplicationSource' }), slice('ignoreDifferences', { struct: 'ResourceIgnoreDifferences' }),
  ],
  // l. 1942
  SyncStatus: [s('status', false), struct('comparedTo', 'ComparedTo', { omitempty: true }), s('revision'), strings('revisions')],
  // l. 1954 (message: "Deprecated: this field is not used")
  AppHealthStatus: [s('status'), s('message'), pointer('lastTransitionTime', 'time')],
  // l. 1451
  OperationState: [
    raw('operation', false), s('phase', false), s('message'), pointer('syncResult', 'raw'),
    { json: 'startedAt', type: 'time' }, pointer('finishedAt', 'time'), { json: 'retryCount', type: 'int', omitempty: true },
  ],
  // l. 1920: type and message have no omitempty
  ApplicationCondition: [s('type', false), s('message', false), pointer('lastTransitionTime', 'time')],
  // l. 1213
  ApplicationStatus: [
    slice('resources', 'raw'), struct('sync', 'SyncStatus', { omitempty: true }), struct('health', 'AppHealthStatus', { omitempty: true }),
    slice('history', 'raw'), slice('conditions', { struct: 'ApplicationCondition' }), pointer('reconciledAt', 'time'),
    pointer('operationState', { struct: 'OperationState' }), pointer('observedAt', 'time'), s('sourceType'),
    struct('summary', 'ApplicationSummary', { omitempty: true }), s('resourceHealthSource'), strings('sourceTypes'),
    s('controllerNamespace'), struct('sourceHydrator', 'SourceHydratorStatus', { omitempty: true }),
  ],
  // l. 2107 and l. 1247: every field omitempty, so the zero value is written {}
  ApplicationSummary: [strings('externalURLs'), strings('images'), b('isAppOfApps')],
  SourceHydratorStatus: [pointer('lastSuccessfulOperation', 'raw'), pointer('currentOperation', 'raw'), s('lastComparedDryRevision')],
};


type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What `encoding/json` writes for the value Go reads from `value` into `type` (undefined: the zero value). */
export function goJson(type: GoType, value: unknown): Json {
  if (type === 'string') return typeof value === 'string' ? value : '';
  if (type === 'bool') return value === true;
  if (type === 'int') return typeof value === 'number' ? value : 0;
  if (type === 'time') return typeof value === 'string' ? value : null;
  if (type === 'raw') return (value ?? null) as Json;
  if ('pointer' in type) return value === undefined || value === null ? null : goJson(type.pointer, value);
  if ('slice' in type) return Array.isArray(value) ? value.map((v) => goJson(type.slice, v)) : null;
  const given = (value ?? {}) as Record<string, unknown>;
  const out: { [key: string]: Json } = {};
  for (const field of STRUCTS[type.struct]) {
    const json = goJson(field.type, given[field.json]);
    if (field.omitempty && isEmpty(field.type, json)) continue;
    if (field.omitzero && isZero(json)) continue;
    out[field.json] = json;
  }
  return out;
}

/** `omitempty`'s test: false, 0, "", a nil pointer, an empty slice; never a struct. */
function isEmpty(type: GoType, json: Json): boolean {
  if (typeof type === 'object' && 'struct' in type) return false;
  if (type === 'raw') return json === null || (Array.isArray(json) ? json.length === 0 : typeof json === 'object' && Object.keys(json).length === 0);
  return json === null || json === '' || json === false || json === 0 || (Array.isArray(json) && json.length === 0);
}

/** `omitzero`'s test for a struct: every field zero (what Go wrote holds no non-zero value). */
function isZero(json: Json): boolean {
  if (json === null || json === '' || json === false || json === 0) return true;
  if (Array.isArray(json)) return false;
  return typeof json === 'object' && Object.values(json).every(isZero);
}

/** An Application as the API server holds it: the fields the health check reads. */
export interface LiveApplication {
  readonly spec?: {
    readonly source?: unknown;
    readonly sources?: readonly unknown[];
    readonly destination?: unknown;
    readonly ignoreDifferences?: unknown;
    readonly [key: string]: unknown;
  };
  readonly [key: string]: unknown;
}

/** What Argo CD compared: `BuildComparedToStatus` (types.go l. 1321-1332) of the spec as Go reads it. */
export function comparedTo(spec: NonNullable<LiveApplication['spec']>): Json {
  // HasMultipleSources (l. 294): a non-empty `sources`; then `source` stays the zero struct.
  const multi = Array.isArray(spec.sources) && spec.sources.length > 0;
  return goJson({ struct: 'ComparedTo' }, {
    destination: spec.destination,
    ignoreDifferences: spec.ignoreDifferences,
    ...(multi ? { sources: spec.sources } : { source: spec.source }),
  });
}

/** The state of a child Application's last comparison and operation. */
export interface StatusOptions {
  /** The spec the controller last compared. @default - the Application's own spec */
  readonly comparedSpec?: LiveApplication['spec'];
  /** `status.sync.status`. @default "Synced" */
  readonly sync?: 'Synced' | 'OutOfSync' | 'Unknown';
  /** `status.health.status`. @default "Healthy" */
  readonly health?: 'Healthy' | 'Progressing' | 'Degraded' | 'Suspended' | 'Missing' | 'Unknown';
  /** The last operation's phase and message. @default - a sync that Succeeded */
  readonly operation?: { readonly phase: 'Running' | 'Terminating' | 'Failed' | 'Error' | 'Succeeded'; readonly message: string } | null;
  /** The commit synced (`status.sync.revision`, each of `revisions`). @default "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678" */
  readonly revision?: string;
  /**
   * `status.sync.revisions` of a multi-source spec, one per source as Argo CD resolves them (a
   * chart's version, a git source's commit). @default - `revision` for every source
   */
  readonly revisions?: readonly string[];
  /**
   * `status.conditions` (see {@link CONDITIONS}), each stamped with the reconcile's time when it
   * has none, as `SetConditions` does (types.go l. 3712-3730). @default - none
   */
  readonly conditions?: readonly Condition[];
}

/** An ApplicationCondition (types.go l. 1920-1927). */
export interface Condition {
  readonly type: string;
  readonly message: string;
  readonly lastTransitionTime?: string;
}

/**
 * Conditions as Argo CD 3.5.1 writes them, each message formatted as its code formats it.
 * A repository error reaches the controller from the repo server over gRPC: a plain error is
 * sent with code Unknown (grpc-go v1.81.1, Argo CD's: server.go l. 1432-1436, status/status.go
 * l. 161) and reads "rpc error: code = Unknown desc = <error>" (internal/status/status.go l. 202);
 * `GetRepoObjs` adds the source (controller/state.go l. 377), `CompareAppState` the rest (l. 698).
 */
export const CONDITIONS = {
  /** A git ref that `ls-remote` does not list (util/git/client.go l. 1007; repository.go l. 363). */
  unresolvedRef: (ref: string, source = 1, of = 1): Condition => ({
    type: 'ComparisonError',
    message: `Failed to load target state: failed to generate manifest for source ${source} of ${of}: rpc error: code = Unknown desc = unable to resolve '${ref}' to a commit SHA`,
  }),
  /** A directory source whose folder is not in the commit (util/app/path/path.go l. 15 and l. 25-27; repository.go l. 540-543). */
  missingPath: (path: string, source = 1, of = 1): Condition => ({
    type: 'ComparisonError',
    message: `Failed to load target state: failed to generate manifest for source ${source} of ${of}: rpc error: code = Unknown desc = ${path}: app path does not exist`,
  }),
  /** An Application whose project does not exist (controller/appcontroller.go l. 2744); written before any comparison (l. 1866-1870). */
  missingProject: (project: string): Condition => ({ type: 'InvalidSpecError', message: `Application referencing project ${project} which does not exist` }),
  /**
   * Auto-sync declining to retry a revision whose sync failed (appcontroller.go l. 2398, the
   * revisions a Go `[]string` printed with %s), here a sync refused by the project's permission
   * validator (controller/sync.go l. 658; gitops-engine pkg/sync/sync_context.go l. 1090-1092 and
   * l. 489-499).
   */
  notPermitted: (revision: string, group: string, kind: string, project: string): Condition => ({
    type: 'SyncError',
    message: `Failed last sync attempt to [${revision}]: one or more synchronization tasks are not valid: resource ${group}:${kind} is not permitted in project ${project}`,
  }),
  /** Auto-sync refusing a revision that would prune everything (appcontroller.go l. 2439). */
  wouldWipeOut: (revision: string): Condition => ({ type: 'SyncError', message: `Skipping sync attempt to [${revision}]: auto-sync will wipe out all resources` }),
} as const;

/**
 * The operation of a sync held for a person's prune confirmation: Running, with the message of
 * gitops-engine's `setRunningPhase` for the prunes of objects with `Prune=confirm`, the first
 * named as group/kind/name (pkg/sync/sync_context.go l. 458-474, called at l. 716-719 while a
 * prune waits, l. 1618-1624).
 */
export function pruningConfirmation(objects: readonly { readonly group: string; readonly kind: string; readonly name: string }[]): NonNullable<StatusOptions['operation']> {
  const [first] = objects;
  const more = objects.length > 1 ? ` and ${objects.length - 1} more resources` : '';
  return { phase: 'Running', message: `waiting for pruning confirmation of ${first.group}/${first.kind}/${first.name}${more}` };
}

const STARTED = '2026-11-20T10:00:00Z';
const FINISHED = '2026-11-20T10:00:42Z';

/**
 * `app`'s `status` as Argo CD 3.5.1 stores it after `CompareAppState` (state.go l. 638-652:
 * comparedTo with `sources` and `revisions` for a multi-source spec, else `source` and
 * `revision`) and the last sync operation.
 */
export function anApplicationStatus(app: LiveApplication, options: StatusOptions = {}): Json {
  const spec = options.comparedSpec ?? app.spec ?? {};
  const multi = Array.isArray(spec.sources) && spec.sources.length > 0;
  const synced = options.revision ?? 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
  const revisions = multi ? options.revisions ?? (spec.sources as { targetRevision?: string }[]).map(() => synced) : undefined;
  const operation = options.operation === undefined ? { phase: 'Succeeded', message: 'successfully synced (all tasks run)' } : options.operation;
  return goJson({ struct: 'ApplicationStatus' }, {
    sync: {
      status: options.sync ?? 'Synced',
      comparedTo: comparedTo(spec),
      ...(multi ? { revisions } : { revision: synced }),
    },
    health: { status: options.health ?? 'Healthy', lastTransitionTime: FINISHED },
    conditions: options.conditions?.map((c) => ({ lastTransitionTime: FINISHED, ...c })),
    reconciledAt: FINISHED,
    operationState: operation && {
      operation: { sync: { revision: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678', syncStrategy: { hook: {} } }, initiatedBy: { automated: true } },
      phase: operation.phase,
      message: operation.message,
      startedAt: STARTED,
      finishedAt: operation.phase === 'Running' || operation.phase === 'Terminating' ? undefined : FINISHED,
    },
    sourceType: multi ? undefined : 'Directory',
    sourceTypes: multi ? ['Helm', 'Directory'] : undefined,
    controllerNamespace: 'argocd',
  });
}

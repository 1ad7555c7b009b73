import { STAGE_REF_WAIT, WAITS_FOR_ANNOTATION } from './stages';

/** The argocd-cm key that gives {@link APPLICATION_HEALTH_LUA} Lua's standard libraries (see there why). */
export const APPLICATION_HEALTH_OPEN_LIBS_KEY = 'resource.customizations.useOpenLibs.argoproj.io_Application';

/**
 * The health of an `argoproj.io/Application`, as Argo CD's `resource.customizations.health`
 * Lua (gopher-lua, Lua 5.1). Since Argo CD 1.8 an Application has no health of its own, so
 * the sync waves of an app of apps would not wait for each other without it; and a check
 * that only reads `status.health` (Argo CD's documented one) says Healthy while a child is
 * still syncing a new chart version, so the next wave would go at once. Every root and the
 * bootstrap read their children through it, and Argo CD's health of a parent is the worst of
 * its children's (controller/health.go v3.5.1 l. 20-104): what a child says here is what the
 * root and the bootstrap say.
 *
 * For an automated child it reports:
 * - Progressing while its status was computed for another spec (the root just changed it; a
 *   `ComparisonError` or `SyncError`, written with the comparison, then describes the old spec;
 *   an `InvalidSpecError` or `UnknownError` is checked on every refresh before comparing and stops
 *   it, appcontroller.go l. 1866-1881 and l. 2170-2191, so it counts at once), while an operation
 *   runs, or while it is not Synced;
 * - Degraded on an error condition: every type ending in `Error` (ApplicationCondition's
 *   `IsError`, types.go v3.5.1 l. 3769-3771; today `ComparisonError`: the source cannot be
 *   rendered, an app path that does not exist, a repository not found; `InvalidSpecError`;
 *   `SyncError`: an automated sync refused or not retried; `DeletionError`; `UnknownError`,
 *   l. 1900-1908), before its first comparison as after, with or without the annotation below;
 * - Degraded while its operation waits for a person to confirm a prune: gitops-engine keeps it
 *   Running with "waiting for pruning confirmation of <group>/<kind>/<name>" (sync_context.go
 *   l. 458-474, the prune held at l. 1618-1624) until the Application's
 *   `argocd.argoproj.io/deletion-approved` is newer than the operation (types.go l. 4173-4183);
 * - Degraded when its last operation Failed or Errored and it is still not Synced; once it is
 *   Synced again (fixed by a later reconcile or by hand), the failed operation no longer counts;
 * - Healthy, saying why, when it is not Synced only because of what its annotation
 *   `karpenter-gitops.io/waits-for` names (its sync window, its stage ref): Argo CD writes no
 *   condition when a sync window holds an auto-sync (controller/appcontroller.go l. 1947-1970
 *   only logs it), so the generator says which children may wait, and a root or the bootstrap
 *   never waits on them. One error is such a wait too: a stage-N cluster's root whose stage ref
 *   does not exist yet, before the first promotion creates it (model/stages.ts), or whose stage
 *   ref does not hold the cluster's folder yet (a cluster added to a stage, until the first
 *   promotion with it). The repo server's `ls-remote` fails with "unable to resolve '<ref>' to a
 *   commit SHA" (util/git/client.go l. 1007), a directory source whose path the commit lacks with
 *   "<path>: app path does not exist" (util/app/path/path.go l. 15), which the controller wraps
 *   ("Failed to load target state: failed to generate manifest for source 1 of 1: rpc error: code
 *   = Unknown desc = …", controller/state.go l. 377 and l. 698); either counts as a wait only when
 *   it is the only error, names the Application's own source (its `targetRevision`, or its `path`
 *   at that revision), and the annotation begins with {@link STAGE_REF_WAIT} and that ref;
 * - otherwise Argo CD's own `status.health.status`.
 *
 * Why Degraded, not Progressing or Suspended, for what a wave must not wait for: in a
 * multi-step sync the parent's task for this child succeeds when it reads Healthy, fails when
 * it reads Degraded, and stays running on anything else (sync_context.go l. 555-567, then
 * l. 576-596), and so does the parent's operation; while a root or the bootstrap has an
 * operation, Argo CD skips its auto-sync ("another operation is in progress", appcontroller.go
 * l. 2336-2339), and a sync has no timeout by default (`--sync-timeout` 0,
 * cmd/argocd-application-controller/commands/argocd_application_controller.go l. 280). An error
 * read as Progressing or Suspended would hold the root's operation for ever, and the commit that
 * fixes it (a revert, a corrected path) would never reach the child through the root. Degraded
 * fails the root's wave (retried by its retry policy), ends its operation, and the next commit
 * syncs. The cost: an error that outlasts Argo CD's repository-error grace period (180s,
 * state.go l. 699-712) and the root's retries leaves the root Degraded on that commit until the
 * next commit or a manual sync. A Lua error is no better than Progressing (the task keeps
 * running on an error, l. 555-556), hence the explicit Degraded when the string library is missing.
 *
 * The check reads messages, which needs Lua's string library: no field of the status tells
 * these cases apart. On any repository error `CompareAppState` leaves a single-source
 * Application's `sync.revision` at the revision it was asked for (state.go l. 653-656; only a
 * generated manifest replaces it, l. 1045-1047) and a multi-source one without `revisions`
 * (l. 1043-1044), so an unresolved ref and a missing path differ only in the message; the
 * pruning wait leaves only its message (Argo CD's UI offers "Confirm Pruning" from
 * `resources[].requiresDeletionConfirmation`, which `Delete=confirm` sets too and which says
 * nothing of whether the sync has reached the prune, state.go l. 951 and l. 1171-1191). Argo CD gives a custom
 * health check the base, table and package libraries and a safe os (util/lua/lua.go l. 75-100)
 * unless `resource.customizations.useOpenLibs.<group_kind>` is true (util/settings/settings.go
 * l. 1167-1175; lua.go l. 44-57, l. 169-174); the argocd-cm patch sets it for
 * `argoproj.io_Application` ({@link APPLICATION_HEALTH_OPEN_LIBS_KEY}). That runs this script,
 * inside the application controller, with gopher-lua's OpenLibs (yuin/gopher-lua v1.1.2, Argo
 * CD's, linit.go l. 31-54): string and math, but also io (open, popen: the controller's files,
 * its service account token), the whole os (execute, exit, getenv, remove; the safe os that
 * lua.go opens next does not replace it: oslib_safe.go l. 16-20 registers under `table`, which is
 * already loaded, auxlib.go l. 289-305) and debug. That is acceptable here: the script is ours,
 * in a reviewed file, and whoever can change argocd-cm can already replace it with anything; it
 * treats the status as data, calling only `string.find` with `plain = true` (no pattern is built
 * from a message) and `string.sub`, never io, os, debug, load or loadstring (a test parses it and
 * fails on any other global or library function); Argo CD runs all its built-in health checks
 * this way (lua.go l. 203-204); and the 1-second limit still holds (lua.go l. 102-104).
 *
 * "Computed for this spec" is Argo CD's own test (`specEqualsCompareTo`, controller/state.go
 * v3.5.1 l. 1164-1169): `status.sync.comparedTo` equals `BuildComparedToStatus(spec sources)`,
 * which copies the destination and ignoreDifferences and then either `sources` (a multi-source
 * spec) or `source` (types.go l. 1321-1332; CompareAppState, state.go l. 638-652). The status
 * is JSON written from Go structs, so the check compares Go values, not JSON text: a zero
 * value and an absent key are the same. That matters because `ComparedTo.Source` is a struct,
 * not a pointer (types.go l. 1932): a multi-source Application's status keeps
 * `comparedTo.source: {repoURL: ""}` (`repoURL` has no omitempty, l. 198), while every empty
 * omitempty scalar or slice (`path`, `helm.valueFiles`, `directory.recurse: false`) is dropped
 * and a zero `directory.jsonnet` is dropped by omitzero (l. 935).
 *
 * A child without automated sync (the smoke tests) is Healthy: nobody syncs it but a person,
 * and a wave must never wait for it. The messages are listed in docs/fleets.md.
 * @see https://argo-cd.readthedocs.io/en/stable/operator-manual/health/#argocd-app
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/controller/state.go (CompareAppState, specEqualsCompareTo)
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/pkg/apis/application/v1alpha1/types.go (ComparedTo, ApplicationSource, ApplicationCondition)
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/gitops-engine/pkg/sync/sync_context.go (a multi-step sync waits for Healthy, fails on Degraded; the pruning confirmation)
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/util/lua/lua.go (the libraries a health check gets)
 */
export const APPLICATION_HEALTH_LUA = `-- karpenter-gitops: health of an Application for sync waves across Applications.
-- Lua 5.1 (Argo CD runs health checks with gopher-lua), with the standard libraries: argocd-cm sets
-- ${APPLICATION_HEALTH_OPEN_LIBS_KEY}: "true" for it. Of them it calls string.find, always
-- plain (no pattern is built from a message), and string.sub; nothing else.

-- A Go zero value as Argo CD's JSON holds it: absent, "", false, 0, or a table of zero values.
-- Argo CD writes its status from Go structs: an omitempty scalar or slice that is empty is left
-- out, a struct that is empty is kept ({} or {repoURL = ""}); so absent and zero mean the same.
local function zero(v)
  if v == nil or v == "" or v == false or v == 0 then return true end
  if type(v) ~= "table" then return false end
  for _, x in pairs(v) do
    if not zero(x) then return false end
  end
  return true
end

-- a and b describe the same Go value (Argo CD's own check is reflect.DeepEqual on the structs).
local function same(a, b)
  if zero(a) and zero(b) then return true end
  if type(a) ~= type(b) then return false end
  if type(a) ~= "table" then return a == b end
  for k, v in pairs(a) do
    if not same(v, b[k]) then return false end
  end
  for k, v in pairs(b) do
    if a[k] == nil and not zero(v) then return false end
  end
  return true
end

local hs = { status = "Progressing", message = "" }
local spec = obj.spec or {}
-- What this child may wait on, written by the generator (its sync window, its stage ref).
local waitsFor = ((obj.metadata or {}).annotations or {})[${JSON.stringify(WAITS_FOR_ANNOTATION)}]
local policy = spec.syncPolicy or {}
local automated = policy.automated ~= nil and policy.automated.enabled ~= false
if not automated then
  hs.status = "Healthy"
  hs.message = "manual sync: not waited for"
  return hs
end
-- Without the string library the messages cannot be read; a Lua error would keep a parent's wave
-- running (gitops-engine ignores a health it cannot get), so say it.
if type(string) ~= "table" or type(string.find) ~= "function" then
  hs.status = "Degraded"
  hs.message = "${APPLICATION_HEALTH_OPEN_LIBS_KEY} is not \\"true\\" in argocd-cm: this check needs the string library (apply argocd/argocd-cm-patch.yaml)"
  return hs
end
local status = obj.status or {}

-- Its sources: sources, or else source.
local sources = spec.sources
if sources == nil or #sources == 0 then sources = { spec.source } end

-- Whether ref is the stage ref its waits-for annotation names (the generator writes it first).
local function namedStageRef(ref)
  return waitsFor ~= nil and type(ref) == "string" and ref ~= "" and string.find(waitsFor, ${JSON.stringify(STAGE_REF_WAIT)} .. ref .. " ", 1, true) == 1
end

-- Whether an error only says that its own stage ref does not exist yet (the repo server's ls-remote),
-- or does not hold its path yet (a cluster added to the stage, before the first promotion with it).
local function stageRefMissing(c)
  if c.type ~= "ComparisonError" or type(c.message) ~= "string" then return false end
  for _, s in ipairs(sources) do
    local ref = type(s) == "table" and s.targetRevision or nil
    if namedStageRef(ref) then
      if string.find(c.message, "unable to resolve '" .. ref .. "' to a commit SHA", 1, true) ~= nil then return true end
      if type(s.path) == "string" and s.path ~= "" and string.find(c.message, "desc = " .. s.path .. ": app path does not exist", 1, true) ~= nil then return true end
    end
  end
  return false
end

-- The error conditions (a type ending in "Error", as Argo CD's IsError), and whether every one is a wait.
-- A ComparisonError or SyncError is written with a comparison, so it describes the spec compared; the
-- others (InvalidSpecError, UnknownError: the spec checked before any comparison, which they then
-- prevent) describe the current spec.
local withComparison = { ComparisonError = true, SyncError = true }
local errors = {}
local specErrors = {}
local onlyWaits = true
for _, c in ipairs(status.conditions or {}) do
  if type(c.type) == "string" and string.sub(c.type, -5) == "Error" then
    errors[#errors + 1] = c.type .. ": " .. (c.message or "")
    if not withComparison[c.type] then specErrors[#specErrors + 1] = errors[#errors] end
    if not stageRefMissing(c) then onlyWaits = false end
  end
end
local errorText = table.concat(errors, "; ")

if status.sync == nil or zero(status.sync.comparedTo) then
  if #errors > 0 and onlyWaits and waitsFor ~= nil then
    hs.status = "Healthy"
    hs.message = "waits for " .. waitsFor .. ": " .. errorText
    return hs
  end
  if #errors > 0 then
    hs.status = "Degraded"
    hs.message = errorText
    return hs
  end
  hs.message = "waiting for the first comparison"
  return hs
end
-- What Argo CD compared (BuildComparedToStatus): the destination, ignoreDifferences, and either
-- sources (a multi-source spec; source then stays the zero struct) or source.
local compared = status.sync.comparedTo
local multi = spec.sources ~= nil and not zero(spec.sources)
local current = same(compared.destination, spec.destination) and same(compared.ignoreDifferences, spec.ignoreDifferences)
if multi then
  current = current and same(compared.sources, spec.sources) and zero(compared.source)
else
  current = current and same(compared.source, spec.source) and zero(compared.sources)
end
local syncStatus = "sync status " .. (status.sync.status or "unknown")
if #specErrors > 0 then
  hs.status = "Degraded"
  hs.message = syncStatus .. ": " .. table.concat(specErrors, "; ")
  return hs
end
if not current then
  hs.message = "waiting for Argo CD to compare the new spec"
  return hs
end
if #errors > 0 then
  if onlyWaits and waitsFor ~= nil then
    hs.status = "Healthy"
    hs.message = syncStatus .. ": waits for " .. waitsFor .. "; " .. errorText
  else
    hs.status = "Degraded"
    hs.message = syncStatus .. ": " .. errorText
  end
  return hs
end
local op = status.operationState
local failed = op ~= nil and (op.phase == "Failed" or op.phase == "Error")
if op ~= nil and op.phase == "Running" and type(op.message) == "string" and string.find(op.message, "waiting for pruning confirmation of ", 1, true) == 1 then
  hs.status = "Degraded"
  hs.message = "sync Running: " .. op.message .. ": a person confirms it (argocd app confirm-deletion " .. ((obj.metadata or {}).name or "NAME") .. ", or Confirm Pruning in the UI)"
  return hs
end
if op ~= nil and not failed and op.phase ~= "Succeeded" then
  hs.message = "sync " .. (op.phase or "pending")
  return hs
end
if status.sync.status ~= "Synced" then
  if failed then
    hs.status = "Degraded"
    hs.message = "last sync " .. op.phase .. ": " .. (op.message or "")
    return hs
  end
  if waitsFor ~= nil then
    hs.status = "Healthy"
    hs.message = syncStatus .. ": waits for " .. waitsFor
    return hs
  end
  hs.message = syncStatus .. ": waiting for automated sync (lasting: a sync window holds it)"
  return hs
end
if status.health == nil or zero(status.health.status) then
  hs.message = "waiting for Argo CD to assess the resources' health"
  return hs
end
hs.status = status.health.status
if hs.status == "Healthy" then
  hs.message = "synced and healthy"
else
  hs.message = "Argo CD reports the resources " .. hs.status
end
return hs
`;

/**
 * The health of an object whose controller reports a `Ready`-like condition in
 * `status.conditions` (metav1.Condition: type, status True/False/Unknown, reason, message,
 * observedGeneration), as Argo CD's health Lua (Lua 5.1; base, table, package and a safe os only):
 * - Progressing with no status yet, while the condition was observed for an older generation,
 *   or while it is Unknown;
 * - Degraded when it is False (reason: message);
 * - Healthy when it is True.
 * `types` are the condition types read, first found wins.
 */
function conditionHealthLua(what: string, types: readonly string[]): string {
  return `-- karpenter-gitops: health of a ${what} from its status conditions.
-- Lua 5.1 (Argo CD runs health checks with gopher-lua); no string or math library.
local hs = { status = "Progressing", message = "waiting for the controller to report ${types.join(' or ')}" }
local wanted = { ${types.map((t) => `${t} = true`).join(', ')} }
local status = obj.status
if status == nil or status.conditions == nil then return hs end
local generation = (obj.metadata or {}).generation
for _, c in ipairs(status.conditions) do
  if wanted[c.type] then
    if generation ~= nil and c.observedGeneration ~= nil and c.observedGeneration < generation then
      hs.message = "waiting for the controller to observe generation " .. generation
      return hs
    end
    if c.status == "True" then
      hs.status = "Healthy"
      hs.message = c.type .. (c.message ~= nil and c.message ~= "" and (": " .. c.message) or "")
    elseif c.status == "False" then
      hs.status = "Degraded"
      hs.message = c.type .. " is False: " .. (c.reason or "") .. ": " .. (c.message or "")
    else
      hs.message = c.type .. " is " .. (c.status or "Unknown") .. ": " .. (c.message or "")
    end
    return hs
  end
end
return hs
`;
}

/**
 * Health of a `karpenter.sh/NodeOverlay` (Argo CD has none): its `Ready` condition, which
 * Karpenter sets False when the overlay conflicts with another or its requirements are invalid.
 * The status is the CRD's `status.conditions` (metav1.Condition; printer column Ready).
 * @see https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/crds/karpenter.sh_nodeoverlays.yaml
 * @see https://karpenter.sh/docs/concepts/nodeoverlays/
 */
export const NODE_OVERLAY_HEALTH_LUA = conditionHealthLua('NodeOverlay', ['Ready']);

/**
 * Health of an `autoscaling.x-k8s.io/CapacityBuffer` (Argo CD has none), from the two
 * conditions Karpenter 1.14.1 writes:
 * - `ReadyForProvisioning`, by the buffer controller: True once the pod template resolves,
 *   False with `PodTemplateNotFound` while the PodTemplate is missing (a buffer reconciled
 *   before its PodTemplate: Progressing, not Degraded), or another reason (Degraded);
 *   kubernetes-sigs/karpenter v1.14.1 pkg/controllers/capacitybuffer/controller.go l. 168-195,
 *   constants.go l. 22-26;
 * - `Provisioning`, by the provisioner on each scheduling pass (the buffer controller triggers
 *   one every 30s, controller.go l. 116-123): True `FitsExistingCapacity` when every virtual pod
 *   fits on existing nodes, i.e. the headroom exists (Healthy); False `RequiresNewCapacity`
 *   while Karpenter launches nodes for it (Progressing); False `BufferEmpty` with zero replicas
 *   (Healthy: nothing to keep); False `NotReadyForProvisioning` follows the first condition
 *   (pkg/controllers/provisioning/buffers.go l. 146-190).
 * Both carry observedGeneration; one observed for an older generation is Progressing.
 * Lua 5.1, with only the libraries Argo CD opens for health checks.
 */
export const CAPACITY_BUFFER_HEALTH_LUA = `-- karpenter-gitops: health of a CapacityBuffer from Karpenter's ReadyForProvisioning and Provisioning conditions.
-- Lua 5.1 (Argo CD runs health checks with gopher-lua); no string or math library.
local hs = { status = "Progressing", message = "waiting for Karpenter to resolve the buffer's pod template" }
local status = obj.status
if status == nil or status.conditions == nil then return hs end
local generation = (obj.metadata or {}).generation
local byType = {}
for _, c in ipairs(status.conditions) do
  byType[c.type] = c
end
local function stale(c)
  return generation ~= nil and c.observedGeneration ~= nil and c.observedGeneration < generation
end
local ready = byType.ReadyForProvisioning
if ready == nil then return hs end
if stale(ready) then
  hs.message = "waiting for Karpenter to observe generation " .. generation
  return hs
end
if ready.status == "False" then
  if ready.reason == "PodTemplateNotFound" then
    hs.message = "waiting for its PodTemplate: " .. (ready.message or "")
  else
    hs.status = "Degraded"
    hs.message = "ReadyForProvisioning is False: " .. (ready.reason or "") .. ": " .. (ready.message or "")
  end
  return hs
end
if ready.status ~= "True" then
  hs.message = "ReadyForProvisioning is " .. (ready.status or "Unknown")
  return hs
end
local provisioning = byType.Provisioning
if provisioning == nil or stale(provisioning) then
  hs.message = "waiting for Karpenter to place the buffer's pods"
  return hs
end
if provisioning.status == "True" or provisioning.reason == "BufferEmpty" then
  hs.status = "Healthy"
  hs.message = (provisioning.reason or "") .. ": " .. (provisioning.message or "")
  return hs
end
hs.message = "headroom not there yet: " .. (provisioning.reason or "") .. ": " .. (provisioning.message or "")
return hs
`;

/**
 * The health of an `argoproj.io/Application`, as Argo CD's `resource.customizations.health`
 * Lua (gopher-lua, Lua 5.1). Since Argo CD 1.8 an Application has no health of its own, so
 * the sync waves of an app of apps would not wait for each other without it; and a check
 * that only reads `status.health` (Argo CD's documented one) says Healthy while a child is
 * still syncing a new chart version, so the next wave would go at once.
 *
 * For an automated child it reports:
 * - Progressing while its status was computed for another spec (the root just changed it),
 *   while an operation runs, or while it is not Synced;
 * - Degraded when its last operation Failed or Errored and it is still not Synced (gitops-engine
 *   then fails the wave); once it is Synced again (fixed by a later reconcile or by hand), the
 *   failed operation no longer counts;
 * - Healthy, saying why, when it is not Synced only because of what its annotation
 *   `karpenter-gitops.io/waits-for` names (its sync window, its stage ref not created or not
 *   yet holding the cluster): Argo CD writes no condition when a sync window holds an
 *   auto-sync (controller/appcontroller.go v3.5.1 l. 1947-1970 only logs it), so the generator
 *   says which children may wait, and a root or the bootstrap never waits on them;
 * - otherwise Argo CD's own `status.health.status`.
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
 *
 * The script uses only what Argo CD gives a health check: the base, table and package
 * libraries and a safe os (util/lua/lua.go v3.5.1 l. 75-100, unless `useOpenLibs`); no string
 * or math library, and no string methods (the string metatable comes with the string library).
 * The condition types are ApplicationCondition's (types.go l. 1900-1908).
 * @see https://argo-cd.readthedocs.io/en/stable/operator-manual/health/#argocd-app
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/controller/state.go (CompareAppState, specEqualsCompareTo)
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/pkg/apis/application/v1alpha1/types.go (ComparedTo, ApplicationSource)
 * @see https://github.com/argoproj/gitops-engine/blob/master/pkg/sync/sync_context.go (a multi-step sync waits for Healthy, fails on Degraded)
 */
export const APPLICATION_HEALTH_LUA = `-- karpenter-gitops: health of an Application for sync waves across Applications.
-- Lua 5.1 (Argo CD runs health checks with gopher-lua).

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
local waitsFor = ((obj.metadata or {}).annotations or {})["karpenter-gitops.io/waits-for"]
local policy = spec.syncPolicy or {}
local automated = policy.automated ~= nil and policy.automated.enabled ~= false
if not automated then
  hs.status = "Healthy"
  hs.message = "manual sync: not waited for"
  return hs
end
local status = obj.status
-- An error condition says why a child waits. (No string library: Argo CD opens only base, table,
-- package and a safe os for health checks.)
local errorTypes = { ComparisonError = true, InvalidSpecError = true, SyncError = true, DeletionError = true, UnknownError = true }
local errorCondition = nil
for _, c in ipairs((status or {}).conditions or {}) do
  if errorTypes[c.type] then
    errorCondition = c.type .. ": " .. (c.message or "")
    break
  end
end
if status == nil or status.sync == nil or zero(status.sync.comparedTo) then
  if waitsFor ~= nil and errorCondition ~= nil then
    hs.status = "Healthy"
    hs.message = "waits for " .. waitsFor .. ": " .. errorCondition
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
if not current then
  hs.message = "waiting for Argo CD to compare the new spec"
  return hs
end
local op = status.operationState
local failed = op ~= nil and (op.phase == "Failed" or op.phase == "Error")
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
    hs.message = "sync status " .. (status.sync.status or "unknown") .. ": waits for " .. waitsFor .. (errorCondition ~= nil and ("; " .. errorCondition) or "")
    return hs
  end
  hs.message = "sync status " .. (status.sync.status or "unknown") .. ": waiting for automated sync (a pending Prune=confirm or Delete=confirm waits for a person)"
  if errorCondition ~= nil then
    hs.message = "sync status " .. (status.sync.status or "unknown") .. ": " .. errorCondition
  end
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

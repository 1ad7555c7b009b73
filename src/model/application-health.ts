/**
 * The health of an `argoproj.io/Application`, as Argo CD's `resource.customizations.health`
 * Lua (gopher-lua, Lua 5.1). Since Argo CD 1.8 an Application has no health of its own, so
 * the sync waves of an app of apps would not wait for each other without it; and a check
 * that only reads `status.health` (Argo CD's documented one) says Healthy while a child is
 * still syncing a new chart version, so the next wave would go at once.
 *
 * For an automated child it reports:
 * - Progressing while its status was computed for another spec (the root just changed it),
 *   while it is not Synced, or while its last operation has not Succeeded;
 * - Degraded when its last operation Failed or Errored (gitops-engine then fails the wave);
 * - otherwise Argo CD's own `status.health`.
 *
 * A child without automated sync (the smoke tests) is Healthy: nobody syncs it but a person,
 * and a wave must never wait for it.
 * @see https://argo-cd.readthedocs.io/en/stable/operator-manual/health/#argocd-app
 * @see https://github.com/argoproj/gitops-engine/blob/master/pkg/sync/sync_context.go (a multi-step sync waits for Healthy, fails on Degraded)
 */
export const APPLICATION_HEALTH_LUA = `-- karpenter-gitops: health of an Application for sync waves across Applications.
local function same(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) ~= "table" then return a == b end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k, v in pairs(b) do if a[k] == nil then return false end end
  return true
end

local hs = { status = "Progressing", message = "" }
local spec = obj.spec or {}
local policy = spec.syncPolicy or {}
local automated = policy.automated ~= nil and policy.automated.enabled ~= false
if not automated then
  hs.status = "Healthy"
  hs.message = "manual sync: not waited for"
  return hs
end
local status = obj.status
if status == nil or status.sync == nil then
  hs.message = "waiting for the first comparison"
  return hs
end
local compared = status.sync.comparedTo
if compared == nil or not same(compared.source, spec.source) or not same(compared.sources, spec.sources) then
  hs.message = "waiting for Argo CD to compare the new spec"
  return hs
end
local op = status.operationState
if op ~= nil and (op.phase == "Failed" or op.phase == "Error") then
  hs.status = "Degraded"
  hs.message = "last sync " .. op.phase .. ": " .. (op.message or "")
  return hs
end
if op ~= nil and op.phase ~= "Succeeded" then
  hs.message = "sync " .. (op.phase or "pending")
  return hs
end
if status.sync.status ~= "Synced" then
  hs.message = "sync status " .. (status.sync.status or "unknown") .. ": waiting for automated sync (a pending Prune=confirm or Delete=confirm waits for a person)"
  return hs
end
if status.health ~= nil and status.health.status ~= nil then
  hs.status = status.health.status
  hs.message = status.health.message or ""
end
return hs
`;

/**
 * What a Karpenter release's controller accepts in an EC2NodeClass's `spec.kubelet` when its CRD
 * leaves the field open (`ReleaseFacts.kubeletValidatedBy: 'controller'`, from 1.15): the API
 * server and Argo CD take anything, and the controller marks the EC2NodeClass NotReady
 * (ValidationSucceeded=False) on what it refuses, so its pools launch nothing. Transcribed from
 * aws/karpenter-provider-aws at 1d927085 (the line 1.15.0 was cut from); every rule cites its line.
 * Re-read these files on every upgrade of a release whose kubelet is open:
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/apis/v1/kubeletconfiguration_validation.go
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/controllers/nodeclass/validation.go
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/apis/v1/kubeletconfiguration.go
 */
import { QUANTITY_PATTERN } from '../quantity/quantity';
import { parseGoDuration } from '../release/go-values';
import type { FieldPath } from '../input/problems';

/** How a field of the kubelet's configuration is typed, as a strict JSON decode checks it. */
type FieldKind = 'boolean' | 'string' | 'integer' | 'number' | 'duration' | 'stringMap' | 'boolMap' | 'stringList' | 'integerList' | 'list' | 'object';

/**
 * Every field of `KubeletConfiguration` (k8s.io/kubelet config/v1beta1, v0.36.3: the version
 * go.mod pins at 1d927085), by JSON name, with the type a strict decode holds it to (line numbers
 * in types.go at v0.36.3). The controller decodes spec.kubelet into it with
 * `sigsjson.UnmarshalStrict`: an unknown field or a wrong type is refused.
 * @see https://github.com/kubernetes/kubelet/blob/v0.36.3/config/v1beta1/types.go#L120
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/apis/v1/kubeletconfiguration_validation.go#L117-L141
 */
const KUBELET_CONFIGURATION_FIELDS: Readonly<Record<string, FieldKind>> = {
  apiVersion: 'string', // metav1.TypeMeta, inline
  kind: 'string',
  enableServer: 'boolean', // L126
  staticPodPath: 'string', // L131
  podLogsDir: 'string', // L137
  syncFrequency: 'duration', // L142
  fileCheckFrequency: 'duration', // L147
  httpCheckFrequency: 'duration', // L151
  staticPodURL: 'string', // L155
  staticPodURLHeader: 'object', // L159
  address: 'string', // L164
  port: 'integer', // L169
  readOnlyPort: 'integer', // L176
  tlsCertFile: 'string', // L184
  tlsPrivateKeyFile: 'string', // L188
  tlsCipherSuites: 'stringList', // L194
  tlsCurvePreferences: 'integerList', // L204
  tlsMinVersion: 'string', // L209
  rotateCertificates: 'boolean', // L215
  serverTLSBootstrap: 'boolean', // L223
  authentication: 'object', // L232
  authorization: 'object', // L240
  registryPullQPS: 'integer', // L246
  registryBurst: 'integer', // L253
  imagePullCredentialsVerificationPolicy: 'string', // L267
  preloadedImagesVerificationAllowlist: 'stringList', // L275
  eventRecordQPS: 'integer', // L280
  eventBurst: 'integer', // L287
  enableDebuggingHandlers: 'boolean', // L293
  enableContentionProfiling: 'boolean', // L297
  healthzPort: 'integer', // L302
  healthzBindAddress: 'string', // L306
  oomScoreAdj: 'integer', // L311
  clusterDomain: 'string', // L317
  clusterDNS: 'stringList', // L323
  streamingConnectionIdleTimeout: 'duration', // L329
  nodeStatusUpdateFrequency: 'duration', // L337
  nodeStatusReportFrequency: 'duration', // L347
  nodeLeaseDurationSeconds: 'integer', // L357
  imageMinimumGCAge: 'duration', // L364
  imageMaximumGCAge: 'duration', // L370
  imageGCHighThresholdPercent: 'integer', // L378
  imageGCLowThresholdPercent: 'integer', // L386
  volumeStatsAggPeriod: 'duration', // L391
  kubeletCgroups: 'string', // L395
  systemCgroups: 'string', // L402
  cgroupRoot: 'string', // L406
  cgroupsPerQOS: 'boolean', // L412
  cgroupDriver: 'string', // L417
  cpuManagerPolicy: 'string', // L421
  singleProcessOOMKill: 'boolean', // L430
  cpuManagerPolicyOptions: 'stringMap', // L435
  cpuManagerReconcilePeriod: 'duration', // L439
  memoryManagerPolicy: 'string', // L444
  topologyManagerPolicy: 'string', // L458
  topologyManagerScope: 'string', // L467
  topologyManagerPolicyOptions: 'stringMap', // L473
  qosReserved: 'stringMap', // L481
  runtimeRequestTimeout: 'duration', // L486
  hairpinMode: 'string', // L500
  maxPods: 'integer', // L505
  podCIDR: 'string', // L510
  podPidsLimit: 'integer', // L514
  resolvConf: 'string', // L520
  runOnce: 'boolean', // L525
  cpuCFSQuota: 'boolean', // L530
  cpuCFSQuotaPeriod: 'duration', // L536
  nodeStatusMaxImages: 'integer', // L542
  maxOpenFiles: 'integer', // L547
  contentType: 'string', // L551
  kubeAPIQPS: 'integer', // L555
  kubeAPIBurst: 'integer', // L560
  serializeImagePulls: 'boolean', // L567
  maxParallelImagePulls: 'integer', // L573
  evictionHard: 'stringMap', // L583
  evictionSoft: 'stringMap', // L588
  evictionSoftGracePeriod: 'stringMap', // L593
  evictionPressureTransitionPeriod: 'duration', // L599
  evictionMaxPodGracePeriod: 'integer', // L605
  evictionMinimumReclaim: 'stringMap', // L612
  mergeDefaultEvictionSettings: 'boolean', // L622
  podsPerCore: 'integer', // L628
  enableControllerAttachDetach: 'boolean', // L636
  protectKernelDefaults: 'boolean', // L642
  makeIPTablesUtilChains: 'boolean', // L648
  iptablesMasqueradeBit: 'integer', // L654
  iptablesDropBit: 'integer', // L659
  featureGates: 'boolMap', // L665
  failSwapOn: 'boolean', // L669
  memorySwap: 'object', // L673
  containerLogMaxSize: 'string', // L678
  containerLogMaxFiles: 'integer', // L683
  containerLogMaxWorkers: 'integer', // L690
  containerLogMonitorInterval: 'duration', // L698
  configMapAndSecretChangeDetectionStrategy: 'string', // L708
  systemReserved: 'stringMap', // L718
  kubeReserved: 'stringMap', // L726
  reservedSystemCPUs: 'string', // L731
  showHiddenMetricsForVersion: 'string', // L741
  systemReservedCgroup: 'string', // L748
  kubeReservedCgroup: 'string', // L755
  enforceNodeAllocatable: 'stringList', // L768
  allowedUnsafeSysctls: 'stringList', // L774
  volumePluginDir: 'string', // L779
  providerID: 'string', // L784
  kernelMemcgNotification: 'boolean', // L790
  logging: 'object', // L797
  enableSystemLogHandler: 'boolean', // L801
  enableSystemLogQuery: 'boolean', // L808
  shutdownGracePeriod: 'duration', // L814
  shutdownGracePeriodCriticalPods: 'duration', // L824
  shutdownGracePeriodByPodPriority: 'list', // L853
  crashLoopBackOff: 'object', // L858
  reservedMemory: 'list', // L880
  enableProfilingHandler: 'boolean', // L884
  enableDebugFlagsHandler: 'boolean', // L888
  seccompDefault: 'boolean', // L892
  memoryThrottlingFactor: 'number', // L901
  memoryReservationPolicy: 'string', // L911
  registerWithTaints: 'list', // L917
  registerNode: 'boolean', // L921
  tracing: 'object', // L926
  localStorageCapacityIsolation: 'boolean', // L937
  containerRuntimeEndpoint: 'string', // L942
  imageServiceEndpoint: 'string', // L949
  failCgroupV1: 'boolean', // L957
  userNamespaces: 'object', // L961
};

/**
 * The fields Karpenter itself maps into bootstrap (`ParsedKubeletConfig`'s JSON tags): the only
 * ones an AMI family other than AL2023 applies.
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/apis/v1/kubeletconfiguration.go#L33-L64
 */
const MANAGED_FIELDS: ReadonlySet<string> = new Set([
  'clusterDNS', 'maxPods', 'podsPerCore', 'systemReserved', 'kubeReserved', 'evictionHard', 'evictionSoft',
  'evictionSoftGracePeriod', 'evictionMaxPodGracePeriod', 'imageGCHighThresholdPercent', 'imageGCLowThresholdPercent', 'cpuCFSQuota',
]);

/** @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/apis/v1/kubeletconfiguration_validation.go#L37-L44 */
const EVICTION_SIGNALS = ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available'];
/** @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/apis/v1/kubeletconfiguration_validation.go#L48 */
const RESERVED_RESOURCES = ['cpu', 'memory', 'ephemeral-storage', 'pid'];
/** @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/apis/v1/kubeletconfiguration_validation.go#L55-L57 */
const KARPENTER_OWNED: Readonly<Record<string, string>> = {
  registerWithTaints: 'Karpenter sets it from the NodeClaim\'s taints so the node registers unschedulable until it\'s ready: set the pool\'s taints or startupTaints instead',
};

/** One thing the controller refuses, at a path below `kubelet`. */
export interface KubeletFinding {
  /** The path below the pool's `kubelet` (`['evictionHard', 'memory.avail']`). */
  readonly path: FieldPath;
  /** What it refuses and why, lowercase. */
  readonly message: string;
}

/**
 * Whether a kubeReserved/systemReserved value is a quantity (used as is) or a CEL expression
 * (evaluated per instance type): the controller tries `resource.ParseQuantity` first.
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/apis/v1/kubeletconfiguration.go#L136-L150
 */
export function isQuantity(value: string): boolean {
  return QUANTITY_PATTERN.test(value);
}

/**
 * Everything the controller of a release with an open `spec.kubelet` refuses in this kubelet
 * configuration for a pool of AMI family `family`, all at once (the controller stops at a type
 * error; these are every finding it would report one fix at a time).
 */
export function controllerKubeletFindings(kc: Readonly<Record<string, unknown>>, family: string): KubeletFinding[] {
  const out: KubeletFinding[] = [];
  const add = (path: FieldPath, message: string) => out.push({ path, message });
  if (Object.keys(kc).length === 0) return out; // L106-L108
  // validateAgainstUpstreamType, L117-L141: unknown fields and wrong types. A string maxPods is a
  // CEL expression and decoded as a placeholder (L122-L125).
  for (const [key, value] of Object.entries(kc)) {
    const kind = KUBELET_CONFIGURATION_FIELDS[key];
    if (kind === undefined) {
      add([key], `unknown field "${key}": the kubelet configuration (k8s.io/kubelet v0.36.3) has no such field`);
      continue;
    }
    if (key === 'maxPods' && typeof value === 'string') continue;
    const wrong = typeProblem(kind, value);
    if (wrong) add([key], wrong);
  }
  // L152-L156: fields Karpenter owns.
  for (const [field, why] of Object.entries(KARPENTER_OWNED)) if (field in kc) add([field], `can't be set: ${why}`);
  // L162-L182: eviction maps keyed by signal; thresholds a percentage or a quantity, grace periods durations.
  for (const field of ['evictionHard', 'evictionSoft', 'evictionSoftGracePeriod', 'evictionMinimumReclaim']) {
    const signals = stringMap(kc[field]);
    if (!signals) continue;
    for (const key of Object.keys(signals).sort()) {
      if (!EVICTION_SIGNALS.includes(key)) add([field, key], `"${key}" isn't a valid eviction signal, must be one of ${EVICTION_SIGNALS.join(', ')}`);
      const why = field === 'evictionSoftGracePeriod' ? gracePeriodProblem(signals[key]) : thresholdProblem(signals[key]);
      if (why) add([field, key], why);
    }
  }
  // L188-L199: soft thresholds and grace periods come in pairs; an absent map counts as empty.
  const soft = stringMap(kc.evictionSoft) ?? {};
  const grace = stringMap(kc.evictionSoftGracePeriod) ?? {};
  for (const signal of Object.keys(soft).sort()) if (!(signal in grace)) add(['evictionSoft', signal], 'has no matching evictionSoftGracePeriod');
  for (const signal of Object.keys(grace).sort()) if (!(signal in soft)) add(['evictionSoftGracePeriod', signal], 'has no matching evictionSoft');
  // L205-L220: reservable resources only, never negative; a value may be a CEL expression.
  for (const field of ['kubeReserved', 'systemReserved']) {
    const reserved = stringMap(kc[field]);
    if (!reserved) continue;
    for (const key of Object.keys(reserved).sort()) {
      if (!RESERVED_RESOURCES.includes(key)) add([field, key], `"${key}" isn't a reservable resource, must be one of ${RESERVED_RESOURCES.join(', ')}`);
      if (reserved[key].startsWith('-')) add([field, key], `"${reserved[key]}" can't be a negative resource quantity`);
    }
  }
  // L224-L240: percentages 0 to 100; counts and grace periods not negative; maxPods when an integer.
  for (const field of ['imageGCHighThresholdPercent', 'imageGCLowThresholdPercent']) {
    const v = kc[field];
    if (Number.isInteger(v) && ((v as number) < 0 || (v as number) > 100)) add([field], `${String(v)} must be between 0 and 100`);
  }
  for (const field of ['podsPerCore', 'evictionMaxPodGracePeriod', 'maxPods']) {
    const v = kc[field];
    if (Number.isInteger(v) && (v as number) < 0) add([field], `${String(v)} can't be negative`);
  }
  // L244-L248: an inverted pair would never collect.
  const high = kc.imageGCHighThresholdPercent;
  const low = kc.imageGCLowThresholdPercent;
  if (Number.isInteger(high) && Number.isInteger(low) && (high as number) <= (low as number)) {
    add(['imageGCHighThresholdPercent'], `imageGCHighThresholdPercent (${String(high)}) must be greater than imageGCLowThresholdPercent (${String(low)})`);
  }
  out.push(...familyFindings(kc, family));
  return out;
}

/**
 * validateKubeletFieldsSupported: only AL2023 renders the raw configuration through
 * (`SupportsArbitraryKubeletConfig`, al2023.go L44); AL2, Bottlerocket and Windows apply only the
 * fields Karpenter maps, Bottlerocket not podsPerCore (bottlerocket.go L212), and pass clusterDNS
 * to a single-valued parameter. Custom is exempt.
 * @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/controllers/nodeclass/validation.go#L702-L748
 */
function familyFindings(kc: Readonly<Record<string, unknown>>, family: string): KubeletFinding[] {
  if (family === 'Custom' || family === 'AL2023') return [];
  const out: KubeletFinding[] = [];
  for (const key of Object.keys(kc).sort()) {
    if (!MANAGED_FIELDS.has(key) && key in KUBELET_CONFIGURATION_FIELDS) {
      out.push({ path: [key], message: `the ${family} AMI family does not apply it (only AL2023 applies fields beyond the ${MANAGED_FIELDS.size} Karpenter maps): it would be silently dropped, so Karpenter refuses it; use AL2023 or remove it` });
    }
  }
  if (family === 'Bottlerocket' && kc.podsPerCore !== undefined) {
    out.push({ path: ['podsPerCore'], message: 'the Bottlerocket AMI family has no setting for it: it would be silently dropped, so Karpenter refuses it; use maxPods instead' });
  }
  if (Array.isArray(kc.clusterDNS) && kc.clusterDNS.length > 1) {
    out.push({ path: ['clusterDNS'], message: `the ${family} AMI family doesn't accept multiple entries, only one, but ${kc.clusterDNS.length} were set` });
  }
  return out;
}

/** Why a strict JSON decode refuses `value` for a field of this kind, or undefined. */
function typeProblem(kind: FieldKind, value: unknown): string | undefined {
  const ok = (() => {
    switch (kind) {
      case 'boolean': return typeof value === 'boolean';
      case 'string': return typeof value === 'string';
      case 'integer': return Number.isInteger(value);
      case 'number': return typeof value === 'number';
      // metav1.Duration decodes a string with time.ParseDuration.
      case 'duration': return typeof value === 'string' && typeof parseGoDuration(value) === 'bigint';
      case 'stringMap': return isPlainMap(value) && Object.values(value).every((v) => typeof v === 'string');
      case 'boolMap': return isPlainMap(value) && Object.values(value).every((v) => typeof v === 'boolean');
      case 'stringList': return Array.isArray(value) && value.every((v) => typeof v === 'string');
      case 'integerList': return Array.isArray(value) && value.every((v) => Number.isInteger(v));
      case 'list': return Array.isArray(value);
      case 'object': return isPlainMap(value);
    }
  })();
  const what: Readonly<Record<FieldKind, string>> = {
    boolean: 'true or false', string: 'a string', integer: 'a whole number', number: 'a number', duration: 'a duration such as "30s"',
    stringMap: 'a map of strings', boolMap: 'a map of true or false', stringList: 'a list of strings', integerList: 'a list of whole numbers', list: 'a list', object: 'a map',
  };
  return ok ? undefined : `must be ${what[kind]}, got ${JSON.stringify(value)}`;
}

/** @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/apis/v1/kubeletconfiguration_validation.go#L63-L81 */
function thresholdProblem(value: string): string | undefined {
  if (value.endsWith('%')) {
    const pct = value.slice(0, -1);
    const n = Number(pct);
    return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(pct) && n >= 0 && n <= 100 ? undefined : `"${value}" must be a percentage or a resource quantity`;
  }
  if (!QUANTITY_PATTERN.test(value)) return `"${value}" must be a percentage or a resource quantity`;
  return value.startsWith('-') && !/^-0*(\.0*)?([a-zA-Z]+)?$/.test(value) ? `"${value}" can't be a negative resource quantity` : undefined;
}

/** @see https://github.com/aws/karpenter-provider-aws/blob/1d927085/pkg/apis/v1/kubeletconfiguration_validation.go#L87-L96 */
function gracePeriodProblem(value: string): string | undefined {
  const nanos = parseGoDuration(value);
  if (typeof nanos !== 'bigint') return `"${value}" must be a duration`;
  return nanos < 0n ? `"${value}" can't be a negative duration` : undefined;
}

function stringMap(value: unknown): Record<string, string> | undefined {
  return isPlainMap(value) && Object.values(value).every((v) => typeof v === 'string') ? value as Record<string, string> : undefined;
}

function isPlainMap(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

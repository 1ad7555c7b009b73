// GENERATED FILE - DO NOT EDIT BY HAND.
//
// Generated from the karpenter 1.14.1 Helm chart's values.yaml
// (sha256 38652eae97bec5bf709a394d1f4260398ed8c564f567927bb19fe46f7a6fa4ab) by src/upgrade/chart-keys-generator.ts.
//
// To regenerate when bumping the Karpenter version: npm run upgrade -- X.Y.Z
// (README, "Upgrading Karpenter"), then review the diff and the notes it prints about
// commented-out keys.

/** The Karpenter Helm chart version whose values.yaml this key tree describes. */
export const CHART_VERSION = '1.14.1';

import type { ChartKeyNode } from './types';

/** Every key of the karpenter 1.14.1 chart's values.yaml, as a tree rooted at the top level. */
export const CHART_VALUES_KEYS: ChartKeyNode = {
  children: {
    additionalAnnotations: { freeForm: true }, // default {}
    additionalClusterRoleRules: { freeForm: true }, // default []
    additionalLabels: { freeForm: true }, // default {}
    affinity: { freeForm: true }, // pass-through
    controller: {
      children: {
        containerName: {},
        env: { freeForm: true }, // default []
        envFrom: { freeForm: true }, // default []
        extraVolumeMounts: { freeForm: true }, // default []
        healthProbe: {
          children: {
            port: {},
          },
        },
        image: {
          children: {
            digest: {},
            repository: {},
            tag: {},
          },
        },
        metrics: {
          children: {
            port: {},
          },
        },
        resources: { freeForm: true }, // pass-through
        securityContext: { freeForm: true }, // pass-through
        sidecarContainer: { freeForm: true }, // default []
        sidecarVolumeMounts: { freeForm: true }, // default []
      },
    },
    dnsConfig: { freeForm: true }, // pass-through
    dnsPolicy: {},
    extraVolumes: { freeForm: true }, // default []
    fullnameOverride: {},
    hostNetwork: {},
    imagePullPolicy: {},
    imagePullSecrets: { freeForm: true }, // default []
    initContainers: { freeForm: true }, // default {}
    logErrorOutputPaths: { freeForm: true }, // default []
    logLevel: {},
    logOutputPaths: { freeForm: true }, // default []
    nameOverride: {},
    nodeSelector: { freeForm: true }, // pass-through
    podAnnotations: { freeForm: true }, // default {}
    podDisruptionBudget: {
      children: {
        maxUnavailable: {},
        name: {},
      },
    },
    podLabels: { freeForm: true }, // default {}
    podSecurityContext: { freeForm: true }, // pass-through
    priorityClassName: {},
    replicas: {},
    revisionHistoryLimit: {},
    schedulerName: {},
    service: {
      children: {
        annotations: { freeForm: true }, // default {}
      },
    },
    serviceAccount: {
      children: {
        annotations: { freeForm: true }, // default {}
        create: {},
        name: {},
      },
    },
    serviceMonitor: {
      children: {
        additionalLabels: { freeForm: true }, // default {}
        enabled: {},
        endpointConfig: { freeForm: true }, // default {}
        metricRelabelings: { freeForm: true }, // default []
        relabelings: { freeForm: true }, // default []
        sampleLimit: {},
      },
    },
    settings: {
      children: {
        amiRefreshInterval: {},
        batchIdleDuration: {},
        batchMaxDuration: {},
        clusterCABundle: {},
        clusterEndpoint: {},
        clusterName: {},
        disableClusterStateObservability: {},
        disableDryRun: {},
        eksControlPlane: {},
        enableZonalShift: {},
        featureGates: {
          children: {
            capacityBuffer: {},
            nodeOverlay: {},
            nodeRepair: {},
            reservedCapacity: {},
            spotToSpotConsolidation: {},
            staticCapacity: {},
          },
        },
        ignoreDRARequests: {},
        interruptionQueue: {},
        isolatedVPC: {},
        minValuesPolicy: {},
        preferencePolicy: {},
        reservedENIs: {},
        subnetRefreshInterval: {},
        vmMemoryOverheadPercent: {},
      },
    },
    strategy: { freeForm: true }, // pass-through
    terminationGracePeriodSeconds: {},
    tolerations: { freeForm: true }, // default []
    topologySpreadConstraints: { freeForm: true }, // default []
  },
};

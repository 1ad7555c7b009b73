// GENERATED FILE - DO NOT EDIT BY HAND.
//
// Generated from the karpenter 1.15.0 Helm chart's values.yaml
// (sha256 03748f34fb6a3b8bbccfe65827475fd869e4eefb0cc1c2314482c9ebfa98d86e) by src/upgrade/chart-keys-generator.ts.
//
// To regenerate when bumping the Karpenter version: npm run upgrade -- X.Y.Z
// (README, "Upgrading Karpenter"), then review the diff and the notes it prints about
// commented-out keys.

/** The Karpenter Helm chart version whose values.yaml this key tree describes. */
export const CHART_VERSION = '1.15.0';

import type { ChartKeyNode } from './types';

/** Every key of the karpenter 1.15.0 chart's values.yaml, as a tree rooted at the top level. */
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
        awsFeatureGates: {
          children: {
            draEFA: {},
            draNVIDIAGPU: {},
            nodeClassCEL: {},
            rebootForRepair: {},
          },
        },
        batchIdleDuration: {},
        batchMaxDuration: {},
        clusterCABundle: {},
        clusterEndpoint: {},
        clusterName: {},
        disableClusterStateObservability: {},
        disableDryRun: {},
        eksControlPlane: {},
        enableDRA: {},
        enableZonalShift: {},
        featureGates: {
          children: {
            capacityBuffer: {},
            nodeOverlay: {},
            nodeRepair: {},
            podDeletionCostManagement: {},
            reservedCapacity: {},
            spotToSpotConsolidation: {},
            staticCapacity: {},
            terminateFirstDrift: {},
            terminateFirstRepair: {},
          },
        },
        ignoreDRARequests: {},
        interruptionQueue: {},
        isolatedVPC: {},
        legacyNodeRepair: {},
        minValuesPolicy: {},
        preferencePolicy: {},
        reservedENIs: {},
        securityGroupRefreshInterval: {},
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

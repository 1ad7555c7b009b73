import * as k8s from 'cdk8s-plus-31/lib/imports/k8s';
import { Construct } from 'constructs';
import { MANAGED_BY } from '../model/node-pool';
import { POLICY_SYNC_OPTIONS, TEAM_TENANCY } from '../model/tenancy';

/** Properties of a {@link TeamTenancyDefinition}. */
export interface TeamTenancyDefinitionProps {
  /** The Argo CD sync wave within the policies Application: before the parameters and the policy. */
  readonly wave: number;
}

/** A string of at most `max` characters (label and name lengths the config already holds to). */
const str = (description: string, max?: number): k8s.JsonSchemaProps => ({ type: 'string', description, ...(max !== undefined ? { maxLength: max } : {}) });

/**
 * The CustomResourceDefinition of the tenancy policy's parameter objects (`TeamTenancy`,
 * cluster-scoped): the policy's `paramKind`. Its schema is exactly what the policy's CEL reads,
 * so the API server refuses a parameter the policy could not judge by. Deleting it deletes every
 * parameter and leaves the policy unable to find its `paramKind` (refusing every object it
 * matches, `failurePolicy: Fail`), so a person confirms it in Argo CD, last.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/#parameter-resources
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/
 */
export class TeamTenancyDefinition extends Construct {
  /** The CRD. */
  public readonly crd: k8s.KubeCustomResourceDefinition;

  public constructor(scope: Construct, id: string, props: TeamTenancyDefinitionProps) {
    super(scope, id);
    const t = TEAM_TENANCY;
    const taint: k8s.JsonSchemaProps = {
      type: 'object',
      required: ['key', 'value', 'effect'],
      properties: { key: str('the taint\'s key', 316), value: str('its value (empty: none)', 63), effect: { type: 'string', enum: ['NoSchedule', 'NoExecute'] } },
    };
    const pool: k8s.JsonSchemaProps = {
      type: 'object',
      required: ['name', 'dedicated', 'labels', 'taints'],
      properties: {
        name: str('the NodePool\'s name', 63),
        dedicated: { type: 'boolean', description: 'its nodes carry the team\'s taint dedicated=<team>:NoSchedule' },
        labels: { type: 'object', description: 'the labels every node of the pool carries', additionalProperties: str('a label value', 63) },
        taints: { type: 'array', description: 'the NoSchedule and NoExecute taints of its nodes', items: taint },
      },
    };
    this.crd = new k8s.KubeCustomResourceDefinition(this, 'Crd', {
      metadata: {
        name: `${t.plural}.${t.group}`,
        labels: { 'app.kubernetes.io/managed-by': MANAGED_BY },
        annotations: { 'argocd.argoproj.io/sync-options': POLICY_SYNC_OPTIONS, 'argocd.argoproj.io/sync-wave': String(props.wave) },
      },
      spec: {
        group: t.group,
        scope: 'Cluster',
        names: { kind: t.kind, listKind: t.listKind, plural: t.plural, singular: t.singular },
        // The API server's default, written out so Argo CD sees no diff.
        conversion: { strategy: 'None' },
        versions: [{
          name: t.version,
          served: true,
          storage: true,
          schema: {
            openApiv3Schema: {
              type: 'object',
              description: 'One team\'s pools on this cluster and the namespaces that may use them: a parameter of the tenancy policy karpenter-gitops-team-pools (docs/tenancy.md). Written by karpenter-gitops; edit config/platform.yaml instead.',
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: {
                  type: 'object',
                  required: ['team', 'namespaces', 'pools'],
                  properties: {
                    team: str('the team', 63),
                    namespaces: { type: 'array', description: 'the namespaces whose objects may use the pools', items: str('a namespace', 63) },
                    pools: { type: 'array', description: 'the team\'s pools (a team with many is split over several objects)', items: pool },
                  },
                },
              },
            },
          },
        }],
      },
    });
  }
}

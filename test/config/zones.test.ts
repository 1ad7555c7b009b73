/**
 * Zones against the cluster's region (contract 6.3): the region comes from the Terraform
 * output `region`, or the host of `cluster_endpoint`; a zone of another region, or a zone ID
 * where a zone name belongs, is an error at the zone.
 */
import { regionOf, zoneProblem } from '../../src/config/terraform';
import { aConfig, aTerraform, removeProjects } from '../builders';
import { load, problemsOf } from './helpers';

afterAll(removeProjects);

const EU = 'https://0123456789ABCDEF0123456789ABCDEF.gr7.eu-west-1.eks.amazonaws.com';

function cluster(zones: string[], outputs: Record<string, unknown> = {}) {
  return {
    config: aConfig({ clusters: { demo: undefined, prod: { terraformOutputs: 'terraform/prod.json' } }, teams: { web: { zones } } }),
    terraform: { prod: aTerraform({ cluster_name: 'prod', cluster_endpoint: EU, ...outputs }) },
  };
}

describe('zones of the cluster region', () => {
  it('reads the region from the region output, else from the endpoint host', () => {
    expect(regionOf({ clusterName: 'a', nodeRoleName: 'b', clusterEndpoint: EU })).toBe('eu-west-1');
    expect(regionOf({ clusterName: 'a', nodeRoleName: 'b', clusterEndpoint: EU, region: 'eu-central-1' })).toBe('eu-central-1');
    expect(regionOf({ clusterName: 'a', nodeRoleName: 'b', clusterEndpoint: 'https://k8s.example.com' })).toBeUndefined();
  });

  it('accepts zone names and Local Zones of the region', () => {
    expect(zoneProblem('eu-west-1a', 'eu-west-1')).toBeUndefined();
    expect(zoneProblem('us-west-2-lax-1a', 'us-west-2')).toBeUndefined();
    expect(load(cluster(['eu-west-1a', 'eu-west-1b'])).platform.clusters[0].pools[0].settings.zones).toEqual(['eu-west-1a', 'eu-west-1b']);
  });

  it('fails when a zone is of another region than the endpoint\'s, at the zone', () => {
    const input = cluster(['eu-west-1a', 'us-east-1a']);
    expect(problemsOf(input)).toEqual([expect.stringMatching(new RegExp(
      `platform\\.yaml:\\d+:\\d+: teams\\.web\\.zones\\[1\\]: cluster prod: "us-east-1a" is not a zone of the cluster's region eu-west-1 \\(it is in us-east-1\\)`))]);
  });

  it('fails when a zone is of another region than the region output', () => {
    expect(problemsOf(cluster(['eu-west-1a'], { region: 'eu-central-1' }))).toEqual([
      expect.stringMatching(/teams\.web\.zones\[0\]: cluster prod: "eu-west-1a" is not a zone of the cluster's region eu-central-1/)]);
  });

  it('fails when zones holds a zone ID, pointing at topology.k8s.aws/zone-id', () => {
    expect(problemsOf(cluster(['euw1-az1']))).toEqual([
      expect.stringMatching(/teams\.web\.zones\[0\]: cluster prod: "euw1-az1" is a zone ID; zones takes zone names .* topology\.k8s\.aws\/zone-id/)]);
  });

  it('fails when the region output is not a region', () => {
    expect(problemsOf(cluster(['eu-west-1a'], { region: 'Ireland' }))).toEqual([
      expect.stringMatching(/prod\.json:\d+:\d+: region\.value: expected an AWS region such as "eu-west-1", got "Ireland"/)]);
  });
});

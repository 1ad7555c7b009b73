/**
 * Advice that quotes what the user wrote (issue 19): an unquoted `kubernetesVersion: 1.30`
 * is told to write "1.30" (its source text, not the number 1.3 the parser read), and a
 * misspelt Terraform outputs file is answered with the closest file of its folder.
 */
import { stringify } from 'yaml';
import { loadPlatform } from '../../src/config/load';
import { formatProblem, InputError } from '../../src/input/problems';
import { aConfig, aTerraform, positionOf, removeProjects, writeProject } from '../builders';

afterAll(removeProjects);

function problemsOf(project: ReturnType<typeof writeProject>): string[] {
  try {
    loadPlatform(project.configPath);
  } catch (err) {
    if (err instanceof InputError) return err.problems.map(formatProblem);
    throw err;
  }
  throw new Error('expected the project to fail');
}

describe('advice quotes the source', () => {
  it('fails when kubernetesVersion is an unquoted 1.30, saying to quote it as "1.30"', () => {
    const config = aConfig({ clusters: { demo: { terraformOutputs: 'terraform/demo.json', kubernetesVersion: 'K8S' } } });
    const rawConfig = stringify(config).replace('kubernetesVersion: K8S', 'kubernetesVersion: 1.30');
    const project = writeProject({ rawConfig });
    expect(problemsOf(project)).toEqual([expect.stringMatching(new RegExp(
      `platform\\.yaml:${positionOf(rawConfig, '1.30')}: clusters\\.demo\\.kubernetesVersion: expected a string, got number 1\\.30 \\(quote it: "1\\.30"\\)$`))]);
  });

  it('fails when a Terraform outputs file is misspelt, naming the closest file of its folder', () => {
    const rawConfig = stringify(aConfig({ clusters: { demo: undefined, staging: { terraformOutputs: 'terraform/stagin.json' } } }));
    const project = writeProject({ rawConfig, terraform: { staging: aTerraform({ cluster_name: 'staging' }) } });
    expect(problemsOf(project)).toEqual([expect.stringMatching(new RegExp(
      `platform\\.yaml:${positionOf(rawConfig, 'terraform/stagin.json')}: clusters\\.staging\\.terraformOutputs: file not found: .*stagin\\.json `
      + '\\(did you mean staging\\.json\\? \\(terraformOutputs: terraform/staging\\.json\\)\\)$'))]);
  });
});

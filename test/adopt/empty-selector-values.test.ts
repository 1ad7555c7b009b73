/**
 * Adoption of a live EC2NodeClass whose selector terms have an empty value (an empty tags map,
 * name or ssmParameter; aws/karpenter-provider-aws#9964): refused as the config refuses it, with
 * the same reason, at the term's line in the export, every one at once, and nothing written.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { aTerraform, removeProjects, writeProject } from '../builders';
import { cli } from '../review/fleet';

afterAll(removeProjects);

const LIVE = join(__dirname, '..', 'fixtures', 'adoption', 'live-1.14.1.yaml');

/** The reason the config gives (test/config/empty-selector-values.test.ts), for `what`. */
const because = (what: string) => new RegExp(`is empty: Karpenter 1\\.9\\.4, 1\\.14\\.4 and 1\\.15\\.3 and later ignore a selector term with ${what} `
  + '\\(aws/karpenter-provider-aws#9964: with every term empty the EC2NodeClass is NotReady, with some the selection narrows and nodes drift\\)');

/** The one-cluster project both adoptions run in. */
function aProject() {
  return writeProject({
    config: {
      gitops: { repoURL: 'https://github.com/acme/platform-gitops.git' },
      karpenter: { version: '1.14.1' },
      clusters: { 'prod-eu-01': { terraformOutputs: 'terraform/prod-eu-01.json' } },
      defaults: { ami: { alias: 'al2023@v20260409' }, limits: { cpu: '100', memory: '400Gi' } },
      teams: { web: {} },
    },
    terraform: { 'prod-eu-01': aTerraform({ cluster_name: 'prod-eu-01', karpenter_node_role_name: 'KarpenterNodeRole-prod-eu-01', cluster_version: '1.34' }) },
  });
}

it('refuses a live selector term with an empty value, at its line in the export, with the reason the config gives, and writes nothing', async () => {
  const project = aProject();
  const before = readFileSync(project.configPath, 'utf8');
  // EC2NodeClass gpu: its security group by an empty name, and a subnet term with no tag.
  const text = readFileSync(LIVE, 'utf8').replace('    - name: prod-eu-01-node\n    subnetSelectorTerms:\n', '    - name: ""\n    subnetSelectorTerms:\n    - tags: {}\n');
  expect(text).toContain('- name: ""');
  const edited = join(project.dir, 'live.yaml');
  writeFileSync(edited, text);
  const lineOf = (needle: string) => text.slice(0, text.indexOf(needle)).split('\n').length;

  const r = await cli(['adopt', 'prod-eu-01', '--live', edited, '--config', project.configPath]);
  expect(r.code).toBe(1);
  const err = r.err.split('\n');
  expect(err).toEqual(expect.arrayContaining([
    expect.stringMatching(new RegExp(`live\\.yaml:${lineOf('- name: ""')}:\\d+: items\\[\\d+\\]\\.spec\\.securityGroupSelectorTerms\\[1\\]\\.name: EC2NodeClass gpu: ${because('an empty name').source}; give the name, or remove the term$`)),
    expect.stringMatching(new RegExp(`live\\.yaml:${lineOf('- tags: {}')}:\\d+: items\\[\\d+\\]\\.spec\\.subnetSelectorTerms\\[0\\]\\.tags: EC2NodeClass gpu: ${because('an empty tags map').source}`)),
  ]));
  expect(r.err).not.toMatch(/#9964.*the config cannot say it yet/);
  expect(r.err).toMatch(/^2 problem\(s\) found; nothing was written$/m);
  expect(readFileSync(project.configPath, 'utf8')).toBe(before);
});

it('refuses a live AMI term with an empty name and an owner, suggesting name: "*" with that owner, as the release notes do', async () => {
  const project = aProject();
  // EC2NodeClass default: every AMI of account 123456789012, as 1.14.1 reads an empty name with an owner.
  const text = readFileSync(LIVE, 'utf8').replace('    amiSelectorTerms:\n    - alias: al2023@v20260409\n', '    amiFamily: AL2023\n    amiSelectorTerms:\n    - name: ""\n      owner: "123456789012"\n');
  expect(text).toContain('    - name: ""\n      owner:');
  const edited = join(project.dir, 'live.yaml');
  writeFileSync(edited, text);
  const r = await cli(['adopt', 'prod-eu-01', '--live', edited, '--config', project.configPath]);
  expect(r.code).toBe(1);
  expect(r.err).toMatch(new RegExp(`items\\[\\d+\\]\\.spec\\.amiSelectorTerms\\[0\\]\\.name: EC2NodeClass default: ${because('an empty name').source}; `
    + 'to select all of owner 123456789012\'s AMIs write name: "\\*" with the owner \\(\\{ name: "\\*", owner: 123456789012 \\}; aws/karpenter-provider-aws#9964\\), or give the name, or remove the term$', 'm'));
});

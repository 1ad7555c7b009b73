/**
 * `npm run upgrade` to a patch release that changes how the controller behaves says what
 * changes (src/release/behaviour-changes.ts): to 1.14.4, that selector terms with empty values
 * are now ignored (aws/karpenter-provider-aws#9964); to a minor the support table lacks, that
 * its row is to be added. The releases are the vendored one (test/fixtures/karpenter-release)
 * renumbered: nothing is downloaded.
 */
import { CHART_VERSION } from '../../src/release/chart-values-keys.generated';
import { changesBetween, EMPTY_SELECTOR_VALUES, hasChange } from '../../src/release/behaviour-changes';
import { upgradeCommand } from '../../src/upgrade/command';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { aRelease, aRepository, capture, CDK8S_BIN, removeImportMemo, replaceIn, REPO } from './builders';

jest.setTimeout(60_000);
afterAll(removeImportMemo);

/** The vendored release, as Karpenter `version`. */
const releaseAs = (version: string) => aRelease((dir) => replaceIn(dir, 'charts/karpenter/Chart.yaml', `\nversion: ${CHART_VERSION}\n`, `\nversion: ${version}\n`));

/** `npm run upgrade -- VERSION --from` the vendored release renumbered, into a copy of this repository. */
async function upgradeTo(version: string, root: string = aRepository()) {
  const c = capture();
  const code = await upgradeCommand([version, '--from', releaseAs(version)], c.io, { root, cdk8sBin: CDK8S_BIN, env: {} });
  return { code, out: c.out.join('\n'), err: c.err.join('\n') };
}

describe('npm run upgrade to a patch release that changes behaviour', () => {
  it('says what 1.14.4 changes: selector terms with empty values are ignored (aws#9964), and what karpenter-gitops does about it', async () => {
    const { code, out, err } = await upgradeTo('1.14.4');
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toMatch(new RegExp(`^Karpenter ${CHART_VERSION.replace(/\./g, '\\.')} → 1\\.14\\.4 `, 'm'));
    expect(out).toMatch(new RegExp('^behaviour changes \\(patch releases\\):\\n'
      + ' {2}\\+ aws/karpenter-provider-aws#9964 \\(Karpenter 1\\.9\\.4, 1\\.14\\.4 and 1\\.15\\.3\\): EC2NodeClass selector terms \\(subnets, security groups, AMIs, capacity reservations, placement group\\) '
      + 'with an empty tags map, an empty name or an empty ssmParameter are ignored: with every term empty the EC2NodeClass becomes NotReady, .*\\n'
      + ' {6}karpenter-gitops refuses such a term in the config .*; https://github\\.com/aws/karpenter-provider-aws/issues/9964$', 'm'));
  });

  it('says which of this fleet\'s EC2NodeClasses it affects: a class with every AMI term empty is NotReady, its nodes not replaced by themselves; one empty term of several narrows', async () => {
    // dist/ as this repository has it (cluster demo, Karpenter 1.14.1), with two classes as an
    // earlier karpenter-gitops or a hand edit could have left them: the config refuses such terms
    // now, at any release, so dist/ is the only place the fleet still has them until a synth.
    const root = aRepository();
    cpSync(join(REPO, 'dist'), join(root, 'dist'), { recursive: true });
    replaceIn(root, 'dist/demo/nodepools/web/web.yaml', '  amiSelectorTerms:\n    - alias: al2023@v20260409\n', '  amiSelectorTerms:\n    - name: ""\n      owner: "123456789012"\n');
    replaceIn(root, 'dist/demo/nodepools/dataops/dataops.yaml', '  securityGroupSelectorTerms:\n', '  securityGroupSelectorTerms:\n    - name: ""\n');
    const { code, out, err } = await upgradeTo('1.14.4', root);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toMatch(new RegExp('^ {6}in this fleet \\(dist/, as last synthesized\\), 2 EC2NodeClass\\(es\\):\\n'
      + ' {6}- cluster demo \\(it runs 1\\.14\\.1\\), team dataops, pool dataops: EC2NodeClass dataops \\(dist/demo/nodepools/dataops/dataops\\.yaml\\), securityGroupSelectorTerms\\[0\\]\\.name empty: '
      + 'the selection narrows: nodes on what only those terms selected drift and are replaced from the other terms\\n'
      + ' {8}to do: give each term its value in the config, npm run synth and let Argo CD sync cluster demo before it moves to 1\\.14\\.4 or later\\n'
      + ' {6}- cluster demo \\(it runs 1\\.14\\.1\\), team web, pool web: EC2NodeClass web \\(dist/demo/nodepools/web/web\\.yaml\\), amiSelectorTerms\\[0\\]\\.name empty: '
      + 'NotReady: every term of amiSelectorTerms is ignored, so Karpenter launches no node from it; its nodes stay, but none is replaced by itself \\(drift, expiry and repair need a launch\\) until someone acts\\n'
      + ' {8}to do: give each term its value in the config \\(an AMI term meant as every AMI of an owner: name: "\\*" with the owner\\), npm run synth and let Argo CD sync cluster demo before it moves to 1\\.14\\.4 or later$', 'm'));
    expect(out).not.toMatch(/pool ml-gpu/);
  });

  it('says no class of this fleet has such a term when none has', async () => {
    const root = aRepository();
    cpSync(join(REPO, 'dist'), join(root, 'dist'), { recursive: true });
    const { code, out } = await upgradeTo('1.14.4', root);
    expect(code).toBe(0);
    expect(out).toMatch(/^ {6}in this fleet: no EC2NodeClass under dist\/ has such a term$/m);
  });

  it('says nothing of it for a patch before the change, 1.14.3', async () => {
    const { code, out } = await upgradeTo('1.14.3');
    expect(code).toBe(0);
    expect(out).toMatch(/^behaviour changes \(patch releases\): no change$/m);
  });

  it('says it of a later minor too (1.16.0), and that the support table has no row for that minor', async () => {
    const { code, out } = await upgradeTo('1.16.0');
    expect(code).toBe(0);
    expect(out).toMatch(/^ {2}\+ aws\/karpenter-provider-aws#9964 \(Karpenter 1\.9\.4, 1\.14\.4 and 1\.15\.3\): /m);
    expect(out).toMatch(/^check by hand:\n(.*\n)* {2}- src\/release\/support\.ts has no row for Karpenter 1\.16: add the day v1\.16\.0 was released and whether it is LTS/m);
  });
});

describe('which releases have a behaviour change', () => {
  it('each line from its patch, every later minor, and no minor between that got no patch', () => {
    const has = (v: string) => hasChange(EMPTY_SELECTOR_VALUES, v);
    expect(['1.9.3', '1.9.4', '1.13.1', '1.14.3', '1.14.4', '1.14.5', '1.15.2', '1.15.3', '1.16.0'].filter(has)).toEqual(['1.9.4', '1.14.4', '1.14.5', '1.15.3', '1.16.0']);
  });

  it('tells what a move gains and what it loses: from 1.14.4 to 1.15.0, before 1.15\'s patch', () => {
    expect(changesBetween('1.14.1', '1.14.4')).toEqual({ gained: [EMPTY_SELECTOR_VALUES], lost: [] });
    expect(changesBetween('1.14.4', '1.15.0')).toEqual({ gained: [], lost: [EMPTY_SELECTOR_VALUES] });
    expect(changesBetween('1.14.1', '1.15.0')).toEqual({ gained: [], lost: [] });
  });
});

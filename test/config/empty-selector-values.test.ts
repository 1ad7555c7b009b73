/**
 * Empty selector values (aws/karpenter-provider-aws#9964): Karpenter 1.9.4, 1.14.4 and 1.15.3
 * ignore an EC2NodeClass selector term with an empty tags map, name or ssmParameter, so that
 * every term empty makes the EC2NodeClass NotReady and some empty narrow the selection and
 * drift nodes. Every way the config can write such a term is an error at its line, naming the
 * issue and the releases, whatever release the cluster runs.
 */
import { aConfig, positionOf, rawConfigWithTeams, removeProjects } from '../builders';
import { load, problemsOf } from './helpers';

afterAll(removeProjects);

/** The message's tail every case shares: the issue and the releases that changed. */
const BECAUSE = /is empty: Karpenter 1\.9\.4, 1\.14\.4 and 1\.15\.3 and later ignore a selector term with .* \(aws\/karpenter-provider-aws#9964: with every term empty the EC2NodeClass is NotReady, with some the selection narrows and nodes drift\)/;

/** One team `web` written as `lines` (under `teams:`); the problems of loading it. */
function problemsOfTeam(lines: readonly string[]): { text: string; problems: string[] } {
  const text = rawConfigWithTeams(lines);
  return { text, problems: problemsOf({ rawConfig: text }) };
}

describe('an empty selector value', () => {
  it.each([
    ['subnetSelectorTerms', ['  web:', '    subnetSelectorTerms:', '      - tags: {}'], 'teams.web.subnetSelectorTerms[0].tags', '{}', 'an empty tags map'],
    ['securityGroupSelectorTerms (tags)', ['  web:', '    securityGroupSelectorTerms:', '      - tags: {}'], 'teams.web.securityGroupSelectorTerms[0].tags', '{}', 'an empty tags map'],
    ['securityGroupSelectorTerms (name)', ['  web:', '    securityGroupSelectorTerms:', '      - name: ""'], 'teams.web.securityGroupSelectorTerms[0].name', '""', 'an empty name'],
    ['ami.selectorTerms (tags)', ['  web:', '    ami:', '      family: AL2023', '      selectorTerms:', '        - tags: {}'], 'teams.web.ami.selectorTerms[0].tags', '{}', 'an empty tags map'],
    ['ami.selectorTerms (name)', ['  web:', '    ami:', '      family: AL2023', '      selectorTerms:', '        - name: ""'], 'teams.web.ami.selectorTerms[0].name', '""', 'an empty name'],
    ['ami.selectorTerms (ssmParameter)', ['  web:', '    ami:', '      family: AL2023', '      selectorTerms:', '        - ssmParameter: ""'], 'teams.web.ami.selectorTerms[0].ssmParameter', '""', 'an empty ssmParameter'],
    ['capacityReservationSelectorTerms', ['  web:', '    capacityTypes: [reserved]', '    capacityReservationSelectorTerms:', '      - tags: {}'], 'teams.web.capacityReservationSelectorTerms[0].tags', '{}', 'an empty tags map'],
    ['placementGroupSelector (name)', ['  web:', '    placementGroupSelector: { name: "" }'], 'teams.web.placementGroupSelector.name', '""', 'an empty name'],
    ['placementGroupSelector (id)', ['  web:', '    placementGroupSelector: { id: "" }'], 'teams.web.placementGroupSelector.id', '""', 'an empty id'],
  ])('fails when %s has one, at its line, naming the issue and the releases that changed', (_, lines, path, value, what) => {
    const { text, problems } = problemsOfTeam(lines);
    const escaped = path.replace(/[.[\]]/g, '\\$&');
    // (A reserved pool whose only term is refused is also told it has none: the loader resolves without the refused value.)
    const refused = problems.filter((p) => p.includes('#9964'));
    expect(refused).toEqual([expect.stringMatching(new RegExp(`platform\\.yaml:${positionOf(text, value)}: ${escaped}: ${BECAUSE.source}`))]);
    expect(refused[0]).toContain(`with ${what} (`);
  });

  it('fails at every level that sets pool fields, each at its own line, in one run', () => {
    const config = aConfig({
      clusters: { demo: { terraformOutputs: 'terraform/demo.json', labels: { env: 'prod' }, overrides: { subnetSelectorTerms: [{ id: 'subnet-0123' }, { tags: {} }] } } },
      groups: { prod: { match: { labels: { env: 'prod' } }, teams: { web: { securityGroupSelectorTerms: [{ name: '' }] } } } },
      defaults: { ami: { alias: undefined, family: 'AL2023', selectorTerms: [{ name: 'my-ami-*' }, { ssmParameter: '' }] } },
      teams: { web: { pools: { batch: { capacityTypes: ['reserved'], capacityReservationSelectorTerms: [{ tags: {} }] } } } },
    });
    const problems = problemsOf({ config });
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(new RegExp(`clusters\\.demo\\.overrides\\.subnetSelectorTerms\\[1\\]\\.tags: ${BECAUSE.source}`)),
      expect.stringMatching(new RegExp(`groups\\.prod\\.teams\\.web\\.securityGroupSelectorTerms\\[0\\]\\.name: ${BECAUSE.source}`)),
      expect.stringMatching(new RegExp(`defaults\\.ami\\.selectorTerms\\[1\\]\\.ssmParameter: ${BECAUSE.source}`)),
      expect.stringMatching(new RegExp(`teams\\.web\\.pools\\.batch\\.capacityReservationSelectorTerms\\[0\\]\\.tags: ${BECAUSE.source}`)),
    ]));
    expect(problems.filter((p) => p.includes('#9964'))).toHaveLength(4);
  });

  it('fails whatever release the cluster runs (1.13.1, which predates the change, too)', () => {
    const config = aConfig({ karpenter: { version: '1.13.1' }, teams: { web: { subnetSelectorTerms: [{ tags: {} }] } } });
    expect(problemsOf({ config })).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`teams\\.web\\.subnetSelectorTerms\\[0\\]\\.tags: ${BECAUSE.source}`))]));
  });

  it('accepts a placement group by id (pg-…) or name, and fails on an id of another form, as the CRD does', () => {
    const pool = (placementGroupSelector: unknown) => aConfig({ teams: { web: { placementGroupSelector } } });
    expect(load({ config: pool({ id: 'pg-0123456789abcdef0' }) }).platform.clusters[0].pools[0].settings.placementGroupSelector).toEqual({ id: 'pg-0123456789abcdef0' });
    expect(load({ config: pool({ name: 'hpc-cluster' }) }).platform.clusters[0].pools[0].settings.placementGroupSelector).toEqual({ name: 'hpc-cluster' });
    expect(problemsOf({ config: pool({ id: 'placement-1' }) })).toEqual([expect.stringMatching(/teams\.web\.placementGroupSelector\.id: "placement-1": must be a placement group id such as pg-0123456789abcdef0$/)]);
  });
});

describe('an AMI term meant as every AMI of an owner', () => {
  it('fails on an empty name with an owner, suggesting name: "*" with that owner (the release notes\' fix)', () => {
    const { problems } = problemsOfTeam(['  web:', '    ami:', '      family: AL2023', '      selectorTerms:', '        - name: ""', '          owner: "123456789012"']);
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`teams\\.web\\.ami\\.selectorTerms\\[0\\]\\.name: ${BECAUSE.source}; `
      + 'to select all of owner 123456789012\'s AMIs write name: "\\*" with the owner \\(\\{ name: "\\*", owner: 123456789012 \\}; aws/karpenter-provider-aws#9964\\), or give the name, or remove the term$'))]));
  });

  it('fails on an owner alone, suggesting name: "*" with it', () => {
    const { problems } = problemsOfTeam(['  web:', '    ami:', '      family: AL2023', '      selectorTerms:', '        - owner: amazon']);
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(/teams\.web\.ami\.selectorTerms\[0\]: a selector term needs one of id, name, tags, ssmParameter: to select all of owner amazon's AMIs write name: "\*" with the owner \(\{ name: "\*", owner: amazon \}; aws\/karpenter-provider-aws#9964\)$/)]));
  });

  it('takes name: "*" with the owner', () => {
    const config = aConfig({ teams: { web: { ami: { alias: undefined, family: 'AL2023', selectorTerms: [{ name: '*', owner: '123456789012' }] } } } });
    expect(load({ config }).platform.clusters[0].pools[0].settings.ami?.selectorTerms).toEqual([{ name: '*', owner: '123456789012' }]);
  });
});

/**
 * Every problem a run can find, in that run (issue 29): once the config parses, its per-cluster
 * checks, the dry run and the plan's budgets report together, through the command a user runs.
 */
import { aConfig, aTerraform, removeProjects, writeProject } from '../builders';
import { cli } from '../review/fleet';
import { runProblemsOf } from '../config/helpers';

afterAll(removeProjects);

/** Two clusters: old on 1.13.1, new on 1.14.1, both in ap-northeast-2 (the builders' endpoint). */
const config = (teams: Record<string, unknown>) => aConfig({
  karpenter: { version: '1.14.1' },
  clusters: { demo: undefined, old: { terraformOutputs: 'terraform/old.json', karpenter: { version: '1.13.1' } }, new: { terraformOutputs: 'terraform/new.json' } },
  teams,
});
const terraform = { old: aTerraform({ cluster_name: 'old' }), new: aTerraform({ cluster_name: 'new' }) };

const MISTAKES = {
  // a zone of another region (a per-cluster check), Balanced on the 1.13.1 cluster (a release check), a budget the ceiling exceeds (the plan)
  web: { zones: ['eu-west-1a'], disruption: { consolidationPolicy: 'Balanced' } },
  ml: { limits: { cpu: '64' }, budget: { perHour: '0.01' } },
};

describe('one run reports every problem', () => {
  it('says a wrong-region zone, Balanced on a 1.13 cluster and a budget overrun together', () => {
    const problems = runProblemsOf({ config: config(MISTAKES), terraform });
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(/teams\.web\.zones\[0\]: on 2 clusters \(old and new\), as on the first: cluster old: .*eu-west-1a/),
      expect.stringMatching(/teams\.web\.disruption\.consolidationPolicy: cluster old runs Karpenter 1\.13\.1, whose NodePool CRD does not accept consolidationPolicy Balanced/),
      expect.stringMatching(/teams\.ml\.budget\.perHour: team ml's ceiling is \$[\d.]+\/hour, over its budget of \$0\.01\/hour/),
    ]));
  });

  it('and so does synth, which writes nothing', async () => {
    const project = writeProject({ config: config(MISTAKES), terraform });
    const r = await cli(['--config', project.configPath, '--outdir', project.dir]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/zones\[0\]: on 2 clusters \(old and new\), as on the first: cluster old/);
    expect(r.err).toMatch(/consolidationPolicy: cluster old runs Karpenter 1\.13\.1/);
    expect(r.err).toMatch(/budget\.perHour: team ml's ceiling is/);
  });

  it('adds a schema mistake to them in the same run', () => {
    const problems = runProblemsOf({ config: config({ ...MISTAKES, web: { ...MISTAKES.web, capacityTypes: ['spott'] } }), terraform });
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(/teams\.web\.capacityTypes\[0\]: .*"spott"/),
      expect.stringMatching(/teams\.web\.zones\[0\]: on 2 clusters \(old and new\), as on the first: cluster old/),
      expect.stringMatching(/teams\.ml\.budget\.perHour: team ml's ceiling is/),
    ]));
  });
});

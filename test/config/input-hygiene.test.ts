/**
 * Hostile and odd inputs (issue: hardening): files outside the repository, special files,
 * encodings, YAML beyond plain data. Each is a located error, never a crash, a hang or a
 * silent change, and no message quotes more of a file than the offending token.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readInput } from '../../src/input/input-file';
import { loadPlatform } from '../../src/config/load';
import { formatProblem } from '../../src/input/problems';
import { MAX_EXPANDED_VALUES } from '../../src/input/source';
import { aConfig, aTerraform, rawConfigWithTeams, removeProjects, writeProject } from '../builders';
import { inputErrorOf, load, problemsOf } from './helpers';

afterAll(removeProjects);

/** A project inside a git repository (its folder holds `.git`), with terraformOutputs set to `path`. */
function repoProject(path: string) {
  const project = writeProject({ config: aConfig({ clusters: { demo: { terraformOutputs: path } } }) });
  mkdirSync(join(project.dir, '.git'));
  return project;
}

function problemsAt(configPath: string): string[] {
  return inputErrorOf(() => loadPlatform(configPath)).problems.map(formatProblem);
}

describe('Terraform outputs files stay inside the repository', () => {
  it('fails when terraformOutputs climbs out of the repository with ..', () => {
    const { configPath } = repoProject('../../../../../../../../etc/passwd');
    expect(problemsAt(configPath)).toEqual([
      expect.stringMatching(/passwd: resolves outside the repository \(.*\) \(through a symbolic link or \.\.\): input files must be inside it$/),
    ]);
  });

  it('fails when terraformOutputs is a symbolic link to a file outside, without quoting it', () => {
    const { configPath, dir } = repoProject('terraform/demo.json');
    const secret = join(dir, '..', `secret-${process.pid}.json`);
    writeFileSync(secret, '{"BEGIN PRIVATE KEY": 1}');
    execFileSync('rm', [join(dir, 'config/terraform/demo.json')]);
    symlinkSync(secret, join(dir, 'config/terraform/demo.json'));
    const problems = problemsAt(configPath);
    expect(problems).toEqual([expect.stringMatching(/terraform\/demo\.json: resolves outside the repository/)]);
    expect(problems.join('\n')).not.toMatch(/PRIVATE/);
    execFileSync('rm', [secret]);
  });

  it('reads a symbolic link that stays inside the repository', () => {
    const { configPath, dir } = repoProject('terraform/link.json');
    symlinkSync('demo.json', join(dir, 'config/terraform/link.json'));
    expect(loadPlatform(configPath).platform.clusters[0].terraform.clusterName).toBe('demo');
  });

  it('fails on a FIFO instead of waiting for a writer forever', () => {
    const { configPath, dir } = repoProject('terraform/fifo.json');
    execFileSync('mkfifo', [join(dir, 'config/terraform/fifo.json')]);
    expect(problemsAt(configPath)).toEqual([expect.stringMatching(/fifo\.json: is a FIFO, not a regular file$/)]);
  });

  it('fails on /dev/zero, which is outside the repository', () => {
    const { configPath } = repoProject('/dev/zero');
    expect(problemsAt(configPath)).toEqual([expect.stringMatching(/\/dev\/zero: resolves outside the repository/)]);
  });

  it('never reads a device, wherever it is, instead of reading it until memory runs out', () => {
    expect(readInput('/dev/zero', 'zero', { maxBytes: 1024 })).toEqual({ file: 'zero', line: 0, col: 0, path: '', message: 'is a device or socket, not a regular file' });
  });

  it('fails on a folder', () => {
    const { configPath } = repoProject('terraform');
    expect(problemsAt(configPath)).toEqual([expect.stringMatching(/config\/terraform: is a folder, not a regular file$/)]);
  });

  it('fails on a file larger than 1 MiB', () => {
    const { configPath, terraformPath } = repoProject('terraform/demo.json');
    writeFileSync(terraformPath('demo'), `{"x": "${'a'.repeat(1024 * 1024)}"}`);
    expect(problemsAt(configPath)).toEqual([expect.stringMatching(/demo\.json: is 1048585 bytes; input files are at most 1048576 bytes$/)]);
  });

  it('fails when platform.yaml itself is a link out of the repository', () => {
    const { configPath, dir } = repoProject('terraform/demo.json');
    execFileSync('rm', [configPath]);
    symlinkSync('/etc/hostname', configPath);
    expect(problemsAt(configPath)).toEqual([expect.stringMatching(/platform\.yaml: resolves outside the repository/)]);
    void dir;
  });
});

describe('encodings', () => {
  const tf = (text: string | Buffer) => {
    const project = writeProject();
    writeFileSync(project.terraformPath('demo'), text);
    return problemsAt(project.configPath);
  };

  it('accepts a UTF-8 byte order mark', () => {
    const project = writeProject();
    writeFileSync(project.terraformPath('demo'), `\uFEFF${JSON.stringify(aTerraform())}`);
    writeFileSync(project.configPath, `\uFEFF${project.configText}`);
    expect(loadPlatform(project.configPath).platform.clusters[0].terraform.clusterName).toBe('demo');
  });

  it('fails on UTF-16 (what Windows PowerShell writes), naming it and the fix', () => {
    expect(tf(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify(aTerraform()), 'utf16le')]))).toEqual([
      expect.stringMatching(/demo\.json: is UTF-16 text: save it as UTF-8 \(in PowerShell: terraform output -json \| Out-File -Encoding utf8 <file>\)$/),
    ]);
  });

  it('fails on invalid UTF-8, pointing at the first bad byte', () => {
    const project = writeProject();
    writeFileSync(project.configPath, Buffer.concat([Buffer.from(`${project.configText}# caf`), Buffer.from([0xe9]), Buffer.from('\n')]));
    const line = project.configText.split('\n').length;
    expect(problemsAt(project.configPath)).toEqual([expect.stringMatching(new RegExp(`platform\\.yaml:${line}:6: invalid UTF-8: save the file as UTF-8$`))]);
  });

  it('fails on a NUL character, with its position', () => {
    expect(problemsOf({ rawConfig: rawConfigWithTeams(['  web: { owner: "a\u0000b" }']) })).toEqual([
      expect.stringMatching(/platform\.yaml:6:\d+: NUL character: input files are text$/),
    ]);
  });

  it('fails on a bidirectional control character, which makes a review read something else', () => {
    expect(problemsOf({ rawConfig: rawConfigWithTeams(['  web: { owner: "web\u202E@acme" }']) })).toEqual([
      expect.stringMatching(/platform\.yaml:6:\d+: bidirectional control character U\+202E: it makes the text display differently from what it is; remove it$/),
    ]);
  });
});

describe('YAML beyond plain data', () => {
  const problems = (teamLines: string[]) => problemsOf({ rawConfig: rawConfigWithTeams(teamLines) });

  it.each([
    ['!!binary', '  web: { owner: !!binary d2Vi }', /YAML tag !!binary is not supported/],
    ['!!set', '  web: !!set { a, b }', /YAML tag !!set is not supported/],
    ['!!timestamp', '  web: { owner: !!timestamp 2026-01-01 }', /YAML tag !!timestamp is not supported/],
    ['a custom tag', '  web: { owner: !secret web }', /YAML tag !secret is not supported/],
  ])('fails on %s', (_name, line, message) => {
    expect(problems([line])).toEqual([expect.stringMatching(new RegExp(`platform\\.yaml:6:\\d+: ${message.source}`))]);
  });

  it.each([
    ['1e3', 'number 1000'], ['0x10', 'number 16'], ['012', 'number 12'], ['true', 'boolean true'], ['1.5', 'number 1.5'],
  ])('fails when an unquoted key %s would silently become the %s', (key, what) => {
    expect(problems([`  ${key}: {}`])).toEqual([
      expect.stringMatching(new RegExp(`platform\\.yaml:6:3: key ${key.replace('.', '\\.')} is read as the ${what.replace('.', '\\.')}: quote it \\("${key.replace('.', '\\.')}"\\) to use it as a name$`)),
    ]);
  });

  it('accepts a quoted numeric-looking key as the name it is', () => {
    expect(load({ rawConfig: rawConfigWithTeams(['  "1e3": {}']) }).platform.clusters[0].pools.map((p) => p.name)).toEqual(['1e3']);
  });

  it('fails on an empty key', () => {
    expect(problems(['  : {}'])).toEqual([expect.stringMatching(/platform\.yaml:6:\d+: keys must be names/)]);
  });

  it('fails on an alias without an anchor, naming it', () => {
    expect(problems(['  web: { ami: *base }'])).toEqual([expect.stringMatching(/platform\.yaml:6:15: alias \*base has no anchor &base before it$/)]);
  });

  it('fails on a merge key onto something that is not a map', () => {
    expect(problems(['  base: &n 5', '  web:', '    <<: *n'])).toEqual([
      expect.stringMatching(/platform\.yaml:8:5: merge key << needs a map, an alias of a map, or a list of them$/),
    ]);
  });

  it('accepts a merge key onto a map anchor', () => {
    const { platform } = load({
      rawConfig: rawConfigWithTeams(['  web: &base { arch: [arm64], owner: web@acme.example }', '  api:', '    <<: *base', '    owner: api@acme.example']),
    });
    expect(platform.clusters[0].pools.map((p) => [p.name, p.owner, p.settings.arch])).toEqual([
      ['web', 'web@acme.example', ['arm64']], ['api', 'api@acme.example', ['arm64']],
    ]);
  });

  it('accepts a DRY config that uses one anchor in a thousand teams', () => {
    const lines = ['  t0: { ami: &ami { alias: al2023@v20250505 } }'];
    for (let i = 1; i < 1000; i++) lines.push(`  t${i}: { ami: *ami }`);
    expect(load({ rawConfig: rawConfigWithTeams(lines) }).platform.clusters[0].pools).toHaveLength(1000);
  });

  it('fails fast on an alias bomb, before expanding it', () => {
    const lines = ['  l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 10; i++) lines.push(`  l${i}: &l${i} [${Array(10).fill(`*l${i - 1}`).join(', ')}]`);
    // Expanded, these ten lines are 10^10 values: a load that expanded them would not return at all.
    expect(problems(lines)).toEqual([expect.stringMatching(new RegExp(`platform\\.yaml:1:1: the aliases of this file expand to more than ${MAX_EXPANDED_VALUES} values`))]);
  });
});

describe('Terraform JSON syntax', () => {
  const tf = (text: string) => problemsOf({ terraform: { demo: text } });

  it('fails on a trailing comma, pointing at it, in one line', () => {
    expect(tf('{\n  "cluster_name": { "value": "demo" },\n}\n')).toEqual([
      expect.stringMatching(/demo\.json:2:38: invalid JSON: trailing comma \(JSON allows none before \} or \]\): remove it$/),
    ]);
  });

  it('fails on the text `terraform output` prints without -json, saying so', () => {
    expect(tf('cluster_name = "demo"\nkarpenter_node_role_name = "r"\n')).toEqual([
      expect.stringMatching(/demo\.json:1:1: this is what `terraform output` prints without -json: write it with: terraform -chdir=terraform output -json > <file>$/),
    ]);
  });

  it('fails on an empty file, saying how to write it', () => {
    expect(tf('\n')).toEqual([expect.stringMatching(/demo\.json: empty file: write it with: terraform -chdir=terraform output -json > <file>$/)]);
  });

  it('names only the offending token, never the rest of the file', () => {
    const problems = tf('{\n  "cluster_name": { "value": "demo" }\n  "secret": "hunter2"\n}\n');
    expect(problems).toEqual([expect.stringMatching(/demo\.json:3:3: invalid JSON: comma expected at "\\"secret\\""$/)]);
    expect(problems.join('\n')).not.toMatch(/hunter2/);
  });
});

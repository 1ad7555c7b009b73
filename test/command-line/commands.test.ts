/**
 * The command modules and the table that runs them: every module of src/commands/ that exports a
 * `spec` and a `run` is a command `run()` dispatches to, and every npm script that starts the
 * command line names one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandSpec } from '../../src/command-line/args';
import { run } from '../../src/cli';

const ROOT = join(__dirname, '../..');

/** The modules of src/commands/ that are commands: they export their spec and their run. */
const MODULES = readdirSync(join(ROOT, 'src/commands')).filter((f) => f.endsWith('.ts')).flatMap((file) => {
  const module: Record<string, unknown> = require(join(ROOT, 'src/commands', file));
  return isSpec(module.spec) && typeof module.run === 'function' ? [{ file, spec: module.spec }] : [];
});

function isSpec(value: unknown): value is CommandSpec {
  return typeof value === 'object' && value !== null && 'name' in value && typeof value.name === 'string'
    && 'description' in value && typeof value.description === 'string' && 'options' in value && Array.isArray(value.options);
}

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(args, { out: (l) => out.push(l), err: (l) => err.push(l) }, {});
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('command modules', () => {
  it('are the nine commands, each in the file of its name', () => {
    expect(MODULES.map((m) => m.file).sort()).toEqual(['adopt.ts', 'check.ts', 'diff.ts', 'explain.ts', 'fit.ts', 'init.ts', 'promote.ts', 'synth.ts', 'tenancy.ts']);
    for (const m of MODULES) expect(m.file).toBe(`${m.spec.name}.ts`);
  });

  it.each(MODULES.map((m) => [m.spec.name, m.spec] as const))('%s is in the table: its --help is its spec\'s, and the overview lists it', async (name, spec) => {
    const help = await cli([name, '--help']);
    expect(help).toMatchObject({ code: 0, err: '' });
    expect(help.out).toMatch(new RegExp(`^usage: npm run ${name}\\b`));
    expect(help.out).toContain(spec.description);
    for (const o of spec.options) expect(help.out).toMatch(new RegExp(`^ {2}--${o.name}\\b`, 'm'));
    expect((await cli(['--help'])).out).toMatch(new RegExp(`^ {2}${name} +${spec.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  });

  it.each(MODULES.map((m) => [m.spec.name, m.spec] as const))('%s\'s description is lines of at most 100 characters', (_, spec) => {
    for (const line of spec.description.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
  });
});

describe('npm scripts', () => {
  const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const started = Object.entries(scripts).flatMap(([script, line]) => {
    const m = /^node scripts\/run\.cjs (\S+)$/.exec(line);
    return m ? [[script, m[1]] as const] : [];
  });

  it('start the command line with a command of the same name, one script per command', () => {
    expect(started.map(([script, command]) => [script, command])).toEqual(started.map(([script]) => [script, script]));
    expect(started.map(([script]) => script).sort()).toEqual([...MODULES.map((m) => m.spec.name), 'upgrade'].sort());
  });
});

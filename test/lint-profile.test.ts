/**
 * The lint profile that stops growth (eslint.config.mjs): in src/, no type or non-null
 * assertions, functions of at most 80 lines and files of at most 400. Today's offenders are
 * ESLint's bulk suppressions (eslint-suppressions.json, counted per file and rule): ESLint
 * reports a file that adds one. Held here: the list suppresses only the profile's rules (not
 * a way around any other), and it names only files that exist.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const PROFILE = [
  '@typescript-eslint/consistent-type-assertions',
  '@typescript-eslint/no-non-null-assertion',
  'max-lines-per-function',
  'max-lines',
];

const suppressions: Record<string, Record<string, { count: number }>> = JSON.parse(readFileSync(join(ROOT, 'eslint-suppressions.json'), 'utf8'));

describe('the lint profile\'s list of offenders', () => {
  it('suppresses only the profile\'s rules, in src/, in files that exist', () => {
    for (const [file, rules] of Object.entries(suppressions)) {
      expect({ file, exists: existsSync(join(ROOT, file)), inSrc: file.startsWith('src/') }).toEqual({ file, exists: true, inSrc: true });
      for (const rule of Object.keys(rules)) expect({ file, rule, profile: PROFILE.includes(rule) }).toEqual({ file, rule, profile: true });
    }
  });

  it('is what eslint.config.mjs turns on, as errors, for a file of src/', () => {
    const eslint = join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');
    const printed = execFileSync(process.execPath, [eslint, '--print-config', 'src/synth.ts'], { cwd: ROOT, encoding: 'utf8' });
    const rules: Record<string, unknown> = JSON.parse(printed).rules;
    for (const rule of PROFILE) expect({ rule, severity: [rules[rule]].flat()[0] }).toEqual({ rule, severity: 2 });
  });
});

/**
 * The committed JSON Schema is what editors use to complete and check
 * config/platform.yaml; it must be regenerated (`npm run schema`) whenever the
 * zod schema changes, or this test fails in CI.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { platformJsonSchema } from '../../src/config/json-schema';
import { EXAMPLE_CONFIG } from '../builders';

const ROOT = join(__dirname, '..', '..');

describe('schema/platform.schema.json', () => {
  it('equals the JSON Schema generated from the zod schema (run `npm run schema` to update it)', () => {
    const committed = readFileSync(join(ROOT, 'schema', 'platform.schema.json'), 'utf8');
    expect(committed).toBe(`${JSON.stringify(platformJsonSchema(), null, 2)}\n`);
  });
});

describe('the example config (test/fixtures/example, laid out as config/)', () => {
  it('starts with the yaml-language-server modeline pointing at the committed schema', () => {
    const [firstLine] = readFileSync(EXAMPLE_CONFIG, 'utf8').split('\n');
    expect(firstLine).toBe('# yaml-language-server: $schema=../schema/platform.schema.json');
  });
});

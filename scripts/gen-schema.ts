import { writeFileSync } from 'node:fs';
import { platformJsonSchema } from '../src/config/json-schema';

/** Writes schema/platform.schema.json, the JSON Schema editors use for config/platform.yaml. */
const path = process.argv[2] ?? 'schema/platform.schema.json';
writeFileSync(path, `${JSON.stringify(platformJsonSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${path}\n`);

// Jest's transform of the TypeScript of src/ and test/: esbuild, the compiler of the bundle users
// run (scripts/run.cjs), as a transpiler only. Type errors are tsc's job, which `npm run test:all` runs
// first; a transpiler takes milliseconds where a type-checking transform takes seconds per file.
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const esbuild = require('esbuild');

// tsconfig.json's options that change the JavaScript (class fields as ES2022 defines them).
const tsconfigRaw = readFileSync(join(__dirname, '..', 'tsconfig.json'), 'utf8');
const transformer = readFileSync(__filename, 'utf8');

module.exports = {
  process(source, filename) {
    const { code, map } = esbuild.transformSync(source, {
      loader: 'ts', format: 'cjs', target: 'node20', sourcefile: filename, sourcemap: 'external', tsconfigRaw,
    });
    return { code, map };
  },
  getCacheKey(source, filename, { configString }) {
    return createHash('sha256')
      .update(`${esbuild.version}\0${transformer}\0${tsconfigRaw}\0${configString}\0${filename}\0`)
      .update(source)
      .digest('hex');
  },
};

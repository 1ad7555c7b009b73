// Runs dependency-cruiser over `src/` of each folder given, under one configuration, and writes
// their results as one JSON array on stdout, for test/architecture.test.ts:
//   node test/support/depcruise.mjs CONFIG ROOT...
// A child process because dependency-cruiser's API is ESM only and Jest's CommonJS sandbox
// cannot import it; one for all folders because loading it and TypeScript is most of its time.
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';

const [config, ...roots] = process.argv.slice(2);
const options = await extractDepcruiseOptions(config);
const results = [];
for (const root of roots) {
  // Paths in the result (and in the rules) are relative to the working directory: `src/…`.
  process.chdir(root);
  const { output } = await cruise(['src'], { ...options, outputType: 'json' });
  results.push(JSON.parse(String(output)));
}
process.stdout.write(JSON.stringify(results));

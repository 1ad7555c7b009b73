/**
 * The rooms of src/ (docs/architecture.md, "The rooms"): what each folder may import. A room is
 * a folder of src/; a file directly in src/ (cli.ts, synth.ts, ...) is a room of its own.
 * test/architecture.test.ts runs dependency-cruiser with this file and fails on any violation;
 * `npx depcruise src` prints them with the rule's comment. Imports are read by the TypeScript
 * parser (type-only imports included), so an `import` inside a string is not one.
 * @see https://github.com/sverweij/dependency-cruiser/blob/main/doc/rules-reference.md
 */

/** A room's own folder, as a path pattern. */
const room = (name) => `^src/${name}/`;
/** Any room of src/ but those named (a folder, or a file directly in src/). */
const roomsBut = (...names) => ({ path: '^src/', pathNot: `^src/(${names.join('|')})/` });
/** A rule that a room imports no other room of src/. */
const leaf = (name, rule, comment) => ({ name: rule, comment, severity: 'error', from: { path: room(name) }, to: roomsBut(name) });
/** cdk8s and its generated classes: imports/, the constructs and cdk8s* packages. */
const CDK8S = '^(imports/|node_modules/(constructs|cdk8s[^/]*)/)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'charts-render-the-plan',
      comment: 'charts/ render the plan: they import model types and constructs, never config/',
      severity: 'error',
      from: { path: room('charts') },
      to: roomsBut('model', 'constructs'),
    },
    {
      name: 'constructs-take-model-types',
      comment: 'constructs/ take model types, never config/',
      severity: 'error',
      from: { path: room('constructs') },
      to: roomsBut('model', 'constructs'),
    },
    leaf('input', 'input-knows-no-room', 'input/ knows no other room of src/'),
    {
      name: 'catalog-knows-neither-config-nor-model',
      comment: 'catalog/ knows neither config/ nor model/',
      severity: 'error',
      from: { path: room('catalog') },
      to: { path: '^src/(config|model)/' },
    },
    {
      name: 'release-is-a-leaf',
      comment: 'release/ imports nothing but release/ and the leaf quantity/',
      severity: 'error',
      from: { path: room('release') },
      to: roomsBut('release', 'quantity'),
    },
    {
      name: 'plain-data-has-no-cdk8s',
      comment: 'config/ and model/ are plain data: no cdk8s, no constructs, no imports/',
      severity: 'error',
      from: { path: '^src/(config|model)/' },
      to: { path: CDK8S },
    },
    {
      name: 'model-builds-on-config-and-leaves',
      comment: 'model/ builds on config/, release/ and the leaf rooms only (the plan is derived, never rendered)',
      severity: 'error',
      from: { path: room('model') },
      to: roomsBut('model', 'config', 'input', 'release', 'quantity', 'catalog', 'schedule', 'gate', 'output'),
    },
    {
      name: 'only-the-layout-of-output',
      comment: 'model/ and config/ take from output/ only the layout (layout.ts)',
      severity: 'error',
      from: { path: '^src/(config|model)/' },
      to: { path: room('output'), pathNot: '^src/output/layout\\.ts$' },
    },
    leaf('quantity', 'quantity-is-a-leaf', 'quantity/ knows no other room of src/'),
    leaf('schedule', 'schedule-is-a-leaf', 'schedule/ (time arithmetic of maintenance windows) knows no other room of src/'),
    {
      name: 'gate-runs-alone',
      comment: 'gate/ (the drift gate program, run alone as node -e in the Job) knows no other room of src/ and no npm package: node: built-ins only',
      severity: 'error',
      from: { path: room('gate') },
      to: { pathNot: room('gate'), dependencyTypesNot: ['core'] },
    },
    {
      name: 'no-file-cycle',
      comment: 'no file of src/ imports itself through others (type imports included)',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Packages' subpath exports (`@bufbuild/cel/ext`), resolved as Node's require does.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['require', 'node', 'default'] },
    // Type-only imports are imports: a cycle through types is still a cycle of rooms.
    tsPreCompilationDeps: true,
    // Each file read again only when its content changed: the test runs in a second, not five.
    cache: { folder: 'node_modules/.cache/dependency-cruiser', strategy: 'content' },
  },
};

// The linter `npm test` runs (typescript-eslint, type-aware): unused code, promises nobody
// awaits, and functions with too many positional parameters (pass an options object instead).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['imports/**', 'lib/**', 'dist/**', 'node_modules/**', 'bench/**', 'scripts/**', '**/*.js', '**/*.cjs', '**/*.mjs'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      'max-params': ['error', 5],
    },
  },
  {
    // A test's it.each callback takes a table row's columns as its parameters.
    files: ['test/**/*.ts'],
    rules: { 'max-params': 'off' },
  },
);

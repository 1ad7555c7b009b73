/** The folders a synth owns and replaces whole, relative to the output root. */
export const OUTPUT_ROOTS = ['dist', 'argocd'] as const;

/**
 * The generator's own folder next to the outputs: the lock of the run in progress and the
 * staging area of a change being swapped in. Listed in `.gitignore`.
 */
export const STATE_DIR = '.karpenter-gitops';

/** Whether a path relative to the output root lies under one of {@link OUTPUT_ROOTS}, without `..` or empty segments. */
export function isOutputPath(path: string): boolean {
  const segments = path.split('/');
  return (OUTPUT_ROOTS as readonly string[]).includes(segments[0])
    && segments.length >= 2
    && segments.every((s) => s !== '' && s !== '.' && s !== '..');
}

/** The staging area of an `npm run upgrade` in progress, inside {@link STATE_DIR}. */
export const UPGRADE_TXN_DIR = 'upgrade-txn';

/** The staging area of an `npm run init` in progress (its change of `config/`), inside {@link STATE_DIR}. */
export const INIT_TXN_DIR = 'init-txn';

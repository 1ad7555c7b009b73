import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The file that marks `config/` as the example karpenter-gitops ships: the SHA-256 of each
 * of the example's files (line endings as LF), in the format `sha256sum` writes, so
 * `cd config && sha256sum -c example.sha256` checks it too. `npm run init` removes it with
 * the example; editing the example means regenerating it (a test holds it true):
 * `cd config && sha256sum platform.yaml terraform/demo.json > example.sha256`.
 */
export const EXAMPLE_MANIFEST = 'example.sha256';

/** What `config/` holds, measured against the example it was cloned with. */
export interface ConfigState {
  /** Whether `config/` is the example as shipped (or is missing or empty: nothing in it to lose). */
  readonly untouched: boolean;
  /** How it differs from the example, one phrase each: `platform.yaml changed`, `terraform/prod.json added`. */
  readonly changes: readonly string[];
  /** The example's files that are still exactly as shipped, the manifest included, relative to `config/`: init removes them. */
  readonly exampleFiles: readonly string[];
  /** Every other file, relative to `config/`: init keeps them. */
  readonly otherFiles: readonly string[];
}

/**
 * Compares `config/` with the example its manifest ({@link EXAMPLE_MANIFEST}) describes.
 * @param configDir the folder, absolute
 * @param ignore files (relative to `config/`) not counted as changes: the Terraform outputs file
 *   the user copied into `config/` for `init` itself. @default - none
 */
export function configState(configDir: string, ignore: (file: string) => boolean = () => false): ConfigState {
  const files = existsSync(configDir) ? listFiles(configDir) : [];
  if (files.length === 0) return { untouched: true, changes: [], exampleFiles: [], otherFiles: [] };
  const manifest = files.includes(EXAMPLE_MANIFEST) ? parseManifest(readFileSync(join(configDir, EXAMPLE_MANIFEST), 'utf8')) : undefined;
  if (!manifest) {
    const changes = [files.includes(EXAMPLE_MANIFEST) ? `${EXAMPLE_MANIFEST} is not a list of sha256sum lines` : `it has no ${EXAMPLE_MANIFEST}, which marks the example`];
    return { untouched: false, changes, exampleFiles: [], otherFiles: files };
  }
  const changes: string[] = [];
  const exampleFiles = [EXAMPLE_MANIFEST];
  for (const [file, hash] of manifest) {
    if (!files.includes(file)) changes.push(`${file} removed`);
    else if (sha256(readFileSync(join(configDir, file), 'utf8')) !== hash) changes.push(`${file} changed`);
    else exampleFiles.push(file);
  }
  const otherFiles = files.filter((f) => !exampleFiles.includes(f));
  changes.push(...otherFiles.filter((f) => !manifest.has(f) && !ignore(f)).map((f) => `${f} added`));
  return { untouched: changes.length === 0, changes, exampleFiles, otherFiles };
}

/** The SHA-256 of a text file as `sha256sum` prints it for the file with LF line endings. */
export function sha256(text: string): string {
  return createHash('sha256').update(text.replace(/\r\n/g, '\n')).digest('hex');
}

/** `hash  file` lines (`hash *file` too), or undefined when a line is neither. */
function parseManifest(text: string): Map<string, string> | undefined {
  const entries = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    if (line === '') continue;
    const m = /^([0-9a-f]{64}) [ *](.+)$/.exec(line);
    if (!m || m[2].split('/').some((s) => s === '..' || s === '')) return undefined;
    entries.set(m[2], m[1]);
  }
  return entries.size ? entries : undefined;
}

/** Every file under `dir`, relative to it with `/`, sorted; links and other special files count as files (they are never followed). */
function listFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(dir, rel));
    else out.push(rel);
  }
  return out.sort();
}

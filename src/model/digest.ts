import { createHash } from 'node:crypto';

/**
 * A short, stable digest of a plan value (its JSON): the drift gate compares it with the
 * annotation on the live object to know that Argo CD applied this revision's manifest, and a
 * gate is named by the digest of everything it checks. Models are built in code, so their
 * key order, and so their JSON, is deterministic.
 */
export function digestOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}

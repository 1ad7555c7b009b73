import { z } from 'zod';

/**
 * The Applications Argo CD reports (`kubectl -n argocd get applications.argoproj.io -o json`),
 * read with a schema of the fields `promote` reads, so that a file that is not what kubectl
 * writes is refused with where it is wrong (file, item, field) instead of being read as "no
 * status". Unknown fields are dropped; every field Go writes with `omitempty` may be absent, and
 * a `metav1.Time` may be `null` (its zero value).
 * @see https://github.com/argoproj/argo-cd/blob/v3.5.1/pkg/apis/application/v1alpha1/types.go (ApplicationStatus, SyncStatus, HealthStatus, OperationState, ApplicationCondition)
 */

/** A `metav1.Time`: RFC 3339, or null for the zero time (k8s.io/apimachinery pkg/apis/meta/v1/time.go MarshalJSON). */
const time = z.string().nullable().optional();

const condition = z.object({
  type: z.string().optional(),
  message: z.string().optional(),
});

const application = z.object({
  metadata: z.object({ name: z.string().min(1) }),
  status: z.object({
    sync: z.object({ status: z.string().optional(), revision: z.string().optional(), revisions: z.array(z.string()).nullable().optional() }).optional(),
    health: z.object({ status: z.string().optional(), message: z.string().optional(), lastTransitionTime: time }).optional(),
    operationState: z.object({ phase: z.string().optional(), message: z.string().optional(), startedAt: time, finishedAt: time }).nullable().optional(),
    conditions: z.array(condition).nullable().optional(),
  }).optional(),
});

/** An Application as `promote` reads it: its name and the status fields it looks at. */
export type LiveApplication = z.infer<typeof application>;

/** What {@link parseApplications} made of one file: its Applications, or a problem for each one that is not one. */
export interface ParsedApplications {
  /** The valid Applications, in the file's order. */
  readonly items: readonly LiveApplication[];
  /** One line per invalid item: `FILE: items[3] (dev-pools-web): status.sync.status: expected string, received number`. */
  readonly problems: readonly string[];
}

/** `items[3]` and the name when it has one: `items[3] (dev-pools-web)`. */
function itemLabel(json: unknown, index: number | undefined): string {
  const name = z.object({ metadata: z.object({ name: z.string() }) }).safeParse(json);
  const at = index === undefined ? 'the Application' : `items[${index}]`;
  return name.success ? `${at} (${name.data.metadata.name})` : at;
}

/**
 * The Applications of one file as kubectl writes it: a `List` (`items`), or one Application.
 * Every item that does not match the schema is a problem naming the file, the item (index and
 * name) and the field; the others are kept.
 * @param from the file as the user named it (or `stdin`)
 */
export function parseApplications(from: string, json: unknown): ParsedApplications {
  const list = z.object({ items: z.array(z.unknown()) }).safeParse(json);
  if (!list.success && (typeof json !== 'object' || json === null || Array.isArray(json))) {
    return { items: [], problems: [`${from}: not an Application or a List of them (give kubectl get applications.argoproj.io -o json)`] };
  }
  const raw: readonly { json: unknown; index?: number }[] = list.success ? list.data.items.map((j, index) => ({ json: j, index })) : [{ json }];
  const items: LiveApplication[] = [];
  const problems: string[] = [];
  for (const item of raw) {
    const parsed = application.safeParse(item.json);
    if (parsed.success) items.push(parsed.data);
    else {
      for (const issue of parsed.error.issues) {
        problems.push(`${from}: ${itemLabel(item.json, item.index)}: ${issue.path.map(String).join('.') || '(the item)'}: ${issue.message.toLowerCase()}`);
      }
    }
  }
  return { items, problems };
}

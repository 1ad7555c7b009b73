/**
 * A guard gate's pod in the rollout simulation: the program `node -e` runs in the PreSync hook Job
 * of `dist/<cluster>/nodepools/<team>/_guard-gate.yaml`, reading its `GUARD` environment variable
 * (a GuardSpec, src/gate/guard-spec.ts), looking at the API server with the Job's ServiceAccount
 * (its reads go through the cluster's live RBAC objects, which the policies Application
 * delivers), and exiting 0 once src/gate's own `assessGuard` has said done, without a break, for
 * `settleSeconds`. It looks every `pollSeconds`, but at most once a simulated minute: the
 * simulation's state changes once a minute, so a second look in the same minute would read the
 * same objects. A read that RBAC refuses makes the program exit 1 (the Job then retries up to its
 * `backoffLimit`). Its Job's `activeDeadlineSeconds` is the Job controller's (kube-sim.ts).
 *
 * It reads what the program reads (src/gate/guard.ts `guardReads`): the policies its list's label
 * selector selects, and the binding of each policy that guards the team by name.
 */
import { assessGuard, bindingFacts, guarding, GuardAssessment, policyFacts } from '../../src/gate/guard';
import type { GuardSpec } from '../../src/gate/guard-spec';
import { KubeApi, Live, PodProgram } from './kube-sim';

/** One look of a guard gate's pod, kept when its verdict changes. */
export interface GuardLook {
  readonly at: number;
  readonly cluster: string;
  readonly job: string;
  readonly team: string;
  readonly verdict: GuardAssessment | { readonly forbidden: string };
}

interface JobManifest {
  readonly spec: { readonly template: { readonly spec: { readonly serviceAccountName?: string; readonly containers: readonly {
    readonly command?: readonly string[];
    readonly env?: readonly { readonly name: string; readonly value?: string }[];
  }[] } } };
}

/** Whether a Job is a guard gate: its container runs `node -e` with a `GUARD` variable. */
export function isGuardGateJob(job: Live): boolean {
  const container = (job.applied as unknown as JobManifest).spec.template.spec.containers[0];
  return container?.command?.[0] === 'node' && container.command[1] === '-e' && (container.env ?? []).some((e) => e.name === 'GUARD');
}

/** A label selector `key=value` (the guard's policySelector); anything else is a bug of the simulation. */
function selectorOf(text: string): (labels: Readonly<Record<string, string>>) => boolean {
  const m = /^([^\s=]+)=([^\s=]*)$/.exec(text);
  if (!m) throw new Error(`the simulated guard reads label selectors "key=value", not ${text}`);
  return (labels) => labels[m[1]] === m[2];
}

/**
 * The program of a guard gate Job's pod (a new one for each pod): reads the policies and bindings
 * through RBAC, asks src/gate's `assessGuard`, and exits 0 once it has said done for
 * `settleSeconds` without a break.
 */
export function guardGateProgram(cluster: string, looks: GuardLook[]): PodProgram {
  let heldSince: number | undefined;
  let lastLook: number | undefined;
  let last: string | undefined;
  return (job: Live, api: KubeApi, now: number) => {
    const podSpec = (job.applied as unknown as JobManifest).spec.template.spec;
    const spec = JSON.parse(podSpec.containers[0].env!.find((e) => e.name === 'GUARD')!.value!) as GuardSpec;
    if (lastLook !== undefined && now - lastLook < spec.pollSeconds * 1000) return 'running';
    lastLook = now;
    const subject = { namespace: job.namespace!, name: podSpec.serviceAccountName ?? 'default' };
    const say = (verdict: GuardLook['verdict']) => {
      const said = JSON.stringify(verdict);
      if (said !== last) looks.push({ at: now, cluster, job: job.name, team: spec.team, verdict });
      last = said;
    };
    if (!api.authorize(subject, 'list', 'admissionregistration.k8s.io', 'validatingadmissionpolicies')) {
      say({ forbidden: 'list validatingadmissionpolicies.admissionregistration.k8s.io' });
      return 'failed';
    }
    const selected = selectorOf(spec.policySelector);
    const policies = api.list('ValidatingAdmissionPolicy').filter((l) => selected(l.applied.metadata.labels ?? {}))
      .sort((a, b) => (a.name < b.name ? -1 : 1)).map((l) => policyFacts(api.render(l)));
    const bindings: Record<string, ReturnType<typeof bindingFacts> | undefined> = {};
    for (const p of guarding(policies, spec)) {
      if (!api.authorize(subject, 'get', 'admissionregistration.k8s.io', 'validatingadmissionpolicybindings', undefined, p.name)) {
        say({ forbidden: `get validatingadmissionpolicybindings.admissionregistration.k8s.io ${p.name}` });
        return 'failed';
      }
      const binding = api.get('ValidatingAdmissionPolicyBinding', p.name);
      bindings[p.name] = binding && bindingFacts(api.render(binding));
    }
    const verdict = assessGuard({ policies, bindings }, spec);
    say(verdict);
    if (!verdict.done) {
      heldSince = undefined;
      return 'running';
    }
    heldSince ??= now;
    return now - heldSince >= spec.settleSeconds * 1000 ? 'succeeded' : 'running';
  };
}

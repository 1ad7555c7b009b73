import { assess, READY_DEPENDENTS, READY_DEPENDENTS_RELEASES } from '../../src/gate/assess';
import { VENDORED_RELEASES } from '../../src/release/vendored.generated';
import { aLaunchedNodeClaim, argoApplies, karpenterMarksDrift, karpenterReconcilesNodeClass, karpenterReconcilesNodePool, setCondition } from '../support/karpenter';
import { aGateSpec, aWorld, karpenterLooks, snapshotOf, World } from './world';

/** The waiting lines of the gate on the world. */
const waiting = (world: World, spec = aGateSpec()) => assess(snapshotOf(world, spec), spec).waiting;

describe('assess: is Karpenter done with the revision, at one look', () => {
  it('is done when every object is applied and observed, every NodeClaim current and the controller rolled out', () => {
    expect(assess(snapshotOf(aWorld()), aGateSpec())).toEqual({ done: true, waiting: [] });
  });

  describe('Argo CD applied the revision', () => {
    it('waits while an object carries another revision\'s digest', () => {
      const world = aWorld();
      argoApplies(world.pools.web, 'rev0');
      expect(waiting(world)).toEqual([expect.stringMatching(/^nodepool web: digest rev0, this revision's is rev1: Argo CD has not applied this revision yet$/)]);
    });

    it('waits while an object is not there, or being deleted', () => {
      const world = aWorld();
      delete (world.overlays as Record<string, unknown>).cheap;
      world.classes.batch.metadata.deletionTimestamp = '2026-01-01T01:00:00Z';
      expect(waiting(world)).toEqual(expect.arrayContaining([
        'ec2nodeclass batch: being deleted',
        'nodeoverlay cheap: not found: Argo CD has not applied this revision yet',
      ]));
    });
  });

  describe('Karpenter observed the objects', () => {
    it('waits while the conditions are of an older generation: the revision is applied, Karpenter has not looked', () => {
      const world = aWorld();
      const spec = aGateSpec({ nodePools: [{ name: 'web', digest: 'rev2' }, { name: 'batch', digest: 'rev1' }] });
      argoApplies(world.pools.web, 'rev2', { ...world.pools.web.spec, weight: 10 });
      expect(world.pools.web.metadata.generation).toBe(2);
      expect(waiting(world, spec)).toEqual(['nodepool web: Karpenter has not observed generation 2 yet (Ready at 1, ValidationSucceeded at 1, NodeClassReady at 1)']);
      karpenterLooks(world);
      expect(waiting(world, spec)).toEqual([]);
    });

    it('does not wait on a condition Ready does not depend on, left at an older generation (CapacityReservationsReady with the ReservedCapacity gate turned off)', () => {
      const world = aWorld();
      // Set while ReservedCapacity was on, at generation 1; with it off the nodeclass controller
      // never sets it again (provider pkg/controllers/nodeclass/controller.go l. 149-152).
      setCondition(world.classes.web, 'CapacityReservationsReady', 'True');
      argoApplies(world.classes.web, 'rev2', { ...world.classes.web.spec, role: 'OtherRole' });
      karpenterReconcilesNodeClass(world.classes.web);
      const nodeClass = world.classes.web.status.conditions!;
      expect(nodeClass.find((c) => c.type === 'CapacityReservationsReady')?.observedGeneration).toBe(1);
      expect(nodeClass.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', observedGeneration: 2 });
      // NodeRegistrationHealthy is not a dependent of a NodePool's Ready either.
      world.pools.batch.status.conditions = world.pools.batch.status.conditions!.map((c) => (c.type === 'NodeRegistrationHealthy' ? { ...c, observedGeneration: 0 } : c));
      const spec = aGateSpec({ nodeClasses: [{ name: 'web', digest: 'rev2' }, { name: 'batch', digest: 'rev1' }] });
      expect(assess(snapshotOf(world, spec), spec).waiting.filter((w) => !w.startsWith('nodeclaim'))).toEqual([]);
    });

    it('waits while a dependent Karpenter names for Ready is not set, or is not True at the generation, saying which', () => {
      const world = aWorld();
      world.classes.batch.status.conditions = world.classes.batch.status.conditions!.filter((c) => c.type !== 'PlacementGroupReady');
      world.overlays.cheap.status.conditions = world.overlays.cheap.status.conditions!.map((c) => (c.type === 'ValidationSucceeded' ? { ...c, status: 'Unknown', reason: 'AwaitingReconciliation' } : c));
      expect(waiting(world)).toEqual([
        'ec2nodeclass batch: Karpenter has not observed generation 1 yet (PlacementGroupReady not set)',
        'nodeoverlay cheap: Ready, but ValidationSucceeded Unknown, AwaitingReconciliation',
      ]);
    });

    it('reads Ready\'s dependents of every release the project vendors (fails when a new release is vendored: read its StatusConditions() again)', () => {
      expect(VENDORED_RELEASES.map((r) => r.version).filter((v) => !READY_DEPENDENTS_RELEASES.includes(v))).toEqual([]);
      expect(READY_DEPENDENTS.nodepool).not.toContain('NodeRegistrationHealthy');
    });

    it('waits for an object Karpenter has never looked at (no status conditions)', () => {
      const world = aWorld();
      world.overlays.cheap.status = {};
      expect(waiting(world)).toEqual(['nodeoverlay cheap: no status conditions: Karpenter has not looked at it yet']);
    });

    it('waits while an observed object is not Ready, with Karpenter\'s reason', () => {
      const world = aWorld();
      setCondition(world.classes.web, 'SubnetsReady', 'False', 'SubnetsNotFound', 'SubnetSelector did not match any Subnets');
      karpenterReconcilesNodePool(world.pools.web, world.classes.web);
      expect(waiting(world)).toEqual([
        'nodepool web: not Ready (False, UnhealthyDependents: NodeClassReady=False)',
        'ec2nodeclass web: not Ready (False, UnhealthyDependents: SubnetsReady=False)',
      ]);
    });

    it('waits until Karpenter has hashed the NodePool and the EC2NodeClass', () => {
      const world = aWorld();
      delete world.pools.batch.metadata.annotations!['karpenter.sh/nodepool-hash'];
      delete world.classes.web.metadata.annotations!['karpenter.k8s.aws/ec2nodeclass-hash-version'];
      expect(waiting(world)).toEqual([
        'nodepool batch: no karpenter.sh/nodepool-hash annotation yet: Karpenter has not hashed it',
        'ec2nodeclass web: no karpenter.k8s.aws/ec2nodeclass-hash-version annotation yet: Karpenter has not hashed it',
      ]);
    });

    it('waits when a NodePool points at an EC2NodeClass the gate does not watch', () => {
      const world = aWorld();
      const spec = aGateSpec({ nodeClasses: [{ name: 'web', digest: 'rev1' }] });
      expect(waiting(world, spec)).toEqual([expect.stringMatching(/^nodepool batch: its nodeClassRef names EC2NodeClass batch, which this gate does not watch/)]);
    });
  });

  describe('the NodeClaims of the pools', () => {
    it('waits while a NodeClaim was built from an older NodePool (static drift, drift.go areStaticFieldsDrifted)', () => {
      const world = aWorld();
      argoApplies(world.pools.web, 'rev1', { ...world.pools.web.spec, template: { spec: { ...(world.pools.web.spec.template as { spec: object }).spec, expireAfter: '360h' } } });
      karpenterLooks(world);
      expect(waiting(world)).toEqual([expect.stringMatching(/^nodeclaim web-1: built from an older NodePool web \(karpenter\.sh\/nodepool-hash \w+…?, the NodePool's \w+…?\): Karpenter will drift it$/)]);
    });

    it('does not compare hashes of different hash versions, nor when the NodeClaim has none (as Karpenter)', () => {
      const world = aWorld();
      world.pools.web.metadata.annotations!['karpenter.sh/nodepool-hash'] = 'other';
      world.claims['web-1'].metadata.annotations!['karpenter.sh/nodepool-hash-version'] = 'v2';
      delete world.claims['batch-1'].metadata.annotations!['karpenter.sh/nodepool-hash'];
      world.pools.batch.metadata.annotations!['karpenter.sh/nodepool-hash'] = 'other';
      expect(waiting(world)).toEqual([]);
    });

    it('compares a NodeClaim with the EC2NodeClass its NodePool points at, as the AWS provider resolves it', () => {
      const world = aWorld();
      argoApplies(world.classes.web, 'rev1', { ...world.classes.web.spec, role: 'OtherRole' });
      karpenterReconcilesNodeClass(world.classes.web);
      expect(waiting(world)).toEqual([expect.stringMatching(/^nodeclaim web-1: built from an older EC2NodeClass web \(karpenter\.k8s\.aws\/ec2nodeclass-hash .*\): Karpenter will drift it$/)]);
    });

    it('waits while a NodeClaim is Drifted, naming the reason, even while it is being deleted', () => {
      const world = aWorld();
      karpenterMarksDrift(world.claims['batch-1'], 'AMIDrift');
      world.claims['batch-1'].metadata.deletionTimestamp = '2026-01-01T01:00:00Z';
      expect(waiting(world)).toEqual(['nodeclaim batch-1 (being deleted): Drifted (AMIDrift)']);
    });

    it('is done once the drifted NodeClaim is gone and its replacement is current', () => {
      const world = aWorld();
      karpenterMarksDrift(world.claims['batch-1'], 'AMIDrift');
      delete world.claims['batch-1'];
      world.claims['batch-2'] = aLaunchedNodeClaim('batch-2', world.pools.batch, world.classes.batch);
      expect(waiting(world)).toEqual([]);
    });

    it('waits when the API server serves no NodeClaims (Karpenter\'s CRDs are not installed)', () => {
      const spec = aGateSpec();
      expect(assess({ ...snapshotOf(aWorld()), nodeClaims: undefined }, spec).waiting).toEqual([expect.stringMatching(/^nodeclaims: the API server serves no karpenter\.sh\/v1 NodeClaims/)]);
    });
  });

  describe('the Karpenter controller', () => {
    it('waits while the controller runs another chart version or other values', () => {
      const world = aWorld();
      world.deployment.metadata.labels!['helm.sh/chart'] = 'karpenter-1.13.1';
      (world.deployment.spec.template as { metadata: { annotations: Record<string, string> } }).metadata.annotations['karpenter-gitops.io/values-digest'] = 'values0';
      expect(waiting(world)).toEqual([
        'karpenter: runs chart karpenter-1.13.1, this revision\'s is karpenter-1.14.1',
        'karpenter: values digest values0, this revision\'s is values1: Argo CD has not applied this revision yet',
      ]);
    });

    it('waits until the Deployment controller has observed the spec (kubectl rollout status)', () => {
      const world = aWorld();
      world.deployment.metadata.generation = 2;
      expect(waiting(world)).toEqual(['karpenter: rollout not observed yet (generation 2, observed 1)']);
    });

    it('waits while replicas are unavailable, old ones are left, or the controller is scaled to zero', () => {
      const world = aWorld();
      Object.assign(world.deployment.status, { replicas: 3, updatedReplicas: 1, availableReplicas: 1 });
      world.deployment.status.conditions = [{ type: 'Progressing', status: 'False', observedGeneration: 1, lastTransitionTime: '', reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet "karpenter-7d9" has timed out progressing.' }];
      expect(waiting(world)).toEqual([
        'karpenter: 1/2 replicas updated',
        'karpenter: 2 old replica(s) pending termination',
        'karpenter: 1/2 replicas available',
        'karpenter: rollout exceeded its progress deadline (ProgressDeadlineExceeded: ReplicaSet "karpenter-7d9" has timed out progressing.)',
      ]);
      world.deployment.spec.replicas = 0;
      Object.assign(world.deployment.status, { replicas: 0, updatedReplicas: 0, availableReplicas: 0, conditions: [] });
      expect(waiting(world)).toEqual(['karpenter: 0/0 replicas available (scaled to zero: no controller runs)']);
    });

    it('waits when the controller Deployment is not there', () => {
      const spec = aGateSpec();
      expect(assess({ ...snapshotOf(aWorld()), deployment: undefined }, spec).waiting).toEqual(['karpenter: deployment karpenter/karpenter not found']);
    });
  });
});

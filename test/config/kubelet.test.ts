import { controllerKubeletFindings } from '../../src/config/kubelet';

/** The findings of a kubelet configuration on an AMI family, as `path: message` lines. */
function findings(kubelet: Record<string, unknown>, family = 'AL2023'): string[] {
  return controllerKubeletFindings(kubelet, family).map((f) => `${f.path.join('.')}: ${f.message}`);
}

// The rules of kubeletconfiguration_validation.go and validation.go at 1d927085, one case each.
describe('controllerKubeletFindings (Karpenter 1.15: spec.kubelet validated by the controller)', () => {
  it('accepts an empty configuration and every KubeletConfiguration field on AL2023', () => {
    expect(findings({})).toEqual([]);
    expect(findings({ containerLogMaxSize: '50Mi', serializeImagePulls: false, evictionMinimumReclaim: { 'memory.available': '100Mi' }, maxPods: 'min(110, max_pods)' })).toEqual([]);
  });

  it.each([
    ['an unknown field (strict decode, L130)', { maxPodz: 10 }, /^maxPodz: unknown field "maxPodz"/],
    ['a wrong type (strict decode, L130)', { cpuCFSQuota: 'yes' }, /^cpuCFSQuota: must be true or false, got "yes"$/],
    ['an invalid duration (metav1.Duration)', { shutdownGracePeriod: 'soon' }, /^shutdownGracePeriod: must be a duration/],
    ['registerWithTaints (L152-L156)', { registerWithTaints: [] }, /^registerWithTaints: can't be set: Karpenter sets it/],
    ['an unknown eviction signal (L168-L170)', { evictionHard: { 'memory.free': '5%' } }, /^evictionHard\.memory\.free: "memory\.free" isn't a valid eviction signal/],
    ['a percentage over 100 (L63-L71)', { evictionHard: { 'memory.available': '101%' } }, /^evictionHard\.memory\.available: "101%" must be a percentage or a resource quantity$/],
    ['a negative threshold (L77-L79)', { evictionMinimumReclaim: { 'memory.available': '-1Mi' } }, /can't be a negative resource quantity$/],
    ['a grace period that is no duration (L87-L91)', { evictionSoft: { 'memory.available': '5%' }, evictionSoftGracePeriod: { 'memory.available': 'a while' } }, /^evictionSoftGracePeriod\.memory\.available: "a while" must be a duration$/],
    ['a soft threshold without grace period (L190-L194)', { evictionSoft: { 'memory.available': '5%' } }, /^evictionSoft\.memory\.available: has no matching evictionSoftGracePeriod$/],
    ['a grace period without soft threshold (L195-L199)', { evictionSoftGracePeriod: { 'memory.available': '1m' } }, /^evictionSoftGracePeriod\.memory\.available: has no matching evictionSoft$/],
    ['a resource that is not reservable (L211-L214)', { kubeReserved: { gpu: '1' } }, /^kubeReserved\.gpu: "gpu" isn't a reservable resource/],
    ['a negative reservation (L215-L218)', { systemReserved: { cpu: '-100m' } }, /^systemReserved\.cpu: "-100m" can't be a negative resource quantity$/],
    ['a percentage over 100 (L224-L228)', { imageGCHighThresholdPercent: 101 }, /^imageGCHighThresholdPercent: 101 must be between 0 and 100$/],
    ['a negative count (L229-L233)', { podsPerCore: -1 }, /^podsPerCore: -1 can't be negative$/],
    ['a negative maxPods (L236-L240)', { maxPods: -1 }, /^maxPods: -1 can't be negative$/],
    ['an inverted image GC pair (L244-L248)', { imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 60 }, /^imageGCHighThresholdPercent: imageGCHighThresholdPercent \(50\) must be greater than imageGCLowThresholdPercent \(60\)$/],
  ])('fails on %s', (_what, kubelet, message) => {
    expect(findings(kubelet)).toContainEqual(expect.stringMatching(message));
  });

  describe('per AMI family (validateKubeletFieldsSupported, validation.go L702-L748)', () => {
    it.each(['AL2', 'Bottlerocket', 'Windows2022'])('fails on a field Karpenter does not map on %s', (family) => {
      expect(findings({ containerLogMaxSize: '50Mi' }, family)).toEqual([expect.stringMatching(new RegExp(`^containerLogMaxSize: the ${family} AMI family does not apply it`))]);
    });

    it('fails on podsPerCore on Bottlerocket only', () => {
      expect(findings({ podsPerCore: 2 }, 'Bottlerocket')).toEqual([expect.stringMatching(/^podsPerCore: the Bottlerocket AMI family has no setting for it/)]);
      expect(findings({ podsPerCore: 2 }, 'AL2')).toEqual([]);
    });

    it('fails on more than one clusterDNS entry but on AL2023 and Custom', () => {
      const kubelet = { clusterDNS: ['10.0.0.10', '10.0.0.11'] };
      expect(findings(kubelet, 'AL2')).toEqual([expect.stringMatching(/^clusterDNS: the AL2 AMI family doesn't accept multiple entries, only one, but 2 were set$/)]);
      expect(findings(kubelet, 'AL2023')).toEqual([]);
      expect(findings({ ...kubelet, containerLogMaxSize: '50Mi' }, 'Custom')).toEqual([]);
    });
  });
});

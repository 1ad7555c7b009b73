/** How release numbers order: Kubernetes minors and Karpenter releases. */

/** Orders Kubernetes minor versions numerically ("1.9" before "1.10"). */
export function compareMinor(a: string, b: string): number {
  const [am, an] = a.split('.').map(Number);
  const [bm, bn] = b.split('.').map(Number);
  return am - bm || an - bn;
}

/** Orders release numbers (`1.13`, `1.14.1`, `0.37`), missing parts counting as 0; a pre-release suffix is ignored. */
export function compareRelease(a: string, b: string): number {
  const parts = (v: string) => v.replace(/^v/, '').split('-')[0].split('.').map(Number);
  const pa = parts(a);
  const pb = parts(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

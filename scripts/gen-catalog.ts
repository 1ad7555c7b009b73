import { readFileSync, writeFileSync } from 'node:fs';
import { buildCatalog, renderCatalog } from '../src/catalog/generate';

/**
 * Writes the instance-type catalog of one Karpenter release. Bundle, then run:
 *
 *   npx esbuild scripts/gen-catalog.ts --bundle --platform=node --target=node20 --packages=external --outfile=lib/scripts/gen-catalog.js
 *   node lib/scripts/gen-catalog.js INSTANCE_TYPES_MD PRICING_GO VERSION [OUT]
 *
 * The inputs are website/content/en/docs/reference/instance-types.md and
 * pkg/providers/pricing/zz_generated.pricing_aws.go of aws/karpenter-provider-aws
 * at tag vVERSION; OUT defaults to src/catalog/instance-types.json.
 * @see https://github.com/aws/karpenter-provider-aws/tree/v1.14.1/website/content/en/docs/reference
 */
const [instanceTypesPath, pricingPath, karpenterVersion, out = 'src/catalog/instance-types.json'] = process.argv.slice(2);
if (!instanceTypesPath || !pricingPath || !karpenterVersion) {
  process.stderr.write('usage: gen-catalog INSTANCE_TYPES_MD PRICING_GO VERSION [OUT]\n');
  process.exit(2);
}
try {
  const data = buildCatalog({
    instanceTypesMd: readFileSync(instanceTypesPath, 'utf8'),
    pricingGo: readFileSync(pricingPath, 'utf8'),
    karpenterVersion,
  });
  const text = renderCatalog(data);
  writeFileSync(out, text);
  const priced = data.types.filter((t) => t[3] !== null).length;
  process.stdout.write(`wrote ${out}: ${data.types.length} instance types (${priced} priced), ${text.length} bytes\n`);
} catch (e) {
  process.stderr.write(`gen-catalog: ${(e as Error).message}\n`);
  process.exit(1);
}

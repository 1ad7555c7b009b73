import { Ec2NodeClassSpecAmiFamily } from '../../imports/karpenter.k8s.aws';
import { NodeOverlaySpecRequirementsOperator } from '../../imports/karpenter.sh';
import { crdValue } from '../../src/constructs/crd-value';
import { AMI_FAMILIES } from '../../src/config/schema/node-class';
import { OPERATORS } from '../../src/config/schema/requirements';

describe('crdValue', () => {
  it('gives the generated enum member a model value spells, for every value the config allows', () => {
    expect(crdValue(Ec2NodeClassSpecAmiFamily, 'AL2023')).toBe(Ec2NodeClassSpecAmiFamily.AL2023);
    expect(AMI_FAMILIES.map((f) => crdValue(Ec2NodeClassSpecAmiFamily, f))).toEqual([...AMI_FAMILIES]);
    expect(OPERATORS.map((o) => crdValue(NodeOverlaySpecRequirementsOperator, o))).toEqual([...OPERATORS]);
  });

  it('refuses at compile time a value the CRD does not allow', () => {
    // @ts-expect-error "Ubuntu" is not an amiFamily of the EC2NodeClass CRD: npm test's type check fails without this line's expectation.
    expect(() => crdValue(Ec2NodeClassSpecAmiFamily, 'Ubuntu')).toThrow(/"Ubuntu" is not a value of AL2, AL2023, Bottlerocket/);
  });
});

/**
 * The member of an enum `cdk8s import` generated from a CRD (`aws.Ec2NodeClassSpecAmiFamily`)
 * that the plan's `value` spells. `value` must be typed as one of the enum's values
 * (`${E[keyof E]}`), so a model value the CRD does not allow is a compile error here, not a cast.
 */
export function crdValue<E extends Record<string, string>>(crdEnum: E, value: `${E[keyof E]}`): E[keyof E] {
  for (const key in crdEnum) if (crdEnum[key] === value) return crdEnum[key];
  // Unreachable while the types hold: `value` is one of the enum's values.
  throw new Error(`"${value}" is not a value of ${Object.values(crdEnum).join(', ')}`);
}

/**
 * The enum value `value` names, read at run time: for a value the config may hold on a release
 * whose CRD (and so the generated enum) lists it, and that the config refuses elsewhere.
 */
export function crdEnumValue<E extends Record<string, string>>(crdEnum: E, value: string): E[keyof E] {
  for (const key in crdEnum) if (crdEnum[key] === value) return crdEnum[key];
  throw new Error(`"${value}" is not a value of ${Object.values(crdEnum).join(', ')}: the config should have refused it for this release`);
}

/**
 * A request-body class compiled once into a plain function that answers only "valid or not", running the
 * class's own constraint functions (so a rule cannot read differently here and in class-validator) in the
 * order class-validator's executor runs them, without what the executor builds for every property of every
 * call (metadata look-ups, error objects, messages, contexts). A valid body, the common case, stops here;
 * anything else goes to class-validator for the exact error. The answer "invalid" is always safe (it only
 * costs the slow path), so whatever the compiler does not know how to run is compiled to "invalid".
 */
import { getMetadataStorage, ValidationTypes, type ValidationArguments } from 'class-validator';

type Storage = ReturnType<typeof getMetadataStorage>;
type Metadata = ReturnType<Storage['getTargetValidationMetadatas']>[number];
type Check = (object: Record<string, unknown>) => boolean;

interface ConstraintRun {
  metadata: Metadata;
  validators: { validate(value: unknown, args: ValidationArguments): unknown }[];
}

interface PropertyPlan {
  name: string;
  conditions: ((object: object, value: unknown) => boolean)[];
  defined: ConstraintRun[];
  custom: ConstraintRun[];
  nested: boolean;
}

const KNOWN_TYPES = new Set<string>([
  ValidationTypes.IS_DEFINED, ValidationTypes.CUSTOM_VALIDATION, ValidationTypes.NESTED_VALIDATION,
  ValidationTypes.CONDITIONAL_VALIDATION, ValidationTypes.WHITELIST,
]);

const compiled = new Map<Function, Check | null>();
const NEVER: Check = () => false;

/**
 * True only when class-validator (whitelist, forbidNonWhitelisted, forbidUnknownValues) would find no
 * problem in the instance; false when it would, or when this compiler cannot tell.
 */
export function isValidPayloadInstance(instance: object): boolean {
  return checkOf(instance.constructor)(instance as Record<string, unknown>);
}

function checkOf(target: Function): Check {
  let check = compiled.get(target);
  if (check === undefined) {
    check = compile(target);
    compiled.set(target, check);
  }
  // null while compiling (a class nested in itself): answer "cannot tell".
  return check ?? NEVER;
}

function compile(target: Function): Check {
  compiled.set(target, null);
  const storage = getMetadataStorage();
  const metadatas = storage.getTargetValidationMetadatas(target, '', false, false, undefined);
  // forbidUnknownValues: an object of a class without rules is itself a problem.
  if (metadatas.length === 0 || metadatas.some((m) => !KNOWN_TYPES.has(m.type))) return NEVER;
  const runs = (list: Metadata[]): ConstraintRun[] | undefined => {
    const result: ConstraintRun[] = [];
    for (const metadata of list) {
      const constraints = storage.getTargetValidatorConstraints(metadata.constraintCls);
      if (constraints.some((c) => c.async)) return undefined;
      result.push({ metadata, validators: constraints.map((c) => c.instance) });
    }
    return result;
  };
  const properties: PropertyPlan[] = [];
  for (const [name, list] of Object.entries(storage.groupByPropertyName(metadatas))) {
    const defined = runs(list.filter((m) => m.type === ValidationTypes.IS_DEFINED));
    const custom = runs(list.filter((m) => m.type === ValidationTypes.CUSTOM_VALIDATION));
    if (!defined || !custom) return NEVER;
    properties.push({
      name,
      conditions: list.filter((m) => m.type === ValidationTypes.CONDITIONAL_VALIDATION).map((m) => m.constraints[0] as PropertyPlan['conditions'][number]),
      defined,
      custom,
      nested: list.some((m) => m.type === ValidationTypes.NESTED_VALIDATION),
    });
  }
  const known = new Set(properties.map((p) => p.name));
  return (object) => {
    for (const key of Object.keys(object)) if (!known.has(key)) return false;
    for (const property of properties) {
      const value = object[property.name];
      if (!property.conditions.every((condition) => condition(object, value))) continue;
      if (!constraintsHold(object, value, property.defined) || !constraintsHold(object, value, property.custom)) return false;
      if (property.nested && !nestedHolds(value)) return false;
    }
    return true;
  };
}

function constraintsHold(object: Record<string, unknown>, value: unknown, runs: ConstraintRun[]): boolean {
  for (const { metadata, validators } of runs) {
    if (metadata.validateIf && !metadata.validateIf(object, value)) continue;
    const args: ValidationArguments = {
      targetName: object.constructor?.name, property: metadata.propertyName, object, value, constraints: metadata.constraints,
    };
    if (value instanceof Set || value instanceof Map) return false;
    const each = metadata.each && Array.isArray(value);
    for (const validator of validators) {
      const holds = each ? (value as unknown[]).every((item) => validator.validate(item, args) === true) : validator.validate(value, args) === true;
      if (!holds) return false;
    }
  }
  return true;
}

/** ValidateNested as the executor runs it: into every item of an array (arrays of arrays too), into an object, refusing anything else. */
function nestedHolds(value: unknown): boolean {
  if (value === undefined) return true;
  if (Array.isArray(value)) return value.every((item) => nestedHolds(item));
  if (value instanceof Set || value instanceof Map) return false;
  if (value instanceof Object) return checkOf(value.constructor)(value as Record<string, unknown>);
  return false;
}

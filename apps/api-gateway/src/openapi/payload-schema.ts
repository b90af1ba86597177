import { getMetadataStorage } from 'class-validator';
import type { JsonSchema } from './json-schema.js';

/** class-validator's record of one decorator (its type is not exported from the package root). */
type ValidationMetadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];

/**
 * The JSON Schema of a request body, read from the class-validator decorators of
 * the class that validates it, so the document states the rules the API enforces
 * rather than a second copy of them.
 *
 * It reads the class the way the API validates it (whitelist with
 * forbidNonWhitelisted): the object is closed; a property is required unless a
 * condition (IsOptional, ValidateIf) skips it when absent, and accepts null when
 * a condition skips it when null. A constraint without a translation here stops
 * the document from being built, unless the payload names it in `statedInWords`
 * and describes it on its property: a new rule is never silently left out.
 */
export interface PayloadSchemaOptions {
  description?: string;
  examples?: unknown[];
  /** The component schema of each nested payload, by property: ValidateNested does not record the class it validates. */
  nested?: Record<string, string>;
  /** What decorators cannot carry, by property: descriptions, examples, and rules the payload checks in code. */
  annotations?: Record<string, JsonSchema>;
  /** Custom constraints JSON Schema cannot express; their property's description must state them. */
  statedInWords?: readonly string[];
  /** The fewest properties a body must have, when the payload's handler checks it in code (a PATCH that changes something). */
  minProperties?: number;
}

type ConstraintTranslation = (constraints: unknown[]) => JsonSchema;

const TRANSLATIONS: Record<string, ConstraintTranslation> = {
  isString: () => ({ type: 'string' }),
  isBoolean: () => ({ type: 'boolean' }),
  isInt: () => ({ type: 'integer' }),
  isObject: () => ({ type: 'object' }),
  isArray: () => ({ type: 'array' }),
  // IsNotEmpty only refuses '' (and null/undefined) whatever the type: checkLengths() makes sure the property is a string.
  isNotEmpty: () => ({ minLength: 1 }),
  minLength: ([min]) => ({ type: 'string', minLength: min }),
  maxLength: ([max]) => ({ type: 'string', maxLength: max }),
  matches: ([pattern, modifiers]) => ({ type: 'string', pattern: patternSource(pattern, modifiers) }),
  isIn: ([values]) => {
    const allowed = [...(values as unknown[])];
    return allowed.every((value) => typeof value === 'string') ? { type: 'string', enum: allowed } : { enum: allowed };
  },
  min: ([minimum]) => ({ type: 'number', minimum }),
  max: ([maximum]) => ({ type: 'number', maximum }),
  arrayMinSize: ([min]) => ({ type: 'array', minItems: min }),
  arrayMaxSize: ([max]) => ({ type: 'array', maxItems: max }),
  arrayNotEmpty: () => ({ type: 'array', minItems: 1 }),
  arrayUnique: ([identifier]) => {
    // With an identifier function, uniqueness is by a derived key: JSON Schema's uniqueItems would say something else.
    if (identifier !== undefined) throw new Error('ArrayUnique with an identifier has no JSON Schema');
    return { type: 'array', uniqueItems: true };
  },
};

function patternSource(pattern: unknown, modifiers: unknown): string {
  const regex = pattern instanceof RegExp ? pattern : new RegExp(String(pattern), typeof modifiers === 'string' ? modifiers : undefined);
  // JSON Schema patterns have no flags; a flagged regex would be documented as a different rule.
  if (regex.flags !== '' || (typeof modifiers === 'string' && modifiers !== '')) throw new Error(`the pattern ${regex} has flags, which JSON Schema cannot carry`);
  return regex.source;
}

/** Adds keywords to a schema; the same keyword twice with different values is a rule this reading would lose. */
function merge(target: JsonSchema, addition: JsonSchema, where: string): void {
  for (const [keyword, value] of Object.entries(addition)) {
    const current = target[keyword];
    if (current === undefined || JSON.stringify(current) === JSON.stringify(value)) target[keyword] = value;
    // An integer is a number: Min/Max beside IsInt keep the narrower type.
    else if (keyword === 'type' && [current, value].includes('integer') && [current, value].includes('number')) target.type = 'integer';
    else throw new Error(`${where}: ${keyword} is both ${JSON.stringify(current)} and ${JSON.stringify(value)}`);
  }
}

/** A string's minLength only holds for strings: IsNotEmpty on anything else means something JSON Schema does not say. */
function checkLengths(schema: JsonSchema, where: string): JsonSchema {
  if (schema.minLength !== undefined && schema.type !== 'string') throw new Error(`${where}: IsNotEmpty or MinLength on a value that is not a string`);
  return schema;
}

/** The type first, as a reader looks for it. */
function typeFirst(schema: JsonSchema): JsonSchema {
  const { type, ...rest } = schema;
  return type === undefined ? rest : { type, ...rest };
}

/** null beside a schema: a type list where the schema has a single type, else a oneOf (an enum or a $ref cannot take null in). */
function orNull(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string' && schema.enum === undefined) return { ...schema, type: [schema.type, 'null'] };
  return { oneOf: [schema, { type: 'null' }] };
}

/** Whether the property's conditions (IsOptional, ValidateIf) skip validation for this value: then the value is accepted. */
function skipped(conditions: ValidationMetadata[], property: string, value: unknown): boolean {
  return conditions.some((condition) => !(condition.constraints[0] as (object: object, value: unknown) => boolean)({ [property]: value }, value));
}

function propertySchema(
  name: string,
  property: string,
  metadatas: ValidationMetadata[],
  options: PayloadSchemaOptions,
): { schema: JsonSchema; required: boolean } {
  const where = `${name}.${property}`;
  const own: JsonSchema = {};
  const items: JsonSchema = {};
  const conditions: ValidationMetadata[] = [];
  let nested: 'one' | 'each' | undefined;
  let unstated = false;
  for (const metadata of metadatas) {
    if (metadata.type === 'conditionalValidation') conditions.push(metadata);
    else if (metadata.type === 'isDefined') continue;
    else if (metadata.type === 'nestedValidation') nested = metadata.each ? 'each' : 'one';
    else if (metadata.type === 'customValidation') {
      const constraint = metadata.name ?? '';
      const translate = TRANSLATIONS[constraint];
      if (translate) merge(metadata.each ? items : own, translate(metadata.constraints ?? []), where);
      else if (options.statedInWords?.includes(constraint)) unstated = true;
      else throw new Error(`${where}: no JSON Schema for the constraint ${constraint || '(unnamed)'}`);
    } else throw new Error(`${where}: no JSON Schema for ${metadata.type} validation`);
  }

  let schema = checkLengths(own, where);
  if (Object.keys(items).length > 0) schema.items = typeFirst(checkLengths(items, `${where}[]`));
  if (nested) {
    const component = options.nested?.[property];
    if (!component) throw new Error(`${where} is a nested payload: name its component schema in options.nested`);
    const ref = { $ref: `#/components/schemas/${component}` };
    if (nested === 'each') {
      if (schema.items !== undefined) throw new Error(`${where}: rules on items beside a nested payload`);
      schema.items = ref;
    } else {
      // IsObject beside ValidateNested adds nothing the referenced object schema does not say.
      const { type, ...rest } = schema;
      if ((type !== undefined && type !== 'object') || Object.keys(rest).length > 0) throw new Error(`${where}: rules beside a nested payload`);
      schema = ref;
    }
  }

  const annotation = options.annotations?.[property] ?? {};
  if (unstated && typeof annotation.description !== 'string') throw new Error(`${where}: describe the rule JSON Schema cannot state`);
  merge(schema, annotation, `${where} (annotation)`);
  schema = typeFirst(schema);
  return {
    schema: skipped(conditions, property, null) ? orNull(schema) : schema,
    required: !skipped(conditions, property, undefined),
  };
}

export function payloadSchema(payload: Function, options: PayloadSchemaOptions = {}): JsonSchema {
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(payload, '', true, false);
  const byProperty = new Map<string, ValidationMetadata[]>();
  for (const metadata of metadatas) byProperty.set(metadata.propertyName, [...(byProperty.get(metadata.propertyName) ?? []), metadata]);
  for (const property of Object.keys(options.annotations ?? {})) {
    if (!byProperty.has(property)) throw new Error(`${payload.name} has no property ${property} to annotate`);
  }

  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [property, own] of byProperty) {
    const derived = propertySchema(payload.name, property, own, options);
    properties[property] = derived.schema;
    if (derived.required) required.push(property);
  }
  return {
    type: 'object',
    ...(options.description ? { description: options.description } : {}),
    ...(required.length > 0 ? { required } : {}),
    ...(options.minProperties !== undefined ? { minProperties: options.minProperties } : {}),
    properties,
    additionalProperties: false,
    ...(options.examples ? { examples: options.examples } : {}),
  };
}

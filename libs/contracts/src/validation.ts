import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { registerDecorator, validateSync, type ValidationArguments, type ValidationError, type ValidationOptions } from 'class-validator';
import { isValidPayloadInstance } from './compiled-payload.js';

export { plainToInstance };
import { isErrorCode, type ServiceError } from './errors.js';

/** A decorator's message that starts with the property's name: `saying('is required.')` → "url is required.". */
export const saying = (text: string) => ({ message: ({ property }: ValidationArguments) => `${property} ${text}` });

/**
 * Several decorators applied in the order written. Stacked decorators are applied bottom-up, and class-validator
 * reports the first rule that fails in the order they were applied: the order here is the order of the checks.
 */
export const allOf = (...decorators: PropertyDecorator[]): PropertyDecorator => (target, key) => {
  for (const decorator of decorators) decorator(target, key);
};

/**
 * Extra data a validation decorator can carry in its `context`:
 * `code` overrides the error code, `valid_values` lists the allowed values.
 */
export interface ConstraintContext {
  code?: string;
  valid_values?: readonly string[];
}

export interface ValidateOptions {
  /** Names that are part of the resource but not writable; named as read-only in the error. */
  readOnly?: readonly string[];
  /** Prefix for field paths (e.g. `events[3]`). */
  pathPrefix?: string;
}

/**
 * Validate an untrusted JSON value against a class-validator class. Returns the
 * first problem as a ServiceError with a precise, dotted `field` path
 * (`business_hours.schedule[0].open`), or undefined when the value is valid.
 */
export function findProblem<T extends object>(cls: ClassConstructor<T>, body: unknown, options: ValidateOptions = {}): ServiceError | undefined {
  const prefix = options.pathPrefix ?? '';
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return {
      code: 'invalid_request',
      message: `${prefix ? `${prefix} must` : 'The request body must'} be a JSON object.`,
      ...(prefix ? { field: prefix } : {}),
    };
  }
  // class-transformer drops reserved keys, and throws on some ("constructor" inside a nested value), so the shape is
  // checked without them; a reserved key is named only where the shape is otherwise right, so that
  // `{"webhook_secret": {"prototype": 1}}` is named as a field of the wrong type, not a reserved key inside it.
  const reserved = findReservedKey(body, prefix);
  const instance = plainToInstance(cls, reserved ? withoutReservedKeys(body) : body, { enableImplicitConversion: false });
  // The compiled class answers for a valid body; class-validator's executor only runs to name a problem.
  if (!isValidPayloadInstance(instance)) {
    const errors = validateSync(instance, {
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      validationError: { target: false, value: true },
    });
    if (errors.length > 0) return toServiceError(errors, prefix, options.readOnly ?? []);
  }
  return reserved;
}

function withoutReservedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutReservedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !RESERVED_KEY_SET.has(key))
      .map(([key, item]) => [key, withoutReservedKeys(item)]),
  );
}

/**
 * class-transformer silently drops `__proto__`/`constructor`/`prototype` keys,
 * so they would slip past the unknown-field check; refuse them by path instead.
 */
export const RESERVED_KEYS = ['__proto__', 'constructor', 'prototype'] as const;
const RESERVED_KEY_SET = new Set<string>(RESERVED_KEYS);
export function findReservedKey(value: unknown, path = ''): ServiceError | undefined {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = findReservedKey(item, `${path}[${i}]`);
      if (found) return found;
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const field = path ? `${path}.${key}` : key;
      if (RESERVED_KEY_SET.has(key)) return { code: 'invalid_parameter', field, message: `${field} is not a recognised field.` };
      const found = findReservedKey(item, field);
      if (found) return found;
    }
  }
  return undefined;
}

function joinPath(parent: string, property: string, parentIsArray: boolean): string {
  if (parentIsArray && /^\d+$/.test(property)) return `${parent}[${property}]`;
  return parent ? `${parent}.${property}` : property;
}

function firstLeaf(errors: ValidationError[], path: string, parentIsArray: boolean): { error: ValidationError; path: string } | undefined {
  for (const error of errors) {
    const here = joinPath(path, error.property, parentIsArray);
    if (error.constraints && Object.keys(error.constraints).length > 0) return { error, path: here };
    if (error.children?.length) {
      const leaf = firstLeaf(error.children, here, Array.isArray(error.value));
      if (leaf) return leaf;
    }
  }
  return undefined;
}

export function toServiceError(errors: ValidationError[], prefix = '', readOnly: readonly string[] = []): ServiceError {
  const leaf = firstLeaf(errors, prefix, false);
  if (!leaf) return { code: 'invalid_request', message: 'The request is invalid.' };
  const { error, path } = leaf;
  const constraints = error.constraints ?? {};
  const [constraintName] = Object.keys(constraints);
  const context = (error.contexts?.[constraintName] ?? {}) as ConstraintContext;

  if (constraintName === 'whitelistValidation') {
    const readOnlyField = readOnly.includes(error.property);
    return {
      code: 'invalid_parameter',
      field: path,
      message: readOnlyField
        ? `${path} is read-only and is set by the service.`
        : `${path} is not a recognised field.`,
    };
  }
  if (error.value === undefined && (constraintName === 'isDefined' || context.code === 'missing_required_field')) {
    return {
      code: 'missing_required_field',
      field: path,
      message: `${path} is required.`,
      ...(context.valid_values ? { valid_values: [...context.valid_values] } : {}),
    };
  }
  const code = isErrorCode(context.code) ? context.code : 'invalid_parameter';
  const message = constraints[constraintName].replace(new RegExp(`^${escapeRegExp(error.property)}\\b`), path);
  return {
    code,
    field: path,
    message,
    ...(context.valid_values ? { valid_values: [...context.valid_values] } : {}),
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The first query parameter a list does not know, as the error every list answers with:
 * a typo such as `stauts` would otherwise silently return everything.
 */
export function findUnknownParameter(query: Record<string, unknown>, known: readonly string[]): ServiceError | undefined {
  const name = Object.keys(query).find((key) => !known.includes(key));
  if (name === undefined) return undefined;
  return { code: 'invalid_parameter', field: name, message: `${name} is not a recognised parameter.`, valid_values: [...known] };
}

/**
 * The one way lengths are counted in this API: Unicode code points, as JSON Schema's maxLength (and so the
 * OpenAPI document), PostgreSQL's char_length and both voice platforms count them. class-validator's own
 * MaxLength/Length count a surrogate pair as one but drop every variation selector (U+FE0E/U+FE0F), so
 * 100 × "😀️" (200 code points, 300 UTF-16 units) passed a 100-character limit.
 */
export function charCount(value: string): number {
  let count = 0;
  for (const _ of value) count += 1;
  return count;
}

/**
 * At most `max` characters (code points). Registered under class-validator's own name, `maxLength`, with the
 * same constraint, so the OpenAPI schemas derived from the classes state it as `maxLength` unchanged.
 */
export function MaxChars(max: number, options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'maxLength',
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [max],
      options,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && charCount(value) <= max,
        defaultMessage: (args) => `${args?.property ?? 'value'} must be at most ${max} characters.`,
      },
    });
}

/** Between `min` and `max` characters (code points); class-validator's `length`, counted like MaxChars. */
export function CharLength(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'length',
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [min, max],
      options,
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return false;
          const count = charCount(value);
          return count >= min && count <= max;
        },
        defaultMessage: (args) => `${args?.property ?? 'value'} must be ${min} to ${max} characters long.`,
      },
    });
}

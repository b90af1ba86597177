/**
 * The first problem of a call event that the compiled schema refused, as the error the API answers with.
 * Reads the same definition the validator is compiled from (call-event.schema.ts) and walks it in the
 * order its properties are listed: unknown fields of an object first, then each property in turn, a
 * property's own rule before anything inside it. Only refused events come here, so it favours clarity.
 */
import type { ServiceError } from './errors.js';
import { isPlainObject } from './plain-object.js';
import { charCount } from './validation.js';

export interface SchemaNode {
  type?: string;
  enum?: readonly string[];
  $ref?: string;
  properties?: Record<string, SchemaNode>;
  required?: readonly string[];
  items?: SchemaNode;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  not?: { pattern?: string };
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
}

/** The few checks that need code rather than a schema keyword, each the pure rule of one text or value shape. */
export interface ProblemRules {
  isTimestamp(value: unknown): boolean;
  isStorableText(value: string): boolean;
  isStorableJson(value: unknown): boolean;
}

/**
 * A rule beyond the schema on one property of one definition (JSON Schema cannot compare two fields);
 * it gets the object holding the property and answers the message, or undefined when the rule holds.
 */
export type CrossFieldRule = (holder: Record<string, unknown>, path: string) => string | undefined;

const TIMESTAMP_MESSAGE = 'must be an ISO 8601 timestamp with a time zone in the years 0001 to 9999, e.g. 2025-01-31T14:05:00Z.';
const UNSTORABLE_MESSAGE = 'contains a character that cannot be stored (U+0000 or an unpaired UTF-16 surrogate).';
const CONTROL_MESSAGE = 'must not contain control characters (U+0000 to U+001F, U+007F to U+009F).';
const NON_BLANK = '\\S';

/** What a value that does not match a string pattern of the schema is told, keyed by the pattern. */
const PATTERN_MESSAGES: Record<string, string> = {
  '^\\+[1-9][0-9]{1,14}$': 'must be an E.164 phone number, e.g. +14155550123.',
  '^[A-Za-z0-9._:-]{1,128}$': 'must be 1 to 128 characters of A-Z, a-z, 0-9, ".", "_", ":" or "-".',
  '^[a-z][a-z0-9]*(_[a-z0-9]+)*$': 'must be a snake_case label, e.g. appointment_booked.',
  '^[a-z]{2}(-[A-Z]{2})?$': 'must be an ISO 639-1 code, e.g. en.',
  '^https?://[^\\s/?#]+[^\\s]*$': 'must be an http(s) URL.',
  [NON_BLANK]: 'must not be blank.',
};

const joinPath = (parent: string, property: string) => (parent ? `${parent}.${property}` : property);

const invalid = (field: string, message: string, validValues?: readonly string[]): ServiceError => ({
  code: 'invalid_parameter',
  field,
  message,
  ...(validValues ? { valid_values: [...validValues] } : {}),
});

export class CallEventProblems {
  private readonly patterns = new Map<string, RegExp>();

  constructor(
    private readonly defs: Record<string, SchemaNode>,
    private readonly rules: ProblemRules,
    private readonly crossFieldRules: Record<string, Record<string, CrossFieldRule>> = {},
  ) {}

  /** The first problem of an object against a definition (`def` names it for the cross-field rules). */
  objectProblem(node: SchemaNode, value: Record<string, unknown>, path: string, def = ''): ServiceError | undefined {
    const properties = node.properties ?? {};
    for (const key of Object.keys(value)) {
      if (!Object.hasOwn(properties, key)) {
        const field = joinPath(path, key);
        return invalid(field, `${field} is not a recognised field.`);
      }
    }
    const required = node.required ?? [];
    for (const [name, property] of Object.entries(properties)) {
      const field = joinPath(path, name);
      const item = Object.hasOwn(value, name) ? value[name] : undefined;
      if (item === undefined) {
        if (required.includes(name)) return { code: 'missing_required_field', field, message: `${field} is required.` };
        continue;
      }
      if (item === null && required.includes(name)) return invalid(field, `${field} is required.`);
      const crossField = this.crossFieldRules[def]?.[name]?.(value, field);
      if (crossField) return invalid(field, crossField);
      const problem = this.propertyProblem(property, item, field, name);
      if (problem) return problem;
    }
    return undefined;
  }

  private propertyProblem(node: SchemaNode, value: unknown, path: string, name: string): ServiceError | undefined {
    if (node.enum) return node.enum.includes(value as string) ? undefined : invalid(path, `${path} must be one of: ${node.enum.join(', ')}.`, node.enum);
    const ref = node.$ref?.slice('#/$defs/'.length);
    if (ref === 'timestamp') return this.rules.isTimestamp(value) ? undefined : invalid(path, `${path} ${TIMESTAMP_MESSAGE}`);
    if (ref && this.defs[ref]?.properties) {
      if (!isPlainObject(value)) return invalid(path, `${path} must be an object.`);
      return this.objectProblem(this.defs[ref], value, path, ref);
    }
    if (ref && !node.type) return this.propertyProblem(this.defs[ref], value, path, name);
    switch (node.type) {
      case 'boolean':
        return typeof value === 'boolean' ? undefined : invalid(path, `${path} must be true or false.`);
      case 'integer':
      case 'number':
        return this.numberProblem(node, value, path);
      case 'array':
        return this.arrayProblem(node, value, path, name);
      case 'object':
        if (ref === 'storableJson' && !this.rules.isStorableJson(value)) {
          return invalid(path, `${path} contains a key or a string with a character that cannot be stored (U+0000 or an unpaired UTF-16 surrogate).`);
        }
        return isPlainObject(value) ? undefined : invalid(path, `${path} must be an object.`);
      case 'string':
        return this.stringProblem(node, value, path);
      default:
        return undefined;
    }
  }

  private numberProblem(node: SchemaNode, value: unknown, path: string): ServiceError | undefined {
    if (node.type === 'integer' && !Number.isInteger(value)) return invalid(path, `${path} must be an integer.`);
    if (typeof value !== 'number' || !Number.isFinite(value)) return invalid(path, `${path} must be a finite number.`);
    if (node.minimum !== undefined && value < node.minimum) {
      return invalid(path, node.minimum === 0 ? `${path} must not be negative.` : `${path} must be at least ${node.minimum}.`);
    }
    if (node.maximum !== undefined && value > node.maximum) return invalid(path, `${path} must be at most ${node.maximum}.`);
    return undefined;
  }

  private arrayProblem(node: SchemaNode, value: unknown, path: string, name: string): ServiceError | undefined {
    const items = node.items ?? {};
    const ofText = items.type === 'string';
    if (!Array.isArray(value)) return invalid(path, `${path} must be an array${ofText ? ' of strings' : ''}.`);
    if (node.minItems && value.length < node.minItems) return invalid(path, `${path} must hold at least ${node.minItems} item(s).`);
    if (node.maxItems !== undefined && value.length > node.maxItems) return invalid(path, `${path} must hold at most ${node.maxItems} items.`);
    if (ofText) {
      if (!value.every((item) => typeof item === 'string')) return invalid(path, `${path} must contain only strings.`);
      const [min, max] = [items.minLength ?? 0, items.maxLength ?? Infinity];
      if (!value.every((item: string) => charCount(item) >= min && charCount(item) <= max)) {
        return invalid(path, `each item of ${name} must be ${min} to ${max} characters long.`);
      }
      if (!value.every((item: string) => this.rules.isStorableText(item))) return invalid(path, `each value in ${name} ${UNSTORABLE_MESSAGE}`);
      return undefined;
    }
    if (!value.every(isPlainObject)) return invalid(path, `each item of ${name} must be an object.`);
    const ref = items.$ref?.slice('#/$defs/'.length) ?? '';
    for (const [i, item] of value.entries()) {
      const problem = this.objectProblem(this.defs[ref] ?? items, item, `${path}[${i}]`, ref);
      if (problem) return problem;
    }
    return undefined;
  }

  /**
   * A string with a pattern of its own (a URL, a label, a phone number) is told that pattern's message whatever
   * it holds, its length after; free text is checked for type, forbidden characters (an event id's control
   * characters), length, blankness and storability in that order.
   */
  private stringProblem(node: SchemaNode, value: unknown, path: string): ServiceError | undefined {
    const storable = node.$ref === '#/$defs/storableText';
    const text = typeof value === 'string' ? value : undefined;
    const lengthProblem = () => {
      const [min, max] = [node.minLength, node.maxLength];
      if (text === undefined || (min === undefined && max === undefined)) return undefined;
      const count = charCount(text);
      return count < (min ?? 0) || count > (max ?? Infinity) ? invalid(path, `${path} must be ${min ?? 0} to ${max} characters long.`) : undefined;
    };
    if (node.pattern && node.pattern !== NON_BLANK) {
      if (storable && text !== undefined && !this.rules.isStorableText(text)) return invalid(path, `${path} ${UNSTORABLE_MESSAGE}`);
      if (text === undefined || !this.pattern(node.pattern).test(text)) return invalid(path, `${path} ${PATTERN_MESSAGES[node.pattern] ?? 'has an invalid format.'}`);
      return lengthProblem();
    }
    if (text === undefined) return invalid(path, `${path} must be a string.`);
    if (node.not?.pattern && this.pattern(node.not.pattern).test(text)) return invalid(path, `${path} ${CONTROL_MESSAGE}`);
    const length = lengthProblem();
    if (length) return length;
    if (node.pattern === NON_BLANK && !this.pattern(NON_BLANK).test(text)) return invalid(path, `${path} ${PATTERN_MESSAGES[NON_BLANK]}`);
    if (storable && !this.rules.isStorableText(text)) return invalid(path, `${path} ${UNSTORABLE_MESSAGE}`);
    return undefined;
  }

  private pattern(source: string): RegExp {
    let compiled = this.patterns.get(source);
    if (!compiled) {
      compiled = new RegExp(source, 'u');
      this.patterns.set(source, compiled);
    }
    return compiled;
  }
}

import { describe, expect, it } from '@jest/globals';
import {
  ArrayNotEmpty, ArrayUnique, IsArray, IsBoolean, IsDefined, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Matches, Max, MaxLength,
  Min, registerDecorator, ValidateIf, ValidateNested,
} from 'class-validator';
import { payloadSchema } from './payload-schema.js';

function IsEven(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({ name: 'isEven', target: target.constructor, propertyName: propertyName as string, validator: { validate: (v: unknown) => Number(v) % 2 === 0 } });
}

class Sample {
  @IsDefined() @IsString() @IsNotEmpty() @MaxLength(10) label: string;
  @IsOptional() @Matches(/^[a-z]+$/) slug?: string | null;
  @ValidateIf((o: Sample) => o.flag !== undefined) @IsBoolean() flag?: boolean;
  @IsDefined() @IsInt() @Min(0) @Max(9) count: number;
  @IsOptional() @IsArray() @ArrayNotEmpty() @ArrayUnique() @IsIn(['a', 'b'], { each: true }) letters?: string[];
  @IsOptional() @IsObject() @ValidateNested() child?: object | null;
}

class Unexplained {
  @IsEven() size: number;
}

class Flagged {
  @Matches(/^a/i) name: string;
}

describe('payloadSchema (the JSON Schema read from class-validator decorators)', () => {
  it('translates the constraints, required fields and nullability the way the classes validate', () => {
    expect(payloadSchema(Sample, { nested: { child: 'Child' }, annotations: { label: { description: 'A label.' } }, examples: [{ label: 'x', count: 1 }] })).toEqual({
      type: 'object',
      required: ['label', 'count'],
      properties: {
        label: { type: 'string', minLength: 1, maxLength: 10, description: 'A label.' },
        slug: { type: ['string', 'null'], pattern: '^[a-z]+$' },
        flag: { type: 'boolean' },
        count: { type: 'integer', minimum: 0, maximum: 9 },
        letters: { type: ['array', 'null'], minItems: 1, uniqueItems: true, items: { type: 'string', enum: ['a', 'b'] } },
        child: { oneOf: [{ $ref: '#/components/schemas/Child' }, { type: 'null' }] },
      },
      additionalProperties: false,
      examples: [{ label: 'x', count: 1 }],
    });
  });

  it('refuses to leave out a rule it cannot translate, unless the payload states it in words', () => {
    expect(() => payloadSchema(Unexplained)).toThrow('Unexplained.size: no JSON Schema for the constraint isEven');
    expect(() => payloadSchema(Unexplained, { statedInWords: ['isEven'] })).toThrow('describe the rule');
    expect(payloadSchema(Unexplained, { statedInWords: ['isEven'], annotations: { size: { type: 'integer', description: 'Even.' } } }).properties).toEqual({
      size: { type: 'integer', description: 'Even.' },
    });
    expect(() => payloadSchema(Flagged)).toThrow('flags');
  });

  it('needs the component of a nested payload, and refuses annotations that contradict a rule or name no property', () => {
    expect(() => payloadSchema(Sample)).toThrow('Sample.child is a nested payload');
    expect(() => payloadSchema(Sample, { nested: { child: 'Child' }, annotations: { label: { maxLength: 20 } } })).toThrow('maxLength is both 10 and 20');
    expect(() => payloadSchema(Sample, { nested: { child: 'Child' }, annotations: { colour: { description: 'x' } } })).toThrow('Sample has no property colour');
  });
});

import { describe, expect, it } from '@jest/globals';
import { Type, type TSchema } from '@sinclair/typebox';
import { ClosedObject, DateTime, Nullable, NullableString, StringEnum } from '@voice/contracts';
import { embeddedExample, viewComponent } from './view-component.js';

const Inner = ClosedObject({ at: DateTime() }, { description: 'Inner view.' });
const Outer = ClosedObject(
  {
    id: Type.String({ pattern: '^x', description: 'Id.' }),
    tags: Type.Array(Type.String(), { maxItems: 3 }),
    inner: Inner,
    maybe_inner: Nullable(Inner),
    note: NullableString(),
    kind: StringEnum(['a', 'b'] as const),
    extra: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { description: 'Outer view.' },
);
const named = new Map<TSchema, string>([[Inner, 'Inner'], [Outer, 'Outer']]);

describe('viewComponent', () => {
  const component = viewComponent(Outer, named, [{ id: 'x1', tags: [], inner: { at: '2025-01-01T00:00:00Z' }, maybe_inner: null, note: null, kind: 'a' }]);

  it('is the schema as plain JSON: no symbol keys, the optional key not required, the examples last', () => {
    expect(Object.getOwnPropertySymbols(component)).toEqual([]);
    expect(JSON.parse(JSON.stringify(component))).toEqual(component);
    expect(component.required).toEqual(['id', 'tags', 'inner', 'maybe_inner', 'note', 'kind']);
    expect(Object.keys(component).at(-1)).toBe('examples');
  });

  it('shows a named view embedded in another as a $ref, also inside nullable, and itself in full', () => {
    const properties = component.properties as Record<string, unknown>;
    expect(properties.inner).toEqual({ $ref: '#/components/schemas/Inner' });
    expect(properties.maybe_inner).toEqual({ oneOf: [{ $ref: '#/components/schemas/Inner' }, { type: 'null' }] });
    expect(viewComponent(Inner, named)).toEqual({ type: 'object', description: 'Inner view.', required: ['at'], properties: { at: { type: 'string', format: 'date-time' } }, additionalProperties: false });
  });

  it('writes the keywords in the document’s order: type first, then items, options, required, properties, additionalProperties', () => {
    const properties = component.properties as Record<string, Record<string, unknown>>;
    expect(Object.keys(component)).toEqual(['type', 'description', 'required', 'properties', 'additionalProperties', 'examples']);
    expect(JSON.stringify(properties.id)).toBe('{"type":"string","pattern":"^x","description":"Id."}');
    expect(JSON.stringify(properties.tags)).toBe('{"type":"array","items":{"type":"string"},"maxItems":3}');
    expect(JSON.stringify(properties.note)).toBe('{"type":["string","null"]}');
    expect(JSON.stringify(properties.kind)).toBe('{"type":"string","enum":["a","b"]}');
    expect(Object.keys(properties)).toEqual(['id', 'tags', 'inner', 'maybe_inner', 'note', 'kind', 'extra']);
  });

  it('shows the examples given to a view embedded in full, last, and not on that view as a component of its own', () => {
    const Item = ClosedObject({ at: DateTime() });
    const List = ClosedObject({ items: Type.Array(Item) });
    const example = { at: '2025-01-01T00:00:00Z' };
    const listed = viewComponent(List, new Map(), undefined, new Map([embeddedExample(Item, [example])]));
    const items = (listed.properties as Record<string, { items: Record<string, unknown> }>).items.items;
    expect(Object.keys(items)).toEqual(['type', 'required', 'properties', 'additionalProperties', 'examples']);
    expect(items.examples).toEqual([example]);
    expect(viewComponent(Item, new Map(), undefined, new Map([embeddedExample(Item, [example])]))).not.toHaveProperty('examples');
  });
});

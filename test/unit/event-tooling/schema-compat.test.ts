/** The schema compatibility rules of docs/events-versioning.md, each on a hand-made pair of schemas. */
import { describe, expect, it } from 'vitest';
import { compareSchemas, type JsonSchemaNode } from '../../../event-tooling/schema-compare';
import { checkAgainstRelease, sortReleases } from '../../../event-tooling/schema-compat';

const base: JsonSchemaNode = {
  $schema: 'http://json-schema.org/draft-04/schema#',
  title: 'Thing Happened',
  type: 'object',
  properties: {
    eventVersion: { type: 'number', enum: [1] },
    name: { type: 'string', minLength: 1, description: 'The name' },
    reason: { type: 'string', enum: ['a', 'b'] },
    note: { type: 'string' },
    previous: { type: ['string', 'null'] },
    data: {
      type: 'object',
      properties: { Id: { type: 'string', pattern: '^\\d+$' } },
      additionalProperties: {},
    },
    items: { type: 'array', items: { type: 'object', properties: { amount: { type: 'number' } } } },
    when: { anyOf: [{ type: 'string', pattern: '^\\d{4}$' }, { type: 'null' }] },
  },
  required: ['eventVersion', 'name', 'reason', 'data'],
};

/** A deep copy of `base` changed by `edit`. */
// biome-ignore lint/suspicious/noExplicitAny: hand-edited schemas of any shape
type Editable = Record<string, any>;
function changed(edit: (schema: Editable) => void): JsonSchemaNode {
  const copy = structuredClone(base) as Editable;
  edit(copy);
  return copy;
}

const summary = (released: JsonSchemaNode, current: JsonSchemaNode) =>
  compareSchemas(released, current).map((c) => `${c.kind} ${c.rule} ${c.path}`);

describe('compareSchemas', () => {
  it('finds nothing between identical schemas (and ignores $schema and examples)', () => {
    expect(summary(base, structuredClone(base))).toEqual([]);
    expect(
      summary(
        base,
        changed((s) => {
          s.$schema = 'x';
          s.properties.name.examples = ['x'];
        }),
      ),
    ).toEqual([]);
  });

  it('additive: a new optional property, at the top and nested', () => {
    expect(
      summary(
        base,
        changed((s) => {
          s.properties.currency = { type: 'string' };
        }),
      ),
    ).toEqual(['additive optional-property-added currency']);
    expect(
      summary(
        base,
        changed((s) => {
          s.properties.data.properties.Name = { type: ['string', 'null'] };
        }),
      ),
    ).toEqual(['additive optional-property-added data.Name']);
    expect(
      summary(
        base,
        changed((s) => {
          s.properties.items.items.properties.tax = { type: 'number' };
        }),
      ),
    ).toEqual(['additive optional-property-added items[].tax']);
  });

  it('annotation: a description changed (review the meaning)', () => {
    expect(
      summary(
        base,
        changed((s) => {
          s.properties.name.description = 'The display name';
        }),
      ),
    ).toEqual(['annotation description-changed name']);
  });

  it('breaking: a property removed (optional or required)', () => {
    expect(
      summary(
        base,
        changed((s) => {
          delete s.properties.note;
        }),
      ),
    ).toEqual(['breaking property-removed note']);
    expect(
      summary(
        base,
        changed((s) => {
          delete s.properties.name;
          s.required = s.required.filter((r: string) => r !== 'name');
        }),
      ),
    ).toEqual(['breaking property-removed name']);
  });

  it('breaking: a renamed property is a removal (and an addition)', () => {
    expect(
      summary(
        base,
        changed((s) => {
          s.properties.comment = s.properties.note;
          delete s.properties.note;
        }),
      ),
    ).toEqual(['breaking property-removed note', 'additive optional-property-added comment']);
  });

  it('breaking: a new required property (archived events lack it)', () => {
    expect(
      summary(
        base,
        changed((s) => {
          s.properties.currency = { type: 'string' };
          s.required.push('currency');
        }),
      ),
    ).toEqual(['breaking required-property-added currency']);
  });

  it('breaking: an optional property made required, a required one made optional', () => {
    expect(
      summary(
        base,
        changed((s) => {
          s.required.push('note');
        }),
      ),
    ).toEqual(['breaking became-required note']);
    expect(
      summary(
        base,
        changed((s) => {
          s.required = s.required.filter((r: string) => r !== 'name');
        }),
      ),
    ).toEqual(['breaking became-optional name']);
  });

  it('breaking: a type changed, widened or narrowed', () => {
    expect(
      summary(
        base,
        changed((s) => {
          s.properties.note.type = 'number';
        }),
      ),
    ).toEqual(['breaking type-changed note']);
    expect(
      summary(
        base,
        changed((s) => {
          s.properties.note.type = ['string', 'null'];
        }),
      ),
    ).toEqual(['breaking type-changed note']);
    expect(
      summary(
        base,
        changed((s) => {
          s.properties.previous.type = 'string';
        }),
      ),
    ).toEqual(['breaking type-changed previous']);
    expect(
      compareSchemas(
        base,
        changed((s) => {
          s.properties.note.type = ['string', 'null'];
        }),
      )[0]?.message,
    ).toContain('widened');
  });

  it('breaking: an enum value added (closed enums, exhaustive switches) or removed', () => {
    expect(
      summary(
        base,
        changed((s) => {
          s.properties.reason.enum.push('c');
        }),
      ),
    ).toEqual(['breaking enum-value-added reason']);
    expect(
      summary(
        base,
        changed((s) => {
          s.properties.reason.enum = ['a'];
        }),
      ),
    ).toEqual(['breaking enum-value-removed reason']);
    expect(
      summary(
        base,
        changed((s) => {
          delete s.properties.reason.enum;
        }),
      ),
    ).toEqual(['breaking enum-changed reason']);
  });

  it('breaking: a constraint tightened or loosened (pattern, format, lengths, bounds)', () => {
    expect(
      summary(
        base,
        changed((s) => {
          s.properties.name.minLength = 2;
        }),
      ),
    ).toEqual(['breaking constraint-changed name']);
    expect(
      summary(
        base,
        changed((s) => {
          delete s.properties.name.minLength;
        }),
      ),
    ).toEqual(['breaking constraint-changed name']);
    expect(
      summary(
        base,
        changed((s) => {
          s.properties.data.properties.Id.pattern = '^\\d{1,19}$';
        }),
      ),
    ).toEqual(['breaking constraint-changed data.Id']);
    expect(
      summary(
        base,
        changed((s) => {
          s.properties.note.format = 'date-time';
        }),
      ),
    ).toEqual(['breaking constraint-changed note']);
  });

  it('breaking: additionalProperties closed, and a property added where none was allowed', () => {
    expect(
      summary(
        base,
        changed((s) => {
          s.additionalProperties = false;
        }),
      ),
    ).toEqual(['breaking additional-properties-changed (detail)']);
    const closed = changed((s) => {
      s.additionalProperties = false;
    });
    expect(
      summary(
        closed,
        changed((s) => {
          s.additionalProperties = false;
          s.properties.x = { type: 'string' };
        }),
      ),
    ).toEqual(['breaking property-added-to-closed-object x']);
    // {} and absent are both open: no change.
    expect(
      summary(
        base,
        changed((s) => {
          delete s.properties.data.additionalProperties;
        }),
      ),
    ).toEqual([]);
  });

  it('breaking: variants of anyOf added or removed; a change inside a variant is compared there', () => {
    expect(
      summary(
        base,
        changed((s) => {
          s.properties.when.anyOf.push({ type: 'number' });
        }),
      ),
    ).toEqual(['breaking variants-changed when']);
    expect(
      summary(
        base,
        changed((s) => {
          s.properties.when.anyOf[0].pattern = '^\\d+$';
        }),
      ),
    ).toEqual(['breaking constraint-changed when.anyOf[0]']);
  });

  it('breaking: a keyword the checker does not know changed', () => {
    expect(
      summary(
        base,
        changed((s) => {
          s.properties.note.contentEncoding = 'base64';
        }),
      ),
    ).toEqual(['breaking keyword-changed note']);
  });
});

describe('checkAgainstRelease', () => {
  const bump = (schema: JsonSchemaNode) =>
    changed((s) => {
      Object.assign(s, structuredClone(schema));
      s.properties.eventVersion.enum = [2];
    });

  it('accepts additive changes without a bump, and new detail-types', () => {
    const current = {
      'Thing Happened': changed((s) => {
        s.properties.currency = { type: 'string' };
      }),
      'Other Thing': base,
    };
    const verdicts = checkAgainstRelease({ 'Thing Happened': base }, current);
    expect(verdicts.flatMap((v) => v.violations)).toEqual([]);
    expect(verdicts.map((v) => v.changes.map((c) => c.rule))).toEqual([
      ['optional-property-added'],
      ['detail-type-added'],
    ]);
  });

  it('refuses a breaking change without an eventVersion bump', () => {
    const current = {
      'Thing Happened': changed((s) => {
        delete s.properties.note;
      }),
    };
    const [verdict] = checkAgainstRelease({ 'Thing Happened': base }, current);
    expect(verdict?.violations.map((c) => c.rule)).toEqual(['property-removed']);
  });

  it('accepts a breaking change with an eventVersion bump', () => {
    const current = {
      'Thing Happened': bump(
        changed((s) => {
          delete s.properties.note;
        }),
      ),
    };
    const [verdict] = checkAgainstRelease({ 'Thing Happened': base }, current);
    expect(verdict?.releasedVersion).toBe(1);
    expect(verdict?.currentVersion).toBe(2);
    expect(verdict?.violations).toEqual([]);
    expect(verdict?.changes.map((c) => c.rule)).toEqual([
      'enum-value-added',
      'enum-value-removed',
      'property-removed',
    ]);
  });

  it('refuses a removed detail-type, even with a bump elsewhere', () => {
    const verdicts = checkAgainstRelease(
      { 'Thing Happened': base, Gone: base },
      { 'Thing Happened': bump(base) },
    );
    expect(verdicts.flatMap((v) => v.violations.map((c) => c.rule))).toEqual(['detail-type-removed']);
  });
});

describe('sortReleases', () => {
  it('orders v<semver> numerically and ignores other names', () => {
    expect(sortReleases(['v0.10.0', 'v0.2.0', 'README.md', 'v1.0.0', 'v0.2.1'])).toEqual([
      'v0.2.0',
      'v0.2.1',
      'v0.10.0',
      'v1.0.0',
    ]);
  });
});

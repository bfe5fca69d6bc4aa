/**
 * Classifies the differences between two JSON Schemas (draft-04, as `eventJsonSchema` exports
 * them) of one event's detail: the schema of the last release and the current one. The rules are
 * docs/events-versioning.md's, from the consumer's side; both directions count, because a consumer
 * reads new events with code written against the released schema, and replays archived events
 * (published under the released schema) through code and schemas of the current one.
 *
 * - additive: a new optional property (the released schemas leave additionalProperties open, so
 *   old consumers accept it), a new detail-type.
 * - breaking: a property removed; a new property that is required (archived events lack it); a
 *   property that became required or optional; a changed `type` (widened or narrowed); an enum value
 *   added or removed (the consumer module's enums are closed and exhaustive switches miss it); a
 *   changed constraint (pattern, format, bounds, lengths: narrowed refuses archived events, widened
 *   breaks what consumers were promised); `additionalProperties` closed; a detail-type removed; any
 *   other keyword changed (unknown to the checker, so assumed breaking).
 * - annotation: title or description changed (not breaking by itself; review that the meaning did
 *   not change, which no checker can see, and which is breaking).
 *
 * `checkAgainstRelease` turns the classification into a verdict: a breaking change is allowed only
 * when the detail's `eventVersion` is higher than the released one.
 */

export type JsonSchemaNode = Record<string, unknown>;
export type ChangeKind = 'additive' | 'breaking' | 'annotation';

export interface SchemaChange {
  readonly kind: ChangeKind;
  /** Rule name, e.g. `property-removed`, `enum-value-added`. */
  readonly rule: string;
  /** Path in the detail, e.g. `data.Contact.Email` (`[]` for array items, `anyOf[1]` for variants). */
  readonly path: string;
  readonly message: string;
}

const ANNOTATIONS = new Set(['title', 'description']);
/** Ignored: where the schema comes from, and example values. */
const IGNORED = new Set(['$schema', 'examples', 'default', 'id', '$id']);
const CONSTRAINTS = new Set([
  'pattern',
  'format',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
]);
const COMBINATORS = new Set(['anyOf', 'oneOf', 'allOf']);
const HANDLED = new Set(['type', 'enum', 'properties', 'required', 'additionalProperties', 'items', 'not']);

const isObject = (value: unknown): value is JsonSchemaNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const show = (value: unknown): string => (value === undefined ? '(none)' : JSON.stringify(value));
const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);
const same = (a: unknown, b: unknown): boolean => canonical(a) === canonical(b);

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function types(schema: JsonSchemaNode): string[] | undefined {
  const type = schema.type;
  if (type === undefined) return undefined;
  return (Array.isArray(type) ? type.map(String) : [String(type)]).sort();
}

/** Open: no additionalProperties, `true` or `{}`; closed: `false`; otherwise a schema. */
function additional(schema: JsonSchemaNode): 'open' | 'closed' | JsonSchemaNode {
  const value = schema.additionalProperties;
  if (value === undefined || value === true) return 'open';
  if (value === false) return 'closed';
  if (isObject(value) && Object.keys(value).length === 0) return 'open';
  return isObject(value) ? value : 'open';
}

/** The differences between a released schema and the current one, from the consumer's side. */
export function compareSchemas(released: JsonSchemaNode, current: JsonSchemaNode, path = ''): SchemaChange[] {
  const changes: SchemaChange[] = [];
  const at = path || '(detail)';
  const add = (kind: ChangeKind, rule: string, message: string, where = at) =>
    changes.push({ kind, rule, path: where, message });

  for (const key of ANNOTATIONS) {
    if (!same(released[key], current[key]))
      add('annotation', `${key}-changed`, `${key} changed: check the meaning`);
  }

  const oldTypes = types(released);
  const newTypes = types(current);
  if (!same(oldTypes, newTypes)) {
    const widened =
      oldTypes !== undefined && (newTypes === undefined || oldTypes.every((t) => newTypes.includes(t)));
    add(
      'breaking',
      'type-changed',
      `type ${show(oldTypes)} -> ${show(newTypes)} (${widened ? 'widened' : 'narrowed or changed'})`,
    );
  }

  if (!same(released.enum, current.enum)) {
    if (!Array.isArray(released.enum) || !Array.isArray(current.enum)) {
      add('breaking', 'enum-changed', `enum ${show(released.enum)} -> ${show(current.enum)}`);
    } else {
      const before = released.enum.map(canonical);
      const after = current.enum.map(canonical);
      const added = after.filter((v) => !before.includes(v));
      const removed = before.filter((v) => !after.includes(v));
      if (added.length > 0) add('breaking', 'enum-value-added', `enum value(s) added: ${added.join(', ')}`);
      if (removed.length > 0)
        add('breaking', 'enum-value-removed', `enum value(s) removed: ${removed.join(', ')}`);
    }
  }

  for (const key of CONSTRAINTS) {
    if (!same(released[key], current[key])) {
      add('breaking', 'constraint-changed', `${key} ${show(released[key])} -> ${show(current[key])}`);
    }
  }

  // Properties and required.
  const oldProps = isObject(released.properties) ? released.properties : {};
  const newProps = isObject(current.properties) ? current.properties : {};
  const oldRequired = new Set(Array.isArray(released.required) ? released.required.map(String) : []);
  const newRequired = new Set(Array.isArray(current.required) ? current.required.map(String) : []);
  const oldAdditional = additional(released);
  for (const [name, schema] of Object.entries(oldProps)) {
    const where = join(path, name);
    if (!(name in newProps)) {
      add('breaking', 'property-removed', `property '${name}' removed`, where);
      continue;
    }
    if (oldRequired.has(name) && !newRequired.has(name)) {
      add(
        'breaking',
        'became-optional',
        `'${name}' became optional: consumers rely on it being there`,
        where,
      );
    }
    if (!oldRequired.has(name) && newRequired.has(name)) {
      add(
        'breaking',
        'became-required',
        `'${name}' became required: archived events without it no longer validate`,
        where,
      );
    }
    if (isObject(schema) && isObject(newProps[name]))
      changes.push(...compareSchemas(schema, newProps[name], where));
  }
  for (const name of Object.keys(newProps)) {
    if (name in oldProps) continue;
    const where = join(path, name);
    if (newRequired.has(name)) {
      add(
        'breaking',
        'required-property-added',
        `new property '${name}' is required: archived events lack it; add it optional`,
        where,
      );
    } else if (oldAdditional === 'closed') {
      add(
        'breaking',
        'property-added-to-closed-object',
        `new property '${name}' where the released schema allowed none`,
        where,
      );
    } else {
      add('additive', 'optional-property-added', `new optional property '${name}'`, where);
    }
  }
  for (const name of newRequired) {
    if (!(name in newProps) && !(name in oldProps) && !oldRequired.has(name)) {
      add('breaking', 'became-required', `'${name}' became required`, join(path, name));
    }
  }

  const newAdditional = additional(current);
  if (
    oldAdditional === 'open' ||
    oldAdditional === 'closed' ||
    newAdditional === 'open' ||
    newAdditional === 'closed'
  ) {
    if (!same(oldAdditional, newAdditional)) {
      add(
        'breaking',
        'additional-properties-changed',
        `additionalProperties ${show(released.additionalProperties)} -> ${show(current.additionalProperties)}`,
      );
    }
  } else {
    changes.push(...compareSchemas(oldAdditional, newAdditional, join(path, '*')));
  }

  if (isObject(released.items) && isObject(current.items)) {
    changes.push(...compareSchemas(released.items, current.items, `${path}[]`));
  } else if (!same(released.items, current.items)) {
    add('breaking', 'items-changed', `items ${show(released.items)} -> ${show(current.items)}`);
  }

  for (const key of COMBINATORS) {
    const before = released[key];
    const after = current[key];
    if (same(before, after)) continue;
    if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
      before.forEach((variant, i) => {
        if (isObject(variant) && isObject(after[i]))
          changes.push(...compareSchemas(variant, after[i], `${join(path, key)}[${i}]`));
      });
    } else {
      add(
        'breaking',
        'variants-changed',
        `${key} ${Array.isArray(before) ? before.length : 0} -> ${Array.isArray(after) ? after.length : 0} variants`,
      );
    }
  }

  if (!same(released.not, current.not)) add('breaking', 'keyword-changed', 'not changed');

  for (const key of new Set([...Object.keys(released), ...Object.keys(current)])) {
    if (
      ANNOTATIONS.has(key) ||
      IGNORED.has(key) ||
      CONSTRAINTS.has(key) ||
      COMBINATORS.has(key) ||
      HANDLED.has(key)
    )
      continue;
    if (!same(released[key], current[key])) {
      add(
        'breaking',
        'keyword-changed',
        `${key} ${show(released[key])} -> ${show(current[key])} (not a keyword the checker knows: assumed breaking)`,
      );
    }
  }
  return changes;
}

/** `properties.eventVersion.enum[0]` of a detail schema (the literal of its layout version). */
export function schemaEventVersion(schema: JsonSchemaNode): number | undefined {
  const property = isObject(schema.properties) ? schema.properties.eventVersion : undefined;
  const value = isObject(property) && Array.isArray(property.enum) ? property.enum[0] : undefined;
  return typeof value === 'number' ? value : undefined;
}

export interface DetailTypeVerdict {
  readonly detailType: string;
  readonly releasedVersion: number | undefined;
  readonly currentVersion: number | undefined;
  readonly changes: readonly SchemaChange[];
  /** Breaking changes without a higher eventVersion: what the versioning test refuses. */
  readonly violations: readonly SchemaChange[];
}

/**
 * Compares every released detail schema with the current one. A detail-type removed is breaking
 * (no eventVersion bump can excuse it: keep publishing it until its retirement date); a new one is
 * additive. A breaking change to a detail is a violation unless its eventVersion went up.
 */
export function checkAgainstRelease(
  released: Readonly<Record<string, JsonSchemaNode>>,
  current: Readonly<Record<string, JsonSchemaNode>>,
): DetailTypeVerdict[] {
  const verdicts: DetailTypeVerdict[] = [];
  for (const [detailType, schema] of Object.entries(released)) {
    const now = current[detailType];
    if (!now) {
      const removed: SchemaChange = {
        kind: 'breaking',
        rule: 'detail-type-removed',
        path: '(detail-type)',
        message: `detail-type '${detailType}' is no longer published`,
      };
      verdicts.push({
        detailType,
        releasedVersion: schemaEventVersion(schema),
        currentVersion: undefined,
        changes: [removed],
        violations: [removed],
      });
      continue;
    }
    const changes = compareSchemas(schema, now);
    const releasedVersion = schemaEventVersion(schema);
    const currentVersion = schemaEventVersion(now);
    const bumped =
      releasedVersion !== undefined && currentVersion !== undefined && currentVersion > releasedVersion;
    const violations = bumped ? [] : changes.filter((c) => c.kind === 'breaking');
    verdicts.push({ detailType, releasedVersion, currentVersion, changes, violations });
  }
  for (const detailType of Object.keys(current)) {
    if (detailType in released) continue;
    verdicts.push({
      detailType,
      releasedVersion: undefined,
      currentVersion: schemaEventVersion(current[detailType] ?? {}),
      changes: [
        {
          kind: 'additive',
          rule: 'detail-type-added',
          path: '(detail-type)',
          message: `new detail-type '${detailType}'`,
        },
      ],
      violations: [],
    });
  }
  return verdicts;
}

/** Release directory names `v<semver>` sorted oldest first. */
export function sortReleases(names: readonly string[]): string[] {
  const parse = (name: string) =>
    name
      .replace(/^v/, '')
      .split(/[.-]/)
      .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  return names
    .filter((name) => /^v\d+\.\d+\.\d+$/.test(name))
    .sort((a, b) => {
      const pa = parse(a);
      const pb = parse(b);
      for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
        const x = pa[i] ?? 0;
        const y = pb[i] ?? 0;
        if (x !== y) return x < y ? -1 : 1;
      }
      return 0;
    });
}

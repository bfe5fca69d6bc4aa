/**
 * The comparison behind ./schema-compat.ts: `compareSchemas` walks a released and a current JSON
 * Schema (draft-04) of one event's detail and lists every difference with its kind (additive,
 * breaking, annotation) and rule, one small check per group of keywords, recursing into
 * properties, items, additionalProperties and the anyOf/oneOf/allOf variants.
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

export const isObject = (value: unknown): value is JsonSchemaNode =>
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

/** One level of the comparison: the two schemas, where they are, and the changes found so far. */
interface Level {
  readonly released: JsonSchemaNode;
  readonly current: JsonSchemaNode;
  readonly path: string;
  readonly changes: SchemaChange[];
  add(kind: ChangeKind, rule: string, message: string, where?: string): void;
}

/** The differences between a released schema and the current one, from the consumer's side. */
export function compareSchemas(released: JsonSchemaNode, current: JsonSchemaNode, path = ''): SchemaChange[] {
  const changes: SchemaChange[] = [];
  const at = path || '(detail)';
  const level: Level = {
    released,
    current,
    path,
    changes,
    add: (kind, rule, message, where = at) => changes.push({ kind, rule, path: where, message }),
  };
  compareAnnotations(level);
  compareTypes(level);
  compareEnums(level);
  compareConstraints(level);
  compareProperties(level);
  compareAdditionalProperties(level);
  compareItems(level);
  compareCombinators(level);
  compareOtherKeywords(level);
  return changes;
}

function compareAnnotations({ released, current, add }: Level): void {
  for (const key of ANNOTATIONS) {
    if (!same(released[key], current[key]))
      add('annotation', `${key}-changed`, `${key} changed: check the meaning`);
  }
}

function compareTypes({ released, current, add }: Level): void {
  const oldTypes = types(released);
  const newTypes = types(current);
  if (same(oldTypes, newTypes)) return;
  const widened =
    oldTypes !== undefined && (newTypes === undefined || oldTypes.every((t) => newTypes.includes(t)));
  add(
    'breaking',
    'type-changed',
    `type ${show(oldTypes)} -> ${show(newTypes)} (${widened ? 'widened' : 'narrowed or changed'})`,
  );
}

function compareEnums({ released, current, add }: Level): void {
  if (same(released.enum, current.enum)) return;
  if (!Array.isArray(released.enum) || !Array.isArray(current.enum)) {
    add('breaking', 'enum-changed', `enum ${show(released.enum)} -> ${show(current.enum)}`);
    return;
  }
  const before = released.enum.map(canonical);
  const after = current.enum.map(canonical);
  const added = after.filter((v) => !before.includes(v));
  const removed = before.filter((v) => !after.includes(v));
  if (added.length > 0) add('breaking', 'enum-value-added', `enum value(s) added: ${added.join(', ')}`);
  if (removed.length > 0)
    add('breaking', 'enum-value-removed', `enum value(s) removed: ${removed.join(', ')}`);
}

function compareConstraints({ released, current, add }: Level): void {
  for (const key of CONSTRAINTS) {
    if (!same(released[key], current[key])) {
      add('breaking', 'constraint-changed', `${key} ${show(released[key])} -> ${show(current[key])}`);
    }
  }
}

const requiredOf = (schema: JsonSchemaNode): Set<string> =>
  new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
const propertiesOf = (schema: JsonSchemaNode): JsonSchemaNode =>
  isObject(schema.properties) ? schema.properties : {};

function compareProperties(level: Level): void {
  compareReleasedProperties(level);
  compareAddedProperties(level);
  const { released, current, path, add } = level;
  const [oldProps, newProps] = [propertiesOf(released), propertiesOf(current)];
  const oldRequired = requiredOf(released);
  for (const name of requiredOf(current)) {
    if (!(name in newProps) && !(name in oldProps) && !oldRequired.has(name)) {
      add('breaking', 'became-required', `'${name}' became required`, join(path, name));
    }
  }
}

/** Every released property: removed, its presence changed, or compared in depth. */
function compareReleasedProperties({ released, current, path, changes, add }: Level): void {
  const newProps = propertiesOf(current);
  const oldRequired = requiredOf(released);
  const newRequired = requiredOf(current);
  for (const [name, schema] of Object.entries(propertiesOf(released))) {
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
}

/** Every new property: additive when optional in an open object, breaking otherwise. */
function compareAddedProperties({ released, current, path, add }: Level): void {
  const oldProps = propertiesOf(released);
  const newRequired = requiredOf(current);
  for (const name of Object.keys(propertiesOf(current))) {
    if (name in oldProps) continue;
    const where = join(path, name);
    if (newRequired.has(name)) {
      add(
        'breaking',
        'required-property-added',
        `new property '${name}' is required: archived events lack it; add it optional`,
        where,
      );
    } else if (additional(released) === 'closed') {
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
}

function compareAdditionalProperties({ released, current, path, changes, add }: Level): void {
  const oldAdditional = additional(released);
  const newAdditional = additional(current);
  if (typeof oldAdditional === 'object' && typeof newAdditional === 'object') {
    changes.push(...compareSchemas(oldAdditional, newAdditional, join(path, '*')));
  } else if (!same(oldAdditional, newAdditional)) {
    add(
      'breaking',
      'additional-properties-changed',
      `additionalProperties ${show(released.additionalProperties)} -> ${show(current.additionalProperties)}`,
    );
  }
}

function compareItems({ released, current, path, changes, add }: Level): void {
  if (isObject(released.items) && isObject(current.items)) {
    changes.push(...compareSchemas(released.items, current.items, `${path}[]`));
  } else if (!same(released.items, current.items)) {
    add('breaking', 'items-changed', `items ${show(released.items)} -> ${show(current.items)}`);
  }
}

function compareCombinators({ released, current, path, changes, add }: Level): void {
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
}

/** `not`, and any keyword the checker does not know: assumed breaking when changed. */
function compareOtherKeywords({ released, current, add }: Level): void {
  if (!same(released.not, current.not)) add('breaking', 'keyword-changed', 'not changed');
  const known = (key: string) =>
    ANNOTATIONS.has(key) ||
    IGNORED.has(key) ||
    CONSTRAINTS.has(key) ||
    COMBINATORS.has(key) ||
    HANDLED.has(key);
  for (const key of new Set([...Object.keys(released), ...Object.keys(current)])) {
    if (known(key) || same(released[key], current[key])) continue;
    add(
      'breaking',
      'keyword-changed',
      `${key} ${show(released[key])} -> ${show(current[key])} (not a keyword the checker knows: assumed breaking)`,
    );
  }
}

/**
 * A deliberately small JSON Schema draft-04 checker for tests: the keywords the catalog's schemas
 * use (type, enum, pattern, format date-time, minimum/maximum, properties, required,
 * additionalProperties, items, anyOf). It proves that the exported schemas accept what the zod
 * schemas accept, without a JSON Schema library in the dependencies.
 */
type Schema = Record<string, unknown>;

const DRAFT_04_TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
const KNOWN_KEYWORDS = new Set([
  '$schema',
  'title',
  'description',
  'type',
  'enum',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
]);

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Returns the problems found; an empty list means valid. */
export function checkAgainstSchema(schema: Schema, value: unknown, path = '$'): string[] {
  const problems: string[] = [];
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    const actual = typeOf(value);
    const ok = types.some((t) => t === actual || (t === 'number' && actual === 'integer'));
    if (!ok) return [`${path}: expected ${types.join('|')}, got ${actual}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => e === value))
    problems.push(`${path}: not in enum`);
  if (typeof value === 'string') {
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(value))
      problems.push(`${path}: does not match ${schema.pattern}`);
    if (typeof schema.minLength === 'number' && value.length < schema.minLength)
      problems.push(`${path}: too short`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) problems.push(`${path}: below minimum`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) problems.push(`${path}: above maximum`);
  }
  if (Array.isArray(schema.anyOf)) {
    const anyOk = (schema.anyOf as Schema[]).some((s) => checkAgainstSchema(s, value, path).length === 0);
    if (!anyOk) problems.push(`${path}: matches no anyOf branch`);
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const key of (schema.required ?? []) as string[]) {
      if (!(key in object)) problems.push(`${path}.${key}: required`);
    }
    for (const [key, child] of Object.entries(object)) {
      const childSchema = properties[key];
      if (childSchema) problems.push(...checkAgainstSchema(childSchema, child, `${path}.${key}`));
      else if (schema.additionalProperties === false) problems.push(`${path}.${key}: not allowed`);
    }
  }
  if (Array.isArray(value) && schema.items && typeof schema.items === 'object') {
    for (const [i, item] of value.entries()) {
      problems.push(...checkAgainstSchema(schema.items as Schema, item, `${path}[${i}]`));
    }
  }
  return problems;
}

/** Keywords or types that draft-04 does not have (const, exclusiveMinimum as a number, $defs...). */
export function draft04Violations(schema: unknown, path = '$'): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const s = schema as Schema;
  const problems: string[] = [];
  for (const key of Object.keys(s)) if (!KNOWN_KEYWORDS.has(key)) problems.push(`${path}: keyword ${key}`);
  const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
  for (const t of types) if (!DRAFT_04_TYPES.has(String(t))) problems.push(`${path}: type ${String(t)}`);
  for (const [key, child] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) {
    problems.push(...draft04Violations(child, `${path}.${key}`));
  }
  if (typeof s.additionalProperties === 'object')
    problems.push(...draft04Violations(s.additionalProperties, path));
  if (s.items) problems.push(...draft04Violations(s.items, `${path}[]`));
  for (const [i, branch] of ((s.anyOf ?? []) as unknown[]).entries()) {
    problems.push(...draft04Violations(branch, `${path}|${i}`));
  }
  return problems;
}

/**
 * The fields tables of docs/events.md (./catalog-markdown.ts), read from an event's JSON Schema so
 * that the page cannot disagree with the schema: one row per field (and per field of a nested
 * object other than `data`), with a short readable type.
 */
import type { JsonSchema } from '../lambdas/events/catalog';

export const FIELD_HEADER = ['field', 'type', 'required', 'description'];

export function fieldRows(schema: JsonSchema, names: readonly string[]): string[][] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const rows: string[][] = [];
  for (const name of names) {
    const property = properties[name];
    if (!property) continue;
    rows.push(row(name, property, required.has(name)));
    const nested = objectSchema(property);
    if (nested && name !== 'data') {
      const nestedRequired = new Set((nested.required ?? []) as string[]);
      for (const [child, childSchema] of Object.entries(
        (nested.properties ?? {}) as Record<string, JsonSchema>,
      )) {
        rows.push(row(`${name}.${child}`, childSchema, nestedRequired.has(child)));
      }
    }
  }
  return rows;
}

function row(name: string, schema: JsonSchema, required: boolean): string[] {
  const description = typeof schema.description === 'string' ? schema.description : '';
  return [`\`${name}\``, typeName(schema), required ? 'yes' : 'no', description];
}

function objectSchema(schema: JsonSchema): JsonSchema | undefined {
  if (schema.type === 'object' && schema.properties) return schema;
  return undefined;
}

/** A short readable type: `string`, `"a" | "b"`, `integer >= 1`, `string (UTC date-time)`, `object`. */
function typeName(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as JsonSchema[]).map(typeName).join(' | ');
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [String(schema.type ?? 'any')];
  let name = types.join(' | ');
  if (schema.format === 'date-time') name += ' (UTC date-time)';
  else if (typeof schema.pattern === 'string' && schema.pattern.startsWith('^\\d{4}-\\d{2}-\\d{2}T'))
    name += ' (local date-time)';
  else if (schema.pattern === '^[0-9a-f]{32}$') name += ' (32 hex)';
  else if (schema.pattern === '^-?\\d{1,19}$') name += ' (int64)';
  else if (typeof schema.pattern === 'string') name += ` (${schema.pattern})`;
  // zod bounds every integer to the safe range; only bounds of our own are worth showing.
  const shown = (bound: unknown): bound is number =>
    typeof bound === 'number' && Math.abs(bound) !== Number.MAX_SAFE_INTEGER;
  const bounds = [
    shown(schema.minimum) ? `>= ${schema.minimum}` : '',
    shown(schema.maximum) ? `<= ${schema.maximum}` : '',
  ].filter(Boolean);
  if (bounds.length > 0) name += ` ${bounds.join(', ')}`;
  return name;
}

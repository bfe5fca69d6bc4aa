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
 * when the detail's `eventVersion` is higher than the released one. The comparison itself is in
 * ./schema-compare.ts.
 */

import { compareSchemas, isObject, type JsonSchemaNode, type SchemaChange } from './schema-compare';

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

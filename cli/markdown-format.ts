/**
 * Markdown for the generated pages (docs/events.md, the chaos report): tables laid out as Biome
 * formats them, compact JSON, headings' anchors.
 */

/**
 * A Markdown table laid out the way Biome formats Markdown (columns padded to their widest cell,
 * at least 3), so `biome check --write .` leaves the generated page unchanged.
 */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const escaped = [header, ...rows].map((cells) => cells.map(escapeCell));
  const widths = header.map((_, i) => Math.max(3, ...escaped.map((cells) => (cells[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `| ${widths.map((width, i) => (cells[i] ?? '').padEnd(width)).join(' | ')} |`;
  const [head, ...body] = escaped;
  return [line(head!), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)];
}

/** Pretty JSON with arrays of scalars kept on one line (rule patterns read better that way). */
export function compactJson(value: unknown, indent = ''): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v !== 'object' || v === null))
      return JSON.stringify(value).replace(/,/g, ', ');
    return `[\n${value.map((v) => inner + compactJson(v, inner)).join(',\n')}\n${indent}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${compactJson(v, inner)}`).join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

export function firstSentence(text: string): string {
  const end = text.search(/\.\s/);
  return end === -1 ? text : text.slice(0, end + 1);
}

export function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export const codeList = (items: readonly string[]) => items.map((i) => `\`${i}\``).join(', ');

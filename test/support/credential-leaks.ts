/**
 * The oracle of the credential tests (issue 32): does a credential appear anywhere in what the
 * bridge wrote, in any form a reader could turn back into it?
 *
 * A credential is looked for in its own forms (as is, JSON-escaped, URL-encoded, base64 and
 * base64url with and without padding) in every string of a value (keys, values, numbers as their
 * text), and in what each string decodes to, up to four levels deep: JSON escapes (`\u006b`,
 * `\/`, `\"`), percent-encoding (`%6B`) and HTML character references (`&#107;`, `&#x6b;`). So a
 * stored raw JSON text that still holds `\u006b\u0033...` is a leak, as is a log line quoting it.
 *
 * Written apart from the code under test (lambdas/common/redact.ts): a decoder shared with it would
 * share its blind spots.
 */
import { gunzipSync } from 'node:zlib';

/** One credential under its name (for the failure message; the value is never printed). */
export interface NamedCredential {
  readonly name: string;
  readonly value: string;
}

/** The forms of a credential a reader can turn back into it (4 characters and longer). */
export function credentialForms(credentials: readonly NamedCredential[]): NamedCredential[] {
  const out = new Map<string, string>();
  for (const { name, value } of credentials) {
    if (value.length < 4) continue;
    const utf8 = Buffer.from(value, 'utf8');
    const forms = [
      value,
      JSON.stringify(value).slice(1, -1),
      safeUriEncode(value),
      utf8.toString('base64'),
      utf8.toString('base64').replace(/=+$/, ''),
      utf8.toString('base64url'),
    ];
    for (const form of forms) if (form && form.length >= 4 && !out.has(form)) out.set(form, name);
  }
  return [...out].map(([value, name]) => ({ name, value }));
}

function safeUriEncode(text: string): string | undefined {
  try {
    return encodeURIComponent(text);
  } catch {
    return undefined;
  }
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};
const NAMED_REFERENCES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** One level of decoding: JSON escapes, then percent-encoding, then HTML character references. */
export function decodeOnce(text: string): string {
  let out = text;
  if (out.includes('\\')) {
    out = out.replace(/\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g, (_m, hex?: string, c?: string) =>
      hex !== undefined ? String.fromCharCode(Number.parseInt(hex, 16)) : (SIMPLE_ESCAPES[c!] ?? ''),
    );
  }
  if (out.includes('%')) {
    out = out.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) =>
      Buffer.from(
        run
          .split('%')
          .slice(1)
          .map((h) => Number.parseInt(h, 16)),
      ).toString('utf8'),
    );
  }
  if (out.includes('&')) {
    out = out.replace(
      /&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|(amp|lt|gt|quot|apos));?/g,
      (m, hex, dec, name) => {
        if (name) return NAMED_REFERENCES[name as string] ?? m;
        const code = hex ? Number.parseInt(hex as string, 16) : Number(dec);
        return code <= 0x10ffff ? String.fromCodePoint(code) : m;
      },
    );
  }
  return out;
}

/** The text and what it decodes to, level by level (at most 4 levels). */
export function decodedForms(text: string): string[] {
  const forms = [text];
  let current = text;
  for (let i = 0; i < 4; i++) {
    const next = decodeOnce(current);
    if (next === current) break;
    forms.push(next);
    current = next;
  }
  return forms;
}

/**
 * Where a credential appears in `value` (any JSON-like value: strings, numbers, arrays, objects,
 * Buffers of gzip or UTF-8 text): `where: credential name` for each hit, never the value itself.
 */
export function findCredentials(where: string, value: unknown, forms: readonly NamedCredential[]): string[] {
  const hits = new Set<string>();
  const check = (text: string) => {
    for (const decoded of decodedForms(text))
      for (const form of forms) if (decoded.includes(form.value)) hits.add(`${where}: ${form.name}`);
  };
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') check(node);
    else if (typeof node === 'number' || typeof node === 'bigint') check(String(node));
    else if (node instanceof Uint8Array) check(bytesText(node));
    else if (Array.isArray(node)) stack.push(...node);
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        check(k);
        stack.push(v);
      }
    }
  }
  return [...hits];
}

/** The text of stored bytes: gunzipped when they are gzip, else read as UTF-8. */
function bytesText(bytes: Uint8Array): string {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      return gunzipSync(bytes).toString('utf8');
    } catch {
      // not whole: read as it is
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

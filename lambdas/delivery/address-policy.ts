/**
 * Where a webhook may go (Standard Webhooks, "Server side request forgery"; OWASP API7:2023): the
 * URL's scheme and host, and every address its name resolves to, checked on add and again at every
 * connect (./http-delivery.ts pins the socket to the address checked here, so a DNS answer that
 * changes between the check and the connect, DNS rebinding, reaches nothing unchecked).
 *
 * Refused always: loopback, private (RFC 1918, unique local fc00::/7), link-local (169.254/16 with
 * the cloud metadata address 169.254.169.254, fe80::/10), carrier-grade NAT, "this network",
 * documentation, benchmarking, multicast and reserved ranges, and IPv6 forms that carry an IPv4
 * address (mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16) judged by the IPv4 address inside,
 * Teredo refused whole. Outside the local stage the URL must be https, carry no
 * credentials (user:pass@) and name no fragment.
 *
 * `local` (the demo, `npm start -- --webhook http://localhost:PORT/`) allows http and loopback and
 * private addresses, never link-local (the metadata service) or the rest.
 */
import { isIP } from 'node:net';

export type AddressPolicy = 'public' | 'local';

export class WebhookUrlError extends Error {
  override readonly name = 'WebhookUrlError';
}

type Range = readonly [bytes: readonly number[], prefix: number, why: string];

const V4_DENIED: readonly Range[] = [
  [[0, 0, 0, 0], 8, 'this network'],
  [[10, 0, 0, 0], 8, 'private'],
  [[100, 64, 0, 0], 10, 'carrier-grade NAT'],
  [[127, 0, 0, 0], 8, 'loopback'],
  [[169, 254, 0, 0], 16, 'link-local (cloud metadata)'],
  [[172, 16, 0, 0], 12, 'private'],
  [[192, 0, 0, 0], 24, 'IETF protocol assignments'],
  [[192, 0, 2, 0], 24, 'documentation'],
  [[192, 88, 99, 0], 24, '6to4 relay'],
  [[192, 168, 0, 0], 16, 'private'],
  [[198, 18, 0, 0], 15, 'benchmarking'],
  [[198, 51, 100, 0], 24, 'documentation'],
  [[203, 0, 113, 0], 24, 'documentation'],
  [[224, 0, 0, 0], 4, 'multicast'],
  [[240, 0, 0, 0], 4, 'reserved'],
];

const V6_DENIED: readonly Range[] = [
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 128, 'unspecified'],
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128, 'loopback'],
  [[0, 0x64, 0xff, 0x9b, 0, 1], 48, 'NAT64 (local use)'],
  [[1, 0], 64, 'discard'],
  [[0x20, 0x01, 0, 0], 23, 'IETF protocol assignments (Teredo)'],
  [[0x20, 0x01, 0x0d, 0xb8], 32, 'documentation'],
  [[0xfc], 7, 'unique local (private)'],
  [[0xfe, 0x80], 10, 'link-local'],
  [[0xfe, 0xc0], 10, 'site-local'],
  [[0xff], 8, 'multicast'],
];

/** Allowed by the local policy: loopback and private networks (never metadata or the rest). */
const LOCAL_ALLOWED = new Set(['loopback', 'private', 'unique local (private)']);

function inRange(bytes: readonly number[], [base, prefix]: Range): boolean {
  for (let bit = 0; bit < prefix; bit += 8) {
    const mask = prefix - bit >= 8 ? 0xff : (0xff << (8 - (prefix - bit))) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((base[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

function v4Bytes(text: string): number[] {
  return text.split('.').map(Number);
}

/** The 16 bytes of an IPv6 address (text as `isIP` accepts it, zone id removed). */
function v6Bytes(text: string): number[] {
  let head = text.split('%')[0] ?? '';
  let tail4: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(head);
  if (dotted?.[1]) {
    tail4 = v4Bytes(dotted[1]);
    head = `${head.slice(0, -dotted[1].length)}0:0`;
  }
  const [left = '', right] = head.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const l = groups(left);
  const r = right === undefined ? [] : groups(right);
  const words = [...l, ...new Array(8 - l.length - r.length).fill(0), ...r];
  const bytes = words.flatMap((w) => [(w >> 8) & 0xff, w & 0xff]);
  if (tail4.length === 4) bytes.splice(12, 4, ...tail4);
  return bytes;
}

/** The IPv4 address an IPv6 one carries (mapped, NAT64, 6to4, Teredo), if any. */
function embeddedV4(b: readonly number[]): number[] | undefined {
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return b.slice(12, 16); // ::ffff:a.b.c.d
  if (zero(0, 12)) return b.slice(12, 16); // ::a.b.c.d (deprecated compatible form)
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return b.slice(12, 16);
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6); // 6to4
  return undefined; // Teredo (2001::/32) is refused whole, inside 2001::/23
}

/**
 * Why `address` (an IP literal) is refused under `policy`, or undefined when it may be reached.
 * Anything that is not an IP address is refused.
 */
export function addressProblem(address: string, policy: AddressPolicy): string | undefined {
  const family = isIP(address.split('%')[0] ?? '');
  if (family === 0) return `${address} is not an IP address`;
  let bytes = family === 4 ? v4Bytes(address) : v6Bytes(address);
  let ranges = family === 4 ? V4_DENIED : V6_DENIED;
  if (family === 6) {
    const v4 = embeddedV4(bytes);
    if (v4) {
      bytes = v4;
      ranges = V4_DENIED;
    }
  }
  const hit = ranges.find((range) => inRange(bytes, range));
  if (!hit) return undefined;
  if (policy === 'local' && LOCAL_ALLOWED.has(hit[2])) return undefined;
  return `${address} is a ${hit[2]} address`;
}

export interface CheckedUrl {
  readonly url: URL;
  /** The host without IPv6 brackets. */
  readonly hostname: string;
  /** The hostname when it is an IP literal (no DNS), else undefined. */
  readonly literal?: string;
  readonly port: number;
}

const MAX_URL_LENGTH = 2048;

/**
 * The URL parsed and checked (scheme, credentials, fragment, port, an IP literal's range), or a
 * WebhookUrlError saying what is wrong. Names are resolved and checked at connect time.
 */
export function checkWebhookUrl(text: string, policy: AddressPolicy): CheckedUrl {
  if (text.length > MAX_URL_LENGTH)
    throw new WebhookUrlError(`a webhook URL has at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookUrlError('not a URL (give an absolute https:// URL)');
  }
  const httpAllowed = policy === 'local';
  if (url.protocol !== 'https:' && !(httpAllowed && url.protocol === 'http:')) {
    throw new WebhookUrlError(
      policy === 'local'
        ? 'a webhook URL is http:// or https://'
        : 'a webhook URL must be https:// outside the local stage',
    );
  }
  if (url.username || url.password) throw new WebhookUrlError('a webhook URL carries no user:password@');
  if (url.hash) throw new WebhookUrlError('a webhook URL has no #fragment');
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (!hostname) throw new WebhookUrlError('a webhook URL names a host');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const literal = isIP(hostname) ? hostname : undefined;
  if (literal) {
    const problem = addressProblem(literal, policy);
    if (problem) throw new WebhookUrlError(`address not allowed: ${problem}`);
  } else if (policy === 'public' && (hostname === 'localhost' || hostname.endsWith('.localhost'))) {
    throw new WebhookUrlError('address not allowed: localhost is loopback');
  }
  return { url, hostname, ...(literal ? { literal } : {}), port };
}

/** The host of a URL for logs and events (never its path or query: they may hold a token). */
export function hostOf(text: string): string {
  try {
    return new URL(text).host || 'invalid-url';
  } catch {
    return 'invalid-url';
  }
}

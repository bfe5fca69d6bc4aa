/**
 * The origin the sandbox writes into a page's links (`href`, `next`): the host the client called,
 * when its Host header is a plain host[:port].
 */

/** A Host header we echo into links: a DNS name, IPv4 or bracketed IPv6, and an optional port. */
const SAFE_HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The origin of the links of a page (`href`, `next`): the host and port the client called
 * (`localhost:4010` as well as `127.0.0.1:4010`), so that a client that keeps `next` on its own
 * origin can follow it. Only the host:port comes from the request; the scheme is the server's, and
 * a Host header that is not a plain host[:port] (a path, userinfo, spaces, a bad port) is ignored.
 */
export function linkOrigin(serverOrigin: string, hostHeader: string | undefined): string {
  if (hostHeader === undefined || hostHeader.length > 260 || !SAFE_HOST.test(hostHeader)) return serverOrigin;
  const { protocol } = new URL(serverOrigin);
  try {
    const url = new URL(`${protocol}//${hostHeader}`);
    return url.origin === 'null' ? serverOrigin : url.origin;
  } catch {
    return serverOrigin; // e.g. a port above 65535
  }
}

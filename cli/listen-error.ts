/**
 * A server that could not listen, said plainly: which server, which port, what to do. Used by the
 * commands that start local servers (`start`, `local-aws`), which then release what they started
 * and exit non-zero instead of waiting on servers that did start.
 */
export class ListenError extends Error {
  override readonly name = 'ListenError';
}

/** `what` names the server ("the sandbox", "the DynamoDB endpoint"); `flag` the flag that sets its port. */
export function listenError(err: unknown, what: string, port: number, flag: string): ListenError {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return new ListenError(
      `${what} cannot listen on port ${port}: the port is already in use. Stop what listens there or choose another ${flag} (0 picks a free port).`,
      { cause: err },
    );
  }
  if (code === 'EACCES') {
    return new ListenError(
      `${what} cannot listen on port ${port}: permission denied (ports below 1024 need privileges). Choose another ${flag}.`,
      { cause: err },
    );
  }
  const reason = err instanceof Error ? err.message : String(err);
  return new ListenError(`${what} cannot listen on port ${port}: ${reason}`, { cause: err });
}

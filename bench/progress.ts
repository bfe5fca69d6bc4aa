/** The bench's progress lines on stdout, each stamped with the seconds since the bench started. */

const started = Date.now();

/** Milliseconds since the bench started. */
export function elapsedMs(): number {
  return Date.now() - started;
}

export function say(text: string): void {
  process.stdout.write(`[${(elapsedMs() / 1000).toFixed(0).padStart(4)} s] ${text}\n`);
}

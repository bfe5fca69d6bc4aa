/** The EMF documents (CloudWatch embedded metric format) among captured stdout writes. */
export function emfDocuments<T = Record<string, unknown>>(writes: readonly string[]): T[] {
  return writes
    .flatMap((w) => w.split('\n'))
    .filter((l) => l.includes('"_aws"'))
    .map((l) => JSON.parse(l) as T);
}

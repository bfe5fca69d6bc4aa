/**
 * The stored base cannot be read (a document of a later release after a rollback, a damaged item):
 * the evaluation starts over silently, as a first one, and its base replaces this one (`versions`
 * for the puts). What the unreadable base held, pending events included, is lost: said in a WARN.
 */
export class UnreadableLifecycleBaseError extends Error {
  override readonly name = 'UnreadableLifecycleBaseError';
  constructor(
    readonly clubId: string,
    readonly versions: { readonly base: number; readonly delta: number },
  ) {
    super(`the lifecycle base of ${clubId} (version ${versions.base}) cannot be read by this release`);
  }
}

/**
 * Time budgets for tests that cut a scan into many invocations. A fixed budget of a few tens of ms
 * measures the machine, not the engine: on two busy cores an invocation's own reads and writes
 * can use all of it, it reads no page, and the next does the same until the test times out. This
 * budget doubles after an invocation that read nothing, so every invocation moves the scan on and
 * the number of invocations follows the work.
 *
 *   const budget = new GrowingBudget(40);
 *   const report = await pollSource(deps, ctx, source, { deadlineMs: budget.deadline(), reserveMs: 0 });
 *   budget.after(report.pages);
 */
export class GrowingBudget {
  #ms: number;

  constructor(
    startMs: number,
    private readonly maxMs = 5_000,
  ) {
    this.#ms = startMs;
  }

  /** The next invocation's deadline (epoch ms). */
  deadline(): number {
    return Date.now() + this.#ms;
  }

  /** After an invocation, the pages it read: none doubles the budget. */
  after(pages: number): void {
    if (pages === 0) this.#ms = Math.min(this.maxMs, this.#ms * 2);
  }
}

/**
 * How many requests a bulk run keeps in flight: `--concurrency`, halved by a 429, and one more back after each
 * `current` answered chunks in a row (additive increase, multiplicative decrease, as TCP). A 429 to a request
 * sent before the last decrease does not lower it again: that request went out at the old pace.
 */
export class AdaptiveLimit {
  private limit: number;
  private calm = 0;
  private loweredAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly max: number,
    private readonly now: () => number = Date.now,
  ) {
    this.limit = max;
  }

  get current(): number {
    return this.limit;
  }

  /** A request sent at `sentAt` (ms) was answered 429. True when this lowered the limit. */
  rateLimited(sentAt: number): boolean {
    if (sentAt <= this.loweredAt) return false;
    this.loweredAt = this.now();
    this.calm = 0;
    const before = this.limit;
    this.limit = Math.max(1, Math.floor(this.limit / 2));
    return this.limit < before;
  }

  answered(): void {
    if (this.limit >= this.max || ++this.calm < this.limit) return;
    this.calm = 0;
    this.limit++;
  }
}

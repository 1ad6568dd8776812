/**
 * Bounded concurrency that keeps input order: at most `limit` calls of `fn` run at once, and results come out
 * in the order of `items` as soon as each one and all before it are done (so output can stream). A call starts
 * only within `limit` of the result the consumer waits for: a consumer that stops (`--limit` reached) or reads
 * slowly leaves no more than `limit` calls made ahead of it, not every item fetched and held.
 */
export async function* mapOrdered<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): AsyncGenerator<R> {
  const width = Math.max(1, limit);
  const slots = items.map(() => deferred<R>());
  let next = 0;
  let stopped = false;
  /** Items below this may start: the one the consumer waits for, plus `width`. */
  let allowed = width;
  let waiting: Array<() => void> = [];
  const worker = async () => {
    while (!stopped && next < items.length) {
      if (next >= allowed) {
        await new Promise<void>((resolve) => waiting.push(resolve));
        continue;
      }
      const index = next++;
      const slot = slots[index]!;
      await fn(items[index]!, index).then(slot.resolve, slot.reject);
    }
  };
  const release = () => {
    const woken = waiting;
    waiting = [];
    for (const wake of woken) wake();
  };
  for (let i = 0; i < Math.min(width, items.length); i++) void worker();
  try {
    for (const [i, slot] of slots.entries()) {
      allowed = i + width;
      release();
      yield await slot.promise;
    }
  } finally {
    // A consumer that stops early (break, or an error it threw) stops the workers taking new items.
    stopped = true;
    release();
  }
}

function deferred<R>() {
  let resolve!: (value: R) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<R>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Rejections are read in order by the consumer; one that is never read must not crash the process.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

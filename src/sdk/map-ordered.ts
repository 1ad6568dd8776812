/**
 * Bounded concurrency that keeps input order: at most `limit` calls of `fn` run at once, and results come out
 * in the order of `items` as soon as each one and all before it are done (so output can stream).
 */
export async function* mapOrdered<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): AsyncGenerator<R> {
  const slots = items.map(() => deferred<R>());
  let next = 0;
  let stopped = false;
  const worker = async () => {
    while (!stopped && next < items.length) {
      const index = next++;
      const slot = slots[index]!;
      await fn(items[index]!, index).then(slot.resolve, slot.reject);
    }
  };
  for (let i = 0; i < Math.max(1, Math.min(limit, items.length)); i++) void worker();
  try {
    for (const slot of slots) yield await slot.promise;
  } finally {
    // A consumer that stops early (break, or an error it threw) stops the workers taking new items.
    stopped = true;
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

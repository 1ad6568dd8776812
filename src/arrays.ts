/**
 * Arrays of any length: `target.push(...items)` and `Math.max(...values)` pass each item as an argument, which
 * overflows the stack at some 100,000 (a service's answer of 200,000 attempts, or of 300,000 failed ids).
 */

/** Appends `items` to `target`, one at a time; returns `target`. */
export function append<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}

/** The largest of `values`, `floor` when there are none or all are smaller. */
export function largest(values: readonly number[], floor = 0): number {
  return values.reduce((max, value) => (value > max ? value : max), floor);
}

/**
 * A one-line progress bar on stderr, drawn only when stderr is a terminal and not in CI (never in CI logs).
 * Redraws at most ten times a second, so a million-row run costs a few hundred writes, not a million.
 */
import type { Writable } from "node:stream";

export interface ProgressState {
  /** Items settled so far. */
  done: number;
  /** Items expected, when known; without it the bar shows a count and a rate only. */
  total?: number;
}

export interface Progress {
  update(state: ProgressState): void;
  /** Clears the bar (call before printing the summary). */
  done(): void;
}

const NOOP: Progress = { update() {}, done() {} };
const INTERVAL_MS = 100;

export function isCi(env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== "" && ci !== "false" && ci !== "0";
}

export function createProgress(
  stream: Writable & { isTTY?: boolean; columns?: number },
  env: NodeJS.ProcessEnv,
  noun = "rows",
  now: () => number = Date.now,
): Progress {
  if (stream.isTTY !== true || isCi(env) || env.TERM === "dumb") return NOOP;
  const started = now();
  let last = 0;
  let drawn = false;
  let latest: ProgressState = { done: 0 };
  const draw = () => {
    const { done, total } = latest;
    const seconds = Math.max(0.001, (now() - started) / 1000);
    const rate = `${format(Math.round(done / seconds))} ${noun}/s`;
    const width = Math.max(40, Math.min(stream.columns ?? 80, 100));
    let line: string;
    if (total !== undefined && total > 0) {
      const ratio = Math.min(1, done / total);
      const label = ` ${Math.floor(ratio * 100)}% ${format(done)}/${format(total)} ${noun} · ${rate}`;
      const barWidth = Math.max(10, width - label.length - 3);
      const filled = Math.round(ratio * barWidth);
      line = `[${"█".repeat(filled)}${"░".repeat(barWidth - filled)}]${label}`;
    } else {
      line = `${format(done)} ${noun} · ${rate}`;
    }
    stream.write(`\r${line.slice(0, width - 1)}\u001b[K`);
    drawn = true;
  };
  return {
    update(state) {
      latest = state;
      const t = now();
      if (t - last < INTERVAL_MS) return;
      last = t;
      draw();
    },
    done() {
      if (drawn) stream.write("\r\u001b[K");
      drawn = false;
    },
  };
}

/**
 * 1234567 → "1,234,567". Not toLocaleString: that loads ICU's number formatting, ~6 MB of resident memory a
 * million-row run should not spend on commas.
 */
export function formatCount(n: number): string {
  const digits = String(Math.trunc(Math.abs(n)));
  let out = "";
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ",";
    out += digits[i];
  }
  return n < 0 ? `-${out}` : out;
}

const format = formatCount;

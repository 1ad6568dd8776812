/**
 * Progress on stderr, only on a terminal and never in CI: one status line per command (Context.statusLine)
 * that every bar draws on, redrawn at most ten times a second. Our own rather than log-update (~50 ms to
 * import), because it must erase its line whenever something else writes.
 */
import type { Writable } from "node:stream";
import { isCi } from "../config/resolve.js";

export type TermStream = Writable & { isTTY?: boolean; columns?: number };

export interface Progress {
  /** Items settled so far, of `total` when known (else the bar shows a count and a rate only). */
  update(state: { done: number; total?: number }): void;
  /** Erases the bar for good: later updates (a window still in flight) draw nothing. */
  done(): void;
}

const NOOP: Progress = { update() {}, done() {} };
const INTERVAL_MS = 100;
const ERASE = "\r\u001b[K";

/**
 * The terminal's last line, on stderr. While something is drawn on it, the `write` of stderr (and of stdout when
 * it is the terminal too) is wrapped so that whatever comes next first erases the line; it is erased at every
 * exit too (the command's end, an error, process.exit, an uncaught exception).
 */
export class StatusLine {
  readonly enabled: boolean;
  private unhook: (() => void) | undefined;

  constructor(
    private readonly stdout: TermStream,
    private readonly stderr: TermStream,
    env: NodeJS.ProcessEnv,
  ) {
    this.enabled = stderr.isTTY === true && !isCi(env) && env.TERM !== "dumb";
  }

  /** Three columns less than the terminal's: a line wrapped by the `^C` echo could not be erased. */
  get width(): number {
    return Math.max(20, (this.stderr.columns ?? 80) - 3);
  }

  show(text: string): void {
    if (!this.enabled) return;
    this.unhook?.();
    this.stderr.write(`\r${fitLine(text, this.width)}\u001b[K`);
    this.unhook = this.hook();
  }

  clear(): void {
    if (!this.unhook) return;
    this.unhook();
    this.unhook = undefined;
    this.stderr.write(ERASE);
  }

  private hook(): () => void {
    const clear = () => this.clear();
    const streams =
      this.stdout.isTTY === true && this.stdout !== this.stderr ? [this.stderr, this.stdout] : [this.stderr];
    const undo = streams.map((stream) => {
      const own = Object.hasOwn(stream, "write") ? stream.write : undefined;
      stream.write = ((...args: Parameters<Writable["write"]>) => {
        clear();
        return stream.write(...args);
      }) as Writable["write"];
      return () => {
        if (own) stream.write = own;
        else delete (stream as Partial<Writable>).write;
      };
    });
    process.on("exit", clear).on("uncaughtExceptionMonitor", clear);
    return () => {
      for (const restore of undo) restore();
      process.off("exit", clear).off("uncaughtExceptionMonitor", clear);
    };
  }
}

/** `text` within one line of `width`: a longer one is cut at a blank, with "…", never inside a word. */
function fitLine(text: string, width: number): string {
  if ([...text].length <= width) return text;
  const cut = [...text].slice(0, width - 1).join("");
  const blank = cut.lastIndexOf(" ");
  return `${blank > width / 2 ? cut.slice(0, blank) : cut}…`;
}

export function createProgress(line: StatusLine, noun = "rows", now: () => number = Date.now): Progress {
  if (!line.enabled) return NOOP;
  const started = now();
  let last = 0;
  let finished = false;
  return {
    update({ done, total }) {
      const t = now();
      if (finished || t - last < INTERVAL_MS) return;
      last = t;
      const seconds = Math.max(0.001, (t - started) / 1000);
      const rate = `${formatCount(Math.round(done / seconds))} ${noun}/s`;
      if (total === undefined || total <= 0) {
        line.show(`${formatCount(done)} ${noun} · ${rate}`);
        return;
      }
      const ratio = Math.min(1, done / total);
      const label = ` ${Math.floor(ratio * 100)}% ${formatCount(done)}/${formatCount(total)} ${noun} · ${rate}`;
      const barWidth = Math.max(10, Math.min(line.width, 100) - label.length - 2);
      const filled = Math.round(ratio * barWidth);
      line.show(`[${"█".repeat(filled)}${"░".repeat(barWidth - filled)}]${label}`);
    },
    done() {
      finished = true;
      line.clear();
    },
  };
}

/** 1234567 → "1,234,567". Not toLocaleString: ICU's number formatting costs ~6 MB of resident memory. */
export function formatCount(n: number): string {
  // A comma at each place followed by whole groups of three digits up to the end.
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/**
 * test/helpers/terminal.ts itself: whatever a program wrote before it exited is all there once its exit is
 * reported, however busy the test process was when it exited (libuv ends a pseudo-terminal's stream at its first
 * short read after the child hung up, while the kernel may still hold kilobytes of the output).
 */
import { describe, expect, it } from "vitest";
import { Terminal } from "../helpers/terminal.js";

/** 200 KB of lines of box-drawing characters (3 bytes each, so reads cut characters) and digits, then a mark. */
const LINE = `│ ${"─".repeat(20)} 0123456789 ✓ │`;
const LINES = Math.ceil((200 * 1024) / Buffer.byteLength(`${LINE}\n`));
const WRITER = `process.stdout.write(${JSON.stringify(`${LINE}\n`)}.repeat(${LINES}) + "the end\\n"); process.exit(0);`;
/** What the terminal shows of it: each line break as CR LF. */
const SHOWN = `${`${LINE}\r\n`.repeat(LINES)}the end\r\n`;

/** Keeps this process's event loop busy half the time, as a loaded machine does, until the returned stop. */
function keepBusy(): () => void {
  const timer = setInterval(() => {
    const until = Date.now() + 25;
    while (Date.now() < until) {
      // busy
    }
  }, 25);
  return () => clearInterval(timer);
}

describe("Terminal", () => {
  it("reads all of a 200 KB output written just before the exit, 20 times in a row, the test process busy", async () => {
    const stop = keepBusy();
    try {
      for (let run = 1; run <= 20; run++) {
        const term = Terminal.spawn(process.execPath, ["-e", WRITER], {});
        expect(await term.exited).toBe(0);
        expect(term.output.length, `run ${run}`).toBe(SHOWN.length);
        expect(term.output, `run ${run}`).toBe(SHOWN);
      }
    } finally {
      stop();
    }
  });
});

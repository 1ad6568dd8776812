import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createProgress, formatCount, StatusLine } from "../../src/output/progress.js";

function stream(tty: boolean) {
  const s = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  s.isTTY = tty;
  s.columns = 80;
  let text = "";
  s.on("data", (c: Buffer) => {
    text += c.toString();
  });
  return { s, text: () => text };
}

describe("progress bar", () => {
  it("draws on a terminal, at most ten times a second, and clears itself", async () => {
    const { s, text } = stream(true);
    let now = 0;
    const bar = createProgress(new StatusLine(s, s, {}), "rows", () => now);
    for (let i = 1; i <= 100; i++) {
      now += 5;
      bar.update({ done: i * 10, total: 1000 });
    }
    bar.done();
    await new Promise((r) => setImmediate(r));
    const frames = text()
      .split("\r")
      .filter((f) => f.includes("rows"));
    expect(frames.length).toBeLessThanOrEqual(6);
    expect(frames.at(-1)).toMatch(/\] \d+% [\d,]+\/1,000 rows · [\d,]+ rows\/s/);
    expect(text().endsWith("\r\u001b[K")).toBe(true);
  });

  it("erases its line before anything else is written, on stderr or on a terminal's stdout, and draws nothing once done", async () => {
    const err = stream(true);
    const out = stream(true);
    let now = 0;
    const line = new StatusLine(out.s, err.s, {});
    const bar = createProgress(line, "windows", () => (now += 1000));
    bar.update({ done: 1, total: 4 });
    out.s.write("┌────┐\n");
    err.s.write("warning: slow\n");
    bar.update({ done: 2, total: 4 });
    bar.done();
    bar.update({ done: 3, total: 4 });
    await new Promise((r) => setImmediate(r));
    const frames = err.text().split("\u001b[K");
    // bar, erased (before the table), "warning" after nothing, bar, erased.
    expect(frames[0]).toMatch(/^\r\[█+░+\] 25% 1\/4 windows/);
    expect(frames[1]).toBe("\r");
    expect(frames[2]).toMatch(/^warning: slow\n\r\[█+░+\] 50% 2\/4 windows/);
    expect(frames[3]).toBe("\r");
    expect(frames[4]).toBe("");
    expect(out.text()).toBe("┌────┐\n");
    expect(Object.hasOwn(err.s, "write") || Object.hasOwn(out.s, "write")).toBe(false);
  });

  it("stays silent when stderr is not a terminal, or in CI", async () => {
    for (const [tty, env] of [
      [false, {}],
      [true, { CI: "true" }],
      [true, { TERM: "dumb" }],
    ] as const) {
      const { s, text } = stream(tty);
      let now = 0;
      const bar = createProgress(new StatusLine(s, s, env), "rows", () => (now += 1000));
      bar.update({ done: 5, total: 10 });
      bar.done();
      await new Promise((r) => setImmediate(r));
      expect(text()).toBe("");
    }
  });

  it("formats counts without ICU", () => {
    expect([0, 7, 999, 1000, 25_000, 1_000_000, -1234].map(formatCount)).toEqual([
      "0",
      "7",
      "999",
      "1,000",
      "25,000",
      "1,000,000",
      "-1,234",
    ]);
  });
});

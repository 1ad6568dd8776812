import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createProgress, formatCount } from "../../src/output/progress.js";

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
    const bar = createProgress(s, {}, "rows", () => now);
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

  it("stays silent when stderr is not a terminal, or in CI", async () => {
    for (const [tty, env] of [
      [false, {}],
      [true, { CI: "true" }],
      [true, { TERM: "dumb" }],
    ] as const) {
      const { s, text } = stream(tty);
      let now = 0;
      const bar = createProgress(s, env, "rows", () => (now += 1000));
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

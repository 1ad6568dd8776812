/**
 * src/output/table.ts for every table: links, e-mails and dates whole, and the table within the terminal when it
 * can be.
 */
import { Readable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import type { Io } from "../../src/context.js";
import { layoutTable } from "../../src/output/table.js";
import { capture, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();

const word = fc.stringMatching(/^[a-z]{1,30}$/);
const link = word.map((w) => `https://example.com/${w}`);
const email = word.map((w) => `${w}@example.org`);
const date = fc
  .date({ min: new Date("2000-01-01"), max: new Date("2099-12-31"), noInvalidDate: true })
  .chain((d) => fc.constantFrom(d.toISOString(), d.toISOString().slice(0, 19), d.toISOString().slice(0, 10)));
const cell = fc.oneof(word, link, email, date, fc.constant(""));

describe("layoutTable", () => {
  it("never cuts a link, an e-mail or a date; the table fits unless its first column alone cannot", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }).chain((n) =>
          fc.record({
            headers: fc.array(fc.stringMatching(/^[A-Z]{1,10}$/), { minLength: n, maxLength: n }),
            rows: fc.array(fc.array(cell, { minLength: n, maxLength: n }), { minLength: 1, maxLength: 6 }),
            total: fc.integer({ min: 40, max: 200 }),
          }),
        ),
        ({ headers, rows, total }) => {
          const { shown, widths, below } = layoutTable(headers, rows, total);
          shown.forEach((column, n) => {
            for (const row of rows) {
              const text = row[column] ?? "";
              // Anything but a word: a link, an e-mail or a date.
              if (/[^a-z]/.test(text)) expect(text.length).toBeLessThanOrEqual(widths[n] ?? 0);
            }
            expect(widths[n]).toBeGreaterThanOrEqual(Math.min(8, headers[column]?.length ?? 0));
          });
          for (const column of below) expect(shown).not.toContain(column);
          // Every column is in the table, below it, or left out only when the table was too narrow.
          const width = widths.reduce((sum, w) => sum + w + 3, 1);
          const firstAlone = Math.min(8, headers[0]?.length ?? 0) + 4;
          if (firstAlone <= total && shown.length > 1) expect(width).toBeLessThanOrEqual(total);
          if (shown.length + below.length < headers.length) expect(width).toBeGreaterThan(total / 3);
        },
      ),
    );
  });
});

/** `main(argv)` with stdout a terminal of `cols` columns. */
async function onTerminal(argv: string[], cols: number): Promise<string> {
  const stdout = capture(true);
  stdout.stream.columns = cols;
  const stderr = capture();
  const stdin = Readable.from([]) as Io["stdin"];
  const env = { ...t.env, PATH: process.env.PATH, NO_COLOR: "1" };
  const code = await main(argv, { stdout: stdout.stream, stderr: stderr.stream, stdin, env });
  expect(code, stderr.text()).toBe(0);
  return stdout.text();
}

describe("dates are never cut", () => {
  it.each([80, 60])(
    "employees certificates at %i columns shows every date whole, within the width",
    async (cols) => {
      let dates: string[] = [];
      let employee = 501;
      for (; dates.length === 0 && employee < 520; employee++) {
        const r = await t.run(["employees", "certificates", String(employee), "--json"]);
        const list = r.json<Array<{ issueDate?: string; expiryDate?: string }>>();
        dates = list.flatMap((c) => [c.issueDate ?? "", c.expiryDate ?? ""]).filter(Boolean);
      }
      expect(dates.length).toBeGreaterThan(0);
      const shown = await onTerminal(["employees", "certificates", String(employee - 1)], cols);
      for (const value of dates) expect(shown).toContain(value);
      expect(shown).not.toMatch(/\d{4}-\d\d-\d[\dT:-]*…/);
      expect(shown.split("\n").filter((line) => line.length > cols)).toEqual([]);
    },
  );
});

describe("a terminal that reports no width", () => {
  it("(0 columns: `docker run -t`, `script`) gets the table of an unknown width, every column, not the first alone", async () => {
    const stdout = capture(true);
    stdout.stream.columns = 0;
    const stderr = capture();
    const stdin = Readable.from([]) as Io["stdin"];
    const env = { ...t.env, PATH: process.env.PATH, NO_COLOR: "1" };
    const code = await main(["tests", "list"], { stdout: stdout.stream, stderr: stderr.stream, stdin, env });
    expect(code, stderr.text()).toBe(0);
    expect(stdout.text()).toMatch(/│ ID +│ NAME +│ STATUS +│ DURATION +│ LABELS +│/);
  });
});

/**
 * Hostile input: property tests (fast-check) on the CSV reader (through its public `openCsv(path).batches()`),
 * the date parser, the window splitter fed by it, and the CSV writer; seeded mutations of every file in
 * fixtures/ through the CLI; absurd flag values. Whatever comes in, the CLI answers with data or a usage
 * error naming what is wrong (exit 2, nothing sent), never a crash.
 * test/bulk/bad-fixtures.test.ts checks each file of fixtures/bad/ as it is (exit code, message, nothing sent);
 * test/bulk/csv.test.ts and test/attempts/windows.test.ts hold the reader's and splitter's own properties.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { PassThrough } from "node:stream";
import { parse } from "csv-parse/sync";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { type CsvRecord, openCsv } from "../../src/bulk/rows/csv.js";
import { MAX_WINDOW_MS, splitWindows } from "../../src/core/periods.js";
import { type CliError, UsageError } from "../../src/errors.js";
import { escapeControls } from "../../src/escape.js";
import { Output } from "../../src/output/output.js";
import { orderedRange, parseDate, toServiceTime } from "../../src/parse/dates.js";
import { ROOT } from "../bulk/helpers.js";
import { useTempDir, useTestEnv } from "../helpers/cli.js";
import { printTable, record } from "./table.js";

const env = useTestEnv();
const tmp = useTempDir("assess-trust-hostile-");
let n = 0;
afterAll(() => {
  printTable("Hostile input");
});

/** Reads a file the way bulk commands do; returns the header and records, or the usage error. */
async function readCsv(
  bytes: Buffer | string,
): Promise<{ header: string[]; records: CsvRecord[]; path: string } | { error: CliError; path: string }> {
  const path = tmp.file(`in-${n++}.csv`);
  writeFileSync(path, bytes);
  try {
    const input = await openCsv(path);
    const records: CsvRecord[] = [];
    for await (const batch of input.batches()) records.push(...batch);
    return { header: input.header, records, path };
  } catch (error) {
    // Anything but a usage error is a crash.
    if (!(error instanceof UsageError)) throw error;
    return { error, path };
  }
}

const NOW = new Date("2026-11-21T10:30:15Z");

/** `--from a --to b`, as the schemas of period commands and periodFromOptions read them. */
const fromTo = (a: string, b: string) =>
  orderedRange(parseDate(a, "start", "--from", NOW), parseDate(b, "end", "--to", NOW));

describe("CSV reader (openCsv): properties", () => {
  /** Pieces that break naive readers: quotes, every delimiter and line end, BOMs, NULs, bytes that are not UTF-8. */
  const nasty = fc.constantFrom(
    '"',
    '""',
    ",",
    ";",
    "\t",
    "\r",
    "\n",
    "\r\n",
    "\uFEFF",
    "\0",
    "\xff",
    "é",
    "😀",
    "email",
    "name",
    " ",
    "a@b.co",
    "=1+1",
  );

  it("never crashes: any bytes give records or a usage error naming the file and line", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 400 }).map((a) => Buffer.from(a)),
          fc.array(nasty, { maxLength: 60 }).map((parts) => {
            // "\xff" stands for a lone 0xff byte (not UTF-8); the rest is written as UTF-8.
            const chunks = parts.map((p) => (p === "\xff" ? Buffer.from([0xff]) : Buffer.from(p, "utf8")));
            return Buffer.concat(chunks);
          }),
        ),
        async (bytes) => {
          const got = await readCsv(bytes);
          if ("error" in got) {
            expect(got.error.exitCode).toBe(2);
            expect(got.error.message).toMatch(/^\S+\.csv:\d+: /);
          } else {
            expect(got.header.length).toBeGreaterThan(0);
            for (const r of got.records) expect(r.line).toBeGreaterThan(1);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("line numbers stay right with quoted line breaks (LF, CRLF, CR inside quotes) and blank lines", async () => {
    const cell = fc
      .array(fc.constantFrom("a", "b", " ", ",", '"', "\n", "\r\n", "\r", "é"), { maxLength: 6 })
      .map((p) => p.join(""));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("\n", "\r\n"),
        fc.array(fc.tuple(cell, cell, fc.nat(2)), { minLength: 1, maxLength: 20 }),
        async (eol, rows) => {
          let text = `email,name${eol}`;
          let line = 2;
          const expected: number[] = [];
          for (const [a, b, blanks] of rows) {
            text += eol.repeat(blanks);
            line += blanks;
            expected.push(line);
            const written = `${quote(a)},${quote(b)}`;
            text += written + eol;
            line += (written.match(/\r\n|\r|\n/g) ?? []).length + 1;
          }
          const got = await readCsv(text);
          if ("error" in got) throw got.error;
          // A row whose cells are blank is a blank line to the reader only when it has no delimiter: never here.
          expect(got.records.map((r) => r.line)).toEqual(expected);
          expect(got.records.map((r) => r.fields)).toEqual(rows.map(([a, b]) => [a, b]));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("a BOM never reaches a header name, whatever the names, quoting and delimiter", async () => {
    const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9 _-]{0,10}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.array(name, { minLength: 1, maxLength: 5 }),
        fc.constantFrom(",", ";", "\t"),
        fc.boolean(),
        fc.constantFrom("\n", "\r\n"),
        async (names, delimiter, quoteFirst, eol) => {
          const cells = names.map((h, i) => (i === 0 && quoteFirst ? `"${h}"` : h));
          const got = await readCsv(
            `\uFEFF${cells.join(delimiter)}${eol}${names.map(() => "x").join(delimiter)}${eol}`,
          );
          if ("error" in got) throw got.error;
          expect(got.header).toEqual(names.map((h) => h.trim()));
          expect(got.header.some((h) => h.includes("\uFEFF"))).toBe(false);
          expect(got.records.flatMap((r) => r.fields).some((f) => f.includes("\uFEFF"))).toBe(false);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("through the CLI: an invalid row after quoted multi-line names is reported at its own line (BOM'd header read)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(3), fc.boolean()), { minLength: 1, maxLength: 12 }),
        fc.nat(12),
        async (rows, badAt) => {
          let text = "\uFEFFEmail,Name\r\n";
          let line = 2;
          let badLine = 0;
          const bad = Math.min(badAt, rows.length - 1);
          rows.forEach(([breaks, crlf], i) => {
            const name = `"Name${"\r\n".repeat(crlf ? breaks : 0)}${"\n".repeat(crlf ? 0 : breaks)} ${i}"`;
            const email = i === bad ? "not-an-email" : `row${i}@example.com`;
            if (i === bad) badLine = line;
            text += `${email},${name}\r\n`;
            line += breaks + 1;
          });
          const file = tmp.file(`lines-${n++}.csv`);
          writeFileSync(file, text);
          const mark = env.sandbox.requests.length;
          const r = await env.run(["invite", "bulk", file, "--test", "1001"]);
          expect(r.code).toBe(2);
          expect(r.stderr).toContain(
            `${basename(file)}:${badLine}: Email: "not-an-email" is not a valid e-mail address`,
          );
          expect(env.sandbox.requests.length).toBe(mark);
        },
      ),
      { numRuns: 25 },
    );
    record({
      input: "CSV: any bytes; quoted LF/CRLF/CR; BOM + any header (property)",
      outcome: "records with right line numbers, or exit 2 `file:line:`; BOM never in a header",
      lost: 0,
      duplicated: 0,
    });
  });
});

function quote(field: string): string {
  return /[",\r\n]/.test(field) || field === "" || field.trim() !== field
    ? `"${field.replaceAll('"', '""')}"`
    : field;
}

describe("date parser and window splitter: properties", () => {
  /** Strings near the accepted forms: digits, dashes, colons, units, signs, offsets. */
  const dateish = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc
      .array(
        fc.constantFrom(
          ..."0123456789-:+TZ .smhdw".split(""),
          "now",
          "2026",
          "-02-29",
          "T23:59:60",
          "+05:30",
        ),
        {
          maxLength: 12,
        },
      )
      .map((p) => p.join("")),
    fc
      .tuple(
        fc.constantFrom("", "+", "-"),
        fc.bigInt({ min: 0n, max: 10n ** 20n }),
        fc.constantFrom(..."smhdw"),
      )
      .map(([sign, amount, unit]) => `${sign}${amount}${unit}`),
  );

  it("any string: a whole-second date between 1900 and 9999 that formats as the service wants, or a usage error", () => {
    fc.assert(
      fc.property(dateish, fc.constantFrom("start" as const, "end" as const), (input, bound) => {
        let date: Date;
        try {
          date = parseDate(input, bound, "--from", NOW);
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
          expect((error as Error).message).toMatch(/^--from: /);
          return;
        }
        expect(Number.isFinite(date.getTime())).toBe(true);
        expect(Math.abs(date.getTime() % 1000)).toBe(0); // -0 before 1970
        expect(toServiceTime(date)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        expect(date.getUTCFullYear()).toBeGreaterThanOrEqual(1900);
        expect(date.getUTCFullYear()).toBeLessThanOrEqual(9999);
      }),
      { numRuns: 3000 },
    );
  });

  const instant = fc
    .date({
      min: new Date("1900-01-01T00:00:00Z"),
      max: new Date("9999-12-31T23:59:59Z"),
      noInvalidDate: true,
    })
    .map((d) => new Date(Math.floor(d.getTime() / 1000) * 1000));

  it("reads back what it writes, with any offset; a bare day is its first or last second", () => {
    fc.assert(
      fc.property(instant, fc.integer({ min: -14 * 60, max: 14 * 60 }), (date, offsetMin) => {
        expect(parseDate(toServiceTime(date), "start", "--from", NOW)).toEqual(date);
        // The same instant written in another zone (offsets to the minute).
        const local = new Date(date.getTime() + offsetMin * 60_000);
        const sign = offsetMin < 0 ? "-" : "+";
        const abs = Math.abs(offsetMin);
        const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
        const written = `${local.toISOString().slice(0, 19)}${zone}`;
        if (
          local.getUTCFullYear() >= 1900 &&
          local.getUTCFullYear() <= 9999 &&
          !local.toISOString().startsWith("+")
        ) {
          const read = (() => {
            try {
              return parseDate(written, "start", "--from", NOW);
            } catch {
              return undefined; // the instant itself may fall outside 1900–9999 by the offset
            }
          })();
          if (read) expect(read).toEqual(date);
        }
        const day = toServiceTime(date).slice(0, 10);
        expect(toServiceTime(parseDate(day, "start", "--from", NOW))).toBe(`${day}T00:00:00Z`);
        expect(toServiceTime(parseDate(day, "end", "--to", NOW))).toBe(`${day}T23:59:59Z`);
      }),
      { numRuns: 1000 },
    );
  });

  it("relative spans count from now: 7d ago, +24h ahead; absurd spans are usage errors", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40_000 }),
        fc.constantFrom(..."smhdw"),
        fc.boolean(),
        (amount, unit, ahead) => {
          const ms = amount * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[unit]!;
          const expected = Math.floor((NOW.getTime() + (ahead ? ms : -ms)) / 1000) * 1000;
          const read = () =>
            parseDate(`${ahead ? "+" : ""}${amount}${unit}`, "start", "--from", NOW).getTime();
          if (expected < Date.UTC(1900, 0, 1) || expected > Date.UTC(9999, 11, 31, 23, 59, 59)) {
            expect(read).toThrow(UsageError);
          } else expect(read()).toBe(expected);
        },
      ),
      { numRuns: 1000 },
    );
    expect(() => parseDate("+99999999d", "end", "--end", NOW)).toThrow(/outside the years 1900 to 9999/);
    expect(() => parseDate("0000-01-01", "start", "--from", NOW)).toThrow(UsageError);
  });

  it("any two inputs: a usage error (unreadable or reversed), or ≤30-day windows covering the range exactly", () => {
    fc.assert(
      fc.property(
        fc.oneof(dateish, instant.map(toServiceTime)),
        fc.oneof(dateish, instant.map(toServiceTime)),
        (a, b) => {
          let range: { start: Date; end: Date };
          try {
            range = fromTo(a, b);
          } catch (error) {
            expect(error).toBeInstanceOf(UsageError);
            return;
          }
          expect(range.end.getTime()).toBeGreaterThanOrEqual(range.start.getTime());
          // A century of windows is 1,200 of them; cap the work, not the property.
          if (range.end.getTime() - range.start.getTime() > 200 * 365 * 86_400_000) return;
          const windows = splitWindows(range.start, range.end);
          expect(windows[0]!.start).toEqual(range.start);
          expect(windows.at(-1)!.end.getTime()).toBe(range.end.getTime() + 1000);
          for (let i = 0; i < windows.length; i++) {
            const w = windows[i]!;
            expect(w.end.getTime() - w.start.getTime()).toBeLessThanOrEqual(MAX_WINDOW_MS);
            expect(w.end.getTime()).toBeGreaterThan(w.start.getTime());
            if (i > 0) expect(w.start).toEqual(windows[i - 1]!.end);
          }
        },
      ),
      { numRuns: 2000 },
    );
    const reversed = () => fromTo("2026-05-01", "2026-04-01");
    expect(reversed).toThrow(/--to \(2026-04-01T23:59:59Z\) is before --from \(2026-05-01T00:00:00Z\)/);
    record({
      input: "dates: any string, offsets, relative spans, reversed ranges (property)",
      outcome: "whole-second UTC date in 1900–9999 or exit-2 error; windows ≤30 days cover the range exactly",
      lost: 0,
      duplicated: 0,
    });
  });
});

describe("CSV writer: no cell starts a formula (property)", () => {
  it("any values, any columns: every cell reads back as written, or with a leading ' when a spreadsheet would run it", async () => {
    const value = fc.oneof(
      fc.string({ maxLength: 20, unit: "binary" }),
      fc.constantFrom("=1+1", "+1", "-1", "@SUM(A1)", "\t=x", "\r=x", "\n=x", '=HYPERLINK("http://x")', ""),
      fc.integer({ min: -5, max: 5 }),
      fc.constant(null),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(value, value, value), { maxLength: 15 }), async (rows) => {
        const out = new PassThrough();
        const chunks: Buffer[] = [];
        out.on("data", (c: Buffer) => chunks.push(c));
        const output = new Output(out, { format: "csv", color: false });
        const records = rows.map(([a, b, c]) => ({ a, b, c }));
        await output.list(records, [{ key: "a" }, { key: "b" }, { key: "c" }]);
        const parsed = parse(Buffer.concat(chunks).toString("utf8"), {
          relax_column_count: false,
        }) as string[][];
        expect(parsed[0]).toEqual(["a", "b", "c"]);
        expect(parsed).toHaveLength(rows.length + 1);
        parsed.slice(1).forEach((cells, i) => {
          cells.forEach((cell, j) => {
            expect(cell).not.toMatch(/^[=+\-@\t\r\n]/);
            const original = rows[i]![j];
            // Control characters other than tab and line breaks are written as visible escapes (\x1b).
            const text = original === null ? "" : escapeControls(String(original), "\t\r\n");
            expect([text, `'${text}`]).toContain(cell);
          });
        });
      }),
      { numRuns: 400 },
    );
    record({
      input: "CSV output: any cell text (property)",
      outcome:
        "reads back as written (other control characters than tab, CR, LF escaped); cells starting = + - @ tab CR LF get a leading '",
      lost: 0,
      duplicated: 0,
    });
  });
});

describe("every file in fixtures/, mutated: the CLI never crashes", () => {
  it("seeded byte mutations of each fixture → exit 0, 2 or 3; an exit 2 names file:line and sends nothing", async () => {
    const sources = [
      ...readdirSync(join(ROOT, "fixtures", "bad"))
        .filter((f) => f.endsWith(".csv") && !f.startsWith("employees-"))
        .map((f) => join(ROOT, "fixtures", "bad", f)),
      join(ROOT, "fixtures", "candidates.csv"),
    ];
    const mutation = fc.oneof(
      fc.record({
        kind: fc.constant("insert" as const),
        at: fc.nat(),
        bytes: fc.constantFrom('"', ",", ";", "\n", "\r", "\0", "\xff", "\uFEFF", '""'),
      }),
      fc.record({
        kind: fc.constant("delete" as const),
        at: fc.nat(),
        length: fc.integer({ min: 1, max: 20 }),
      }),
      fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
    );
    const exits = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...sources),
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        async (source, edits) => {
          let bytes = readFileSync(source);
          for (const e of edits) {
            const at = bytes.length === 0 ? 0 : e.at % bytes.length;
            if (e.kind === "insert") {
              const ins = e.bytes === "\xff" ? Buffer.from([0xff]) : Buffer.from(e.bytes, "utf8");
              bytes = Buffer.concat([bytes.subarray(0, at), ins, bytes.subarray(at)]);
            } else if (e.kind === "delete")
              bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + e.length)]);
            else bytes = bytes.subarray(0, at);
          }
          const file = tmp.file(`mutant-${n++}.csv`);
          writeFileSync(file, bytes);
          const mark = env.sandbox.requests.length;
          const r = await env.run(["invite", "bulk", file, "--test", "1001", "--dry-run"]);
          exits.set(r.code, (exits.get(r.code) ?? 0) + 1);
          expect([0, 2, 3], r.stderr).toContain(r.code);
          expect(r.stderr).not.toContain("looks like a bug");
          // bad-testid.csv names each row's test: beside --test that is a usage error about the flags.
          if (r.code === 2 && !/--test cannot be combined/.test(r.stderr))
            expect(r.stderr).toContain(`${basename(file)}:`);
          // A dry run makes the reads it needs (who already finished: the attempt listing) and sends no write.
          const writes = env.sandbox.requests
            .slice(mark)
            .filter((req) => req.path !== "/v3/candidates/testattempts");
          expect(writes).toEqual([]);
        },
      ),
      { numRuns: 150, seed: 20_261_121 },
    );
    record({
      input: `fixtures/bad/*.csv + candidates.csv, 150 seeded mutations`,
      outcome: `exits ${[...exits].map(([code, count]) => `${code}×${count}`).join(", ")}; no crash; nothing sent`,
      lost: 0,
      duplicated: 0,
    });
  });
});

describe("absurd flag values → exit 2 with a message, nothing sent", () => {
  const file = () => join(ROOT, "fixtures", "candidates.csv");
  const employees = () => join(ROOT, "fixtures", "employees.csv");
  const cases: Array<[string[], RegExp]> = [
    [["tests", "list", "--page-size", "-5"], /--page-size must be a whole number from 1 to 100, got "-5"/],
    [["tests", "list", "--page-size", "0"], /--page-size must be a whole number from 1 to 100/],
    [["tests", "list", "--page", "-1"], /--page must be a whole number from 1/],
    [["employees", "list", "--page-size", "-1"], /--page-size must be a whole number from 1/],
    [["employees", "skills-profiles", "--page-size", "1e3"], /--page-size must be a whole number from 1/],
    // Said in plain words, not "from 1 to 9007199254740991".
    [["tests", "list", "--limit", "-1"], /--limit must be a positive whole number, got "-1"/],
    [
      ["invite", "bulk", "FILE", "--test", "1001", "--chunk-size", "0"],
      /--chunk-size must be a whole number from 1 to 1000, got "0"/,
    ],
    [
      ["invite", "bulk", "FILE", "--test", "1001", "--chunk-size", "5000"],
      /--chunk-size must be a whole number from 1 to 1000, got "5000"/,
    ],
    [
      ["invite", "bulk", "FILE", "--test", "1001", "--chunk-size", "1.5"],
      /--chunk-size must be a whole number/,
    ],
    [
      ["invite", "bulk", "FILE", "--test", "1001", "--concurrency", "0"],
      /--concurrency must be a whole number from 1 to 16/,
    ],
    [
      ["employees", "upsert", "EMPLOYEES", "--chunk-size", "101"],
      /--chunk-size must be a whole number from 1 to 100, got "101"/,
    ],
    [
      ["employees", "upsert", "EMPLOYEES", "--chunk-size", "0"],
      /--chunk-size must be a whole number from 1 to 100/,
    ],
    [["attempts", "list", "--from", "now", "--to", "7d"], /--to \(.*\) is before --from/],
    [
      ["attempts", "list", "--from", "2026-05-01", "--to", "2026-04-01"],
      /--to \(2026-04-01T23:59:59Z\) is before --from/,
    ],
    [["reports", "export", "--from", "now", "--to", "30d"], /is before --from/],
    [["callbacks", "resend", "--from", "now", "--to", "7d"], /is before --from/],
    [
      [
        "invite",
        "send",
        "--test",
        "1001",
        "--email",
        "a@b.co",
        "--name",
        "A",
        "--start",
        "+7d",
        "--end",
        "+1d",
      ],
      /--end must be after --start/,
    ],
    [
      ["invite", "bulk", "FILE", "--test", "1001", "--start", "+7d", "--end", "+1d"],
      /--end must be after --start/,
    ],
    [
      ["attempts", "list", "--from", "0000-01-01", "--to", "now"],
      /--from: "0000-01-01" is outside the years 1900 to 9999/,
    ],
    [
      ["attempts", "list", "--from", "now", "--to", "+999999999d"],
      /--to: "\+999999999d" is outside the years/,
    ],
    [
      ["invite", "send", "--test", "1001", "--email", "a@b.co", "--name", "A", "--end", "+99999999d"],
      /--end: "\+99999999d" is outside/,
    ],
    [["attempts", "list", "--from", "2026-02-30", "--to", "now"], /--from: "2026-02-30" is not a date/],
    [
      ["tests", "list", "--timeout", "-5"],
      /--timeout must be a whole number of milliseconds from 1 to 3600000/,
    ],
    [["tests", "list", "--timeout", "0"], /--timeout must be/],
    [["tests", "list", "--timeout", "1e100"], /--timeout must be/],
    [["tests", "list", "--timeout", "3000000000"], /--timeout must be/],
    // Only digits, as `config set timeout` takes them.
    [["tests", "list", "--timeout", "1e3"], /--timeout must be/],
    [["tests", "list", "--timeout", "0x10"], /--timeout must be/],
    [["tests", "list", "--retries", "+5"], /--retries must be/],
    [["tests", "list", "--retries", "-1"], /--retries must be a whole number from 0 to 20/],
    [["tests", "list", "--retries", "1000"], /--retries must be a whole number from 0 to 20/],
    [["tests", "get", "-5"], /testId must be a positive whole number/],
    [["callbacks", "listen", "--port", "-1"], /--port must be a whole number from 0 to 65535/],
    [["callbacks", "listen", "--port", "70000"], /--port must be a whole number from 0 to 65535/],
  ];
  for (const [argv, message] of cases) {
    const shown = argv.map((a) =>
      a === "FILE" ? "candidates.csv" : a === "EMPLOYEES" ? "employees.csv" : a,
    );
    it(shown.join(" "), async () => {
      const args = argv.map((a) => (a === "FILE" ? file() : a === "EMPLOYEES" ? employees() : a));
      const mark = env.sandbox.requests.length;
      const r = await env.run(args);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(env.sandbox.requests.length).toBe(mark);
    });
  }
  afterAll(() => {
    record({
      input: `${cases.length} absurd flag values (negative page sizes, chunk size 0/5000, reversed dates, year 0000, +99999999d, --timeout 1e100 …)`,
      outcome: "exit 2 naming the flag and the allowed range, nothing sent",
      lost: 0,
      duplicated: 0,
    });
  });
});

import { writeFileSync } from "node:fs";
import { stringify } from "csv-stringify/sync";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
  type CsvRecord,
  detectDelimiter,
  fieldBatches,
  MAX_RECORD_BYTES,
  openCsv,
  parsedBatches,
} from "../../src/bulk/rows/csv.js";
import { tempDir } from "../helpers/cli.js";

const tmp = tempDir("assess-csv-");
afterAll(() => tmp.cleanup());
let n = 0;

async function readAll(
  path: string,
  delimiter?: string,
): Promise<{ header: string[]; records: CsvRecord[]; delimiter: string }> {
  const input = await openCsv(path, { delimiter });
  const records: CsvRecord[] = [];
  for await (const batch of input.batches()) records.push(...batch);
  return { header: input.header, records, delimiter: input.delimiter };
}

function quote(field: string, delimiter: string): string {
  return /["\r\n]/.test(field) || field.includes(delimiter) || field === ""
    ? `"${field.replaceAll('"', '""')}"`
    : field;
}

const cell = fc
  .stringMatching(/^[a-zé ,;\t"\n]{0,8}$/)
  .map((s) => s.replace(/\n/g, (m, i) => (i % 2 ? "\r\n" : m)));

describe("openCsv", () => {
  it("gives every record its fields and the physical line it starts on (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(",", ";", "\t"),
        fc.constantFrom("\n", "\r\n"),
        fc.boolean(),
        fc.integer({ min: 2, max: 4 }),
        fc.array(fc.tuple(fc.array(cell, { minLength: 4, maxLength: 4 }), fc.nat(2)), { maxLength: 25 }),
        async (delimiter, eol, bom, width, rows) => {
          const header = Array.from({ length: width }, (_, i) => `col${i}`);
          let text = `${bom ? "\uFEFF" : ""}${header.join(delimiter)}${eol}`;
          let line = 2;
          const expected: CsvRecord[] = [];
          for (const [cells, blanks] of rows) {
            text += eol.repeat(blanks);
            line += blanks;
            const fields = cells.slice(0, width);
            // Unquoted values lose their trailing blanks.
            expected.push({ line, fields: fields.map((f) => (quote(f, delimiter) === f ? f.trimEnd() : f)) });
            const written = fields.map((f) => quote(f, delimiter)).join(delimiter);
            text += written + eol;
            line += (written.match(/\r\n|\r|\n/g) ?? []).length + 1;
          }
          const path = tmp.file(`prop-${n++}.csv`);
          writeFileSync(path, text);
          const got = await readAll(path);
          expect(got.delimiter).toBe(delimiter);
          expect(got.header).toEqual(header);
          expect(got.records).toEqual(expected);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("reads back what csv-stringify writes: same fields, the line each record starts on (property)", async () => {
    const value = fc
      .stringMatching(/^[a-zé ,;\t"\r\n]{0,8}$/)
      // Trailing blanks of unquoted values are dropped (tested on its own below).
      .map((s) => s.replace(/[ \t]+$/, ""));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(",", ";", "\t"),
        fc.boolean(),
        fc.boolean(),
        fc.array(
          fc.record({
            fields: fc.array(value, { minLength: 2, maxLength: 5 }),
            eol: fc.constantFrom("\n", "\r\n", "\r"),
            quoted: fc.boolean(),
            blanksBefore: fc.constantFrom("", "", "\n", "\r\n  \r\n", "\r"),
          }),
          { maxLength: 25 },
        ),
        async (delimiter, bom, lastEol, rows) => {
          const header = ["email", "name"];
          let text = `${bom ? "\uFEFF" : ""}${header.join(delimiter)}\r\n`;
          const expected: CsvRecord[] = [];
          rows.forEach(({ fields, eol, quoted, blanksBefore }, i) => {
            text += blanksBefore;
            const line = 1 + (text.match(/\r\n|\r|\n/g) ?? []).length;
            expected.push({ line, fields });
            const written = stringify([fields], {
              delimiter,
              record_delimiter: eol,
              quote_record_delimiter: true,
              quoted,
            });
            text += lastEol || i < rows.length - 1 ? written : written.slice(0, -eol.length);
          });
          const path = tmp.file(`stringify-${n++}.csv`);
          writeFileSync(path, text);
          const got = await readAll(path);
          expect(got.delimiter).toBe(delimiter);
          expect(got.header).toEqual(header);
          expect(got.records).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("reads records that straddle two reads of the file (property)", async () => {
    const MiB = 1024 * 1024;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -40, max: 40 }),
        fc.constantFrom("\n", "\r\n", "\r"),
        async (shift, eol) => {
          // Rows of 1 KiB up to just before the 1 MiB mark (where two reads meet), then one to land on `shift`.
          let text = `email,name${eol}`;
          const row = (width: number) => `f@example.com,${"x".repeat(width - 14 - eol.length)}${eol}`;
          while (text.length < MiB - 2048) text += row(1024);
          text += row(MiB + shift - text.length);
          const line = 1 + (text.match(/\r\n|\r|\n/g) ?? []).length;
          text += `é@example.com,"Zoë${eol}""Z"" ${eol}Ö"${eol}last@example.com,Last${eol}`;
          const path = tmp.file(`straddle-${n++}.csv`);
          writeFileSync(path, text);
          const { records } = await readAll(path);
          expect(records.slice(-2)).toEqual([
            { line, fields: ["é@example.com", `Zoë${eol}"Z" ${eol}Ö`] },
            { line: line + 3, fields: ["last@example.com", "Last"] },
          ]);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("keeps quotes inside an unquoted value; drops trailing blanks of unquoted values only", async () => {
    const path = tmp.file("literal-quotes.csv");
    writeFileSync(path, 'email,name\na@example.com,Ada "The Countess" Lovelace\t \nb@example.com," Bob "\n');
    const { records } = await readAll(path);
    expect(records.map((r) => r.fields)).toEqual([
      ["a@example.com", 'Ada "The Countess" Lovelace'],
      ["b@example.com", " Bob "],
    ]);
  });

  it("says on which line the record with a quoting problem starts, after multi-line values", async () => {
    const before = 'email,name\r\na@example.com,"Two\r\nlines"\r\n\r\nb@example.com,"Three\r\n\r\nlines"\r\n';
    const cases: [string, string, RegExp][] = [
      [
        "unclosed",
        'c@example.com,"never closed\r\nd@example.com,D\r\n',
        /unclosed\.csv:8: a quoted field starts on this line and never closes/,
      ],
      [
        "after-quote",
        '"c@example.com"x,C\r\n',
        /after-quote\.csv:8: a quote closes a field but more text follows it/,
      ],
      [
        "too-long",
        `c@example.com,"${"y".repeat(1024 * 1024 + 10)}"\r\n`,
        /too-long\.csv:8: a record longer than 1 MiB/,
      ],
    ];
    for (const [name, bad, message] of cases) {
      const path = tmp.file(`${name}.csv`);
      writeFileSync(path, before + bad);
      await expect(readAll(path)).rejects.toThrow(message);
    }
  });

  it("streams: a big file arrives in many batches, none of them the whole file", async () => {
    const path = tmp.file("big.csv");
    const rows = 200_000;
    writeFileSync(
      path,
      `email,name\n${Array.from({ length: rows }, (_, i) => `p${i}@example.com,P ${i}\n`).join("")}`,
    );
    const input = await openCsv(path);
    const sizes: number[] = [];
    let last = 0;
    for await (const batch of input.batches()) {
      sizes.push(batch.length);
      last = batch.at(-1)!.line;
    }
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(rows);
    expect(last).toBe(rows + 1);
    expect(sizes.length).toBeGreaterThan(3);
    expect(Math.max(...sizes)).toBeLessThan(rows / 3);
  });

  it("does not mistake a multi-byte character split between two reads for bad UTF-8", async () => {
    const path = tmp.file("split.csv");
    const head = "email,name\n";
    const filler = "x".repeat(65536 - head.length - 20 - 1);
    writeFileSync(path, `${head}a@example.com,${filler}é\nb@example.com,Zoë\n`);
    const { records } = await readAll(path);
    expect(records.map((r) => r.line)).toEqual([2, 3]);
    expect(records[0]!.fields[1]!.endsWith("é")).toBe(true);
  });

  it("finds bytes that are not UTF-8 anywhere in the file, with their line", async () => {
    const path = tmp.file("late-latin1.csv");
    const rows = Array.from({ length: 5000 }, (_, i) => `p${i}@example.com,Person ${i}\n`).join("");
    writeFileSync(
      path,
      Buffer.concat([
        Buffer.from(`email,name\n${rows}`),
        Buffer.from("jose@example.com,Jos\xe9\n", "latin1"),
      ]),
    );
    await expect(readAll(path)).rejects.toThrow(/late-latin1\.csv:5002: not UTF-8 text/);
  });

  it("detects the delimiter from the header only", () => {
    expect(detectDelimiter("email;name\na,b,c,d,e\n")).toBe(";");
    expect(detectDelimiter("email\tname\n")).toBe("\t");
    expect(detectDelimiter('"a;b",c\n')).toBe(",");
    expect(detectDelimiter("email\n")).toBe(",");
  });

  it("--delimiter overrides detection", async () => {
    const path = tmp.file("pipe.csv");
    writeFileSync(path, "email|name\na@example.com|A, B\n");
    const { header, records } = await readAll(path, "|");
    expect(header).toEqual(["email", "name"]);
    expect(records[0]!.fields).toEqual(["a@example.com", "A, B"]);
  });
});

describe("records of text without quotes, split without csv-parse", () => {
  /** Every record of a part of a file, or the code of the error that stopped the reading. */
  async function collect(batches: AsyncGenerator<string[][]>): Promise<string[][] | string> {
    const out: string[][] = [];
    try {
      for await (const batch of batches) out.push(...batch);
      return out;
    } catch (error) {
      return (error as { code?: string }).code ?? String(error);
    }
  }

  // Pieces of text, long and short, with every kind of line break, blanks csv-parse trims, and characters of
  // two, three and four bytes (split between two reads of 16 KiB now and then).
  const token = (quotes: boolean) =>
    fc.constantFrom(
      "a",
      "bcd",
      "é",
      "€",
      "😀",
      ",",
      ";",
      "\t",
      " ",
      "\u00a0",
      "\n",
      "\r\n",
      "\r",
      "x".repeat(500),
      ...(quotes ? ['"', '""', '",'] : []),
    );
  const text = (quotes: boolean) =>
    fc
      .tuple(fc.boolean(), fc.array(token(quotes), { maxLength: 12_000 }))
      .map(([bom, parts]) => (bom ? "\ufeff" : "") + parts.join(""));

  for (const quotes of [false, true]) {
    it(`gives csv-parse's records from any line on, ${quotes ? "up to the first quote (csv-parse reads on from its line)" : "for text without a quote"} (property)`, async () => {
      await fc.assert(
        fc.asyncProperty(
          text(quotes),
          fc.constantFrom(",", ";", "\t"),
          fc.nat(),
          async (content, delimiter, pick) => {
            const path = tmp.file(`fast-${n++}.csv`);
            const bytes = Buffer.from(content);
            writeFileSync(path, bytes);
            // A part from a line start, as the halves of a split check are; or the whole file.
            const starts = [0];
            for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) starts.push(i + 1);
            const start = pick % 3 === 0 ? 0 : starts[pick % starts.length]!;
            const fast = await collect(fieldBatches({ path, name: "f.csv", delimiter, start }));
            const parsed = await collect(parsedBatches({ path, name: "f.csv", delimiter, start }));
            expect(fast).toEqual(parsed);
          },
        ),
        { numRuns: 60 },
      );
    });
  }

  it("keeps a U+FEFF that starts a later line, in a part read from there as in the whole file", async () => {
    const path = tmp.file(`feff-${n++}.csv`);
    const content = "\uFEFFemail,name\na@example.com,A\n\uFEFFb@example.com,B\nc@example.com,C\n";
    writeFileSync(path, content);
    const whole = await collect(fieldBatches({ path, name: "f.csv", delimiter: ",", start: 0 }));
    expect(whole[0]).toEqual(["email", "name"]);
    const start = Buffer.from(content).indexOf("\n", Buffer.from(content).indexOf("A\n")) + 1;
    for (const read of [fieldBatches, parsedBatches]) {
      const part = await collect(read({ path, name: "f.csv", delimiter: ",", start }));
      expect(part).toEqual([
        ["\uFEFFb@example.com", "B"],
        ["c@example.com", "C"],
      ]);
      expect(part).toEqual(whole.slice(2));
    }
  });

  it("gives csv-parse's records when a \\r\\n or a character straddles two reads", async () => {
    const PIECE = 16 * 1024; // csv.ts reads this much at a time
    for (let shift = -3; shift <= 3; shift++) {
      for (const straddler of ["\r\n", "\r", "€", "😀"]) {
        const filler = "z".repeat(PIECE + shift - 4);
        const path = tmp.file(`straddle-${n++}.csv`);
        writeFileSync(path, `a,b\n${filler}${straddler}x ,y\r\nlast`);
        const fast = await collect(fieldBatches({ path, name: "f.csv", delimiter: ",", start: 0 }));
        expect(fast).toEqual(await collect(parsedBatches({ path, name: "f.csv", delimiter: ",", start: 0 })));
      }
    }
  });

  it("refuses a record longer than 1 MiB where csv-parse does, to the byte", async () => {
    const cases = [
      "x".repeat(MAX_RECORD_BYTES),
      "x".repeat(MAX_RECORD_BYTES + 1),
      "x".repeat(MAX_RECORD_BYTES + 2),
      `${"y".repeat(10)}   ,${"x".repeat(MAX_RECORD_BYTES - 10)}`,
      `${"y".repeat(10)}   ,${"x".repeat(MAX_RECORD_BYTES - 9)}`,
      `${"é".repeat(MAX_RECORD_BYTES / 2)}`,
      `${"é".repeat(MAX_RECORD_BYTES / 2)}a`,
      `a,${"€".repeat(MAX_RECORD_BYTES / 3)},b`,
    ];
    const outcomes: string[] = [];
    for (const line of cases) {
      const path = tmp.file(`long-${n++}.csv`);
      writeFileSync(path, `email,name\n${line}\nlast,row\n`);
      const fast = await collect(fieldBatches({ path, name: "f.csv", delimiter: ",", start: 0 }));
      const parsed = await collect(parsedBatches({ path, name: "f.csv", delimiter: ",", start: 0 }));
      expect(typeof fast === "string" ? fast : fast.length).toEqual(
        typeof parsed === "string" ? parsed : parsed.length,
      );
      outcomes.push(typeof fast === "string" ? fast : "ok");
    }
    // Both outcomes are met: the threshold is where csv-parse puts it.
    expect(outcomes).toContain("ok");
    expect(outcomes).toContain("CSV_MAX_RECORD_SIZE");
  });

  it("hands a line near the record limit to csv-parse, which refuses it as it reads", async () => {
    // 8 MiB without a line break: csv-parse stops it once it passes 1 MiB, whoever read the lines before it.
    const path = tmp.file(`endless-${n++}.csv`);
    writeFileSync(path, `email,name\na@x.org,A\n${"y".repeat(8 * 1024 * 1024)}\nlast,row\n`);
    const records: string[][] = [];
    const batches = fieldBatches({ path, name: "f.csv", delimiter: ",", start: 0 });
    await expect(
      (async () => {
        for await (const batch of batches) records.push(...batch);
      })(),
    ).rejects.toMatchObject({ code: "CSV_MAX_RECORD_SIZE" });
    expect(records).toEqual([
      ["email", "name"],
      ["a@x.org", "A"],
    ]);
  });
});

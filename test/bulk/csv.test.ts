import { writeFileSync } from "node:fs";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { type CsvRecord, detectDelimiter, openCsv } from "../../src/bulk/csv.js";
import { CsvTokenizer } from "../../src/bulk/csv-tokenizer.js";
import { tempDir } from "./helpers.js";

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
            expected.push({ line, fields });
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

  it("agrees with csv-parse on every well-formed file (property)", async () => {
    const { parse } = await import("csv-parse/sync");
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(",", ";", "\t"),
        fc.array(fc.array(fc.stringMatching(/^[a-z ,;\t"\r\n]{0,6}$/), { minLength: 1, maxLength: 4 }), {
          maxLength: 20,
        }),
        fc.constantFrom("\n", "\r\n", "\r"),
        async (delimiter, rows, eol) => {
          const text = rows
            .map((fields) => fields.map((f) => quote(f, delimiter)).join(delimiter))
            .map((line) => line + eol)
            .join("");
          const tokenizer = new CsvTokenizer(delimiter, 1 << 20);
          const out: CsvRecord[] = [];
          // Fed in small pieces, so records and quotes straddle the pieces.
          for (let i = 0; i < text.length; i += 7) tokenizer.push(text.slice(i, i + 7), out);
          tokenizer.push("", out, true);
          const reference = parse(text, {
            delimiter,
            relax_column_count: true,
            relax_quotes: true,
            record_delimiter: ["\r\n", "\n", "\r"],
          });
          expect(out.map((r) => r.fields)).toEqual(reference);
        },
      ),
      { numRuns: 300 },
    );
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

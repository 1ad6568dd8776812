/**
 * .xlsx input for `invite bulk` and `employees upsert`, in-process (`main`; the built CLI where the chunks it
 * loads are checked) against the embedded sandbox: a sheet gives the same outcome as the same rows in a CSV file (exit code, summary,
 * rejects, and the ledger record for record), its errors name the sheet, the row and the column, date cells
 * become the dates a CSV file would carry (in both of Excel's date systems), `--sheet` picks a sheet, and
 * nothing but an .xlsx run loads the chunk that reads workbooks.
 *
 * The workbooks are made here: with write-excel-file, and one by hand (the 1904 date system, which
 * write-excel-file does not write).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import writeExcelFile from "write-excel-file/node";
import { ROOT } from "../bulk/helpers.js";
import { runBin, runCli, tempDir } from "../helpers/cli.js";

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir("assess-xlsx-");
});
afterAll(() => tmp.cleanup());

/**
 * A run with a config folder of its own (so an embedded sandbox and ledgers of its own): in-process (`main`), or
 * the built CLI with `preload`, to see which of its chunks the process loads.
 */
function assess(args: string[], configDir: string, preload?: { hook: string; out: string }) {
  if (!preload) return runCli(args, { env: { ASSESS_CONFIG_DIR: configDir } });
  return runBin(args, {
    env: { ASSESS_CONFIG_DIR: configDir, LOADED_OUT: preload.out },
    preload: preload.hook,
  });
}

/** A folder with a config folder of its own in it. */
function place(name: string): { dir: string; config: string } {
  const dir = join(tmp.dir, name);
  const config = join(dir, "config");
  mkdirSync(config, { recursive: true });
  return { dir, config };
}

/**
 * The ledger records of a config folder, by ledger file, without what differs from run to run: when it was
 * written, and the run's id in each chunk's id.
 */
function ledgers(config: string): Record<string, unknown[]> {
  const folder = join(config, "ledgers");
  const out: Record<string, unknown[]> = {};
  for (const file of readdirSync(folder)
    .filter((f) => f.endsWith(".ndjson"))
    .sort()) {
    out[file] = readFileSync(join(folder, file), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => {
        const { created: _created, at: _at, ...record } = JSON.parse(line) as Record<string, unknown>;
        if (typeof record.c === "string") record.c = record.c.replace(/^[^-]+-/, "run-");
        return record;
      });
  }
  return out;
}

/**
 * A sheet's run's output as the same CSV run's would read: `x.xlsx, sheet "S", row 4` → `x.csv:4`, the error
 * column's `row 4:` → `line 4:`, `column "email"` → `email`; and the folders (each run has its own) left out.
 */
function asCsv(text: string, places: Array<{ dir: string; config: string }>, sheet: string): string {
  let out = text;
  for (const { dir, config } of places) out = out.replaceAll(config, "CONFIG").replaceAll(`${dir}/`, "");
  return (
    out
      .replaceAll(new RegExp(`\\.xlsx, sheet "${sheet}", row (\\d+)`, "g"), ".csv:$1")
      .replaceAll(`.xlsx, sheet "${sheet}"`, ".csv")
      .replace(/\brow (\d+): /g, "line $1: ")
      // `column "email"` as written, in JSON (\"email\") and in a CSV cell (""email"").
      .replace(/column (\\?"{1,2})([^"\\]+)\1/g, "$2")
  );
}

function withoutPaths(summary: string): unknown {
  const { rejects, ledgers: files, ...rest } = JSON.parse(summary) as Record<string, unknown>;
  return { ...rest, rejects: typeof rejects === "string" ? rejects.split("/").at(-1) : rejects };
}

const dmy = (y: number, m: number, d: number) => ({
  value: new Date(Date.UTC(y, m - 1, d)),
  type: Date,
  format: "dd/mm/yyyy",
});

describe("invite bulk from a sheet", () => {
  let csv: { dir: string; config: string };
  let xlsx: { dir: string; config: string };

  beforeAll(async () => {
    csv = place("invite-csv");
    xlsx = place("invite-xlsx");
    // Line 5 is blank, as row 5 of the sheet is; line 7 repeats line 2 in another case.
    writeFileSync(
      join(csv.dir, "candidates.csv"),
      "email,name\nada@example.com,Ada Lovelace\ngrace@example.com,Grace Hopper\nnot-an-email,Bad Row\n\nalan@example.com,Alan Turing\nADA@example.com,Ada Again\n",
    );
    await writeExcelFile([
      {
        sheet: "Candidates",
        data: [
          ["email", "name"],
          ["ada@example.com", "Ada Lovelace"],
          ["grace@example.com", "Grace Hopper"],
          ["not-an-email", "Bad Row"],
          [null, null],
          ["alan@example.com", "Alan Turing"],
          ["ADA@example.com", "Ada Again"],
        ],
      },
      {
        sheet: "Later intake",
        data: [
          ["Email Address", "Full Name"],
          ["joan@example.com", "Joan Clarke"],
        ],
      },
    ]).toFile(join(xlsx.dir, "candidates.xlsx"));
  });

  it("gives the outcome, summary, rejects and ledger of the same rows in a CSV file", async () => {
    const args = ["--sandbox", "invite", "bulk", "--test", "1001", "--skip-invalid", "--json"];
    const fromCsv = await assess([...args, join(csv.dir, "candidates.csv")], csv.config);
    const fromSheet = await assess([...args, join(xlsx.dir, "candidates.xlsx")], xlsx.config);

    expect(fromCsv.code).toBe(0); // the invalid row was skipped, as asked
    expect(fromSheet.code).toBe(fromCsv.code);
    const summary = JSON.parse(fromSheet.stdout) as { sent: number; invalid: number; duplicates: number };
    expect([summary.sent, summary.invalid, summary.duplicates]).toEqual([3, 1, 1]);
    expect(withoutPaths(asCsv(fromSheet.stdout, [xlsx], "Candidates"))).toEqual(withoutPaths(fromCsv.stdout));
    expect(asCsv(fromSheet.stderr, [xlsx], "Candidates")).toBe(asCsv(fromCsv.stderr, [csv], "Candidates"));
    expect(fromSheet.stderr).toContain(
      `candidates.xlsx, sheet "Candidates", row 4  not-an-email: column "email": "not-an-email" is not a valid e-mail address`,
    );

    // The rejects file of a sheet is CSV, beside it: the same rows, the error column saying "row".
    const rejects = readFileSync(join(xlsx.dir, "candidates.rejects.csv"), "utf8");
    expect(rejects).toBe(
      'email,name,error\r\nnot-an-email,Bad Row,"row 4: column ""email"": ""not-an-email"" is not a valid e-mail address"\r\n',
    );
    expect(asCsv(rejects, [], "Candidates")).toBe(
      readFileSync(join(csv.dir, "candidates.rejects.csv"), "utf8"),
    );

    const fromSheetLedgers = ledgers(xlsx.config);
    expect(Object.keys(fromSheetLedgers)).toHaveLength(1);
    expect(fromSheetLedgers).toEqual(ledgers(csv.config));
  });

  it("refuses a sheet with an invalid row, naming the sheet, the row and the column (exit 2)", async () => {
    const { dir, config } = place("invite-refused");
    await writeExcelFile([
      ["Email Address", "Name", null],
      ["ok@example.com", "Ok", null],
      ["nope", "Nope", null],
      ["stray@example.com", "Stray", "a value with no header"],
    ]).toFile(join(dir, "people.xlsx"));
    const r = await assess(
      ["--sandbox", "invite", "bulk", join(dir, "people.xlsx"), "--test", "1001"],
      config,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `people.xlsx, sheet "Sheet1", row 3: column "Email Address": "nope" is not a valid e-mail address`,
    );
    expect(r.stderr).toContain(
      `people.xlsx, sheet "Sheet1", row 4: a value in column C, which the header row does not name`,
    );
    expect(r.stderr).toContain("2 of 3 rows are invalid; nothing was sent");
  });

  it("reads the sheet --sheet names; an unknown sheet is a usage error naming the sheets there", async () => {
    const { config } = place("invite-sheet");
    const file = join(xlsx.dir, "candidates.xlsx");
    const later = await assess(
      ["--sandbox", "invite", "bulk", file, "--sheet", "Later intake", "--test", "1001", "--json"],
      config,
    );
    expect(later.code).toBe(0);
    expect(JSON.parse(later.stdout)).toMatchObject({ rows: 1, sent: 1, invalid: 0 });
    expect(later.stderr).toContain(`candidates.xlsx, sheet "Later intake": 1 row: 1 sent`);

    // Sheet names are one whatever their case, as in the spreadsheet.
    const anyCase = await assess(
      ["--sandbox", "invite", "bulk", file, "--sheet", "later INTAKE", "--test", "1001", "--json"],
      config,
    );
    expect(anyCase.code).toBe(0);
    expect(anyCase.stderr).toContain(`sheet "Later intake": 1 row: 0 sent, 1 already done`);

    const unknown = await assess(
      ["--sandbox", "invite", "bulk", file, "--sheet", "Nope", "--test", "1001"],
      config,
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toContain(
      `has no sheet named "Nope"; its sheets are: "Candidates", "Later intake"`,
    );
  });

  it("refuses --sheet with a CSV file, and --delimiter with a workbook (exit 2)", async () => {
    const { config } = place("invite-flags");
    const withCsv = await assess(
      [
        "--sandbox",
        "invite",
        "bulk",
        join(csv.dir, "candidates.csv"),
        "--sheet",
        "Candidates",
        "--test",
        "1001",
      ],
      config,
    );
    expect(withCsv.code).toBe(2);
    expect(withCsv.stderr).toContain("--sheet is for .xlsx input");
    const withDelimiter = await assess(
      [
        "--sandbox",
        "invite",
        "bulk",
        join(xlsx.dir, "candidates.xlsx"),
        "--delimiter",
        ";",
        "--test",
        "1001",
      ],
      config,
    );
    expect(withDelimiter.code).toBe(2);
    expect(withDelimiter.stderr).toContain("--delimiter is for CSV input");
  });
});

describe("workbooks that cannot be sent", () => {
  it("a sheet with a header and no rows, an empty sheet, and a file that is no workbook: usage errors", async () => {
    const { dir, config } = place("unsendable");
    await writeExcelFile([
      { sheet: "Header only", data: [["email", "name"]] },
      { sheet: "Empty", data: [[null]] },
    ]).toFile(join(dir, "book.xlsx"));
    writeFileSync(join(dir, "renamed.xlsx"), "email,name\nx@example.com,X\n");
    const run = (file: string, ...more: string[]) =>
      assess(["--sandbox", "invite", "bulk", join(dir, file), "--test", "1001", ...more], config);

    const headerOnly = await run("book.xlsx");
    expect(headerOnly.code).toBe(2);
    expect(headerOnly.stderr).toContain(
      `book.xlsx, sheet "Header only", row 1: a header row and no data rows after it: nothing to send`,
    );
    const empty = await run("book.xlsx", "--sheet", "Empty");
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain(`book.xlsx, sheet "Empty": the sheet is empty: nothing to send`);
    const renamed = await run("renamed.xlsx");
    expect(renamed.code).toBe(2);
    expect(renamed.stderr).toContain("renamed.xlsx: not an .xlsx workbook");
  });
});

describe("what a file is, judged by its bytes", () => {
  it("a workbook named .csv is said to be a workbook, with how to read it; an old binary workbook is named so whatever its name", async () => {
    const { dir, config } = place("by-content");
    await writeExcelFile([
      {
        sheet: "Candidates",
        data: [
          ["email", "name"],
          ["ada@example.com", "Ada"],
        ],
      },
    ]).toFile(join(dir, "saved-as.csv"));
    // The first bytes of an OLE2 compound file, which old .xls workbooks are.
    const ole2 = Buffer.concat([Buffer.from("d0cf11e0a1b11ae1", "hex"), Buffer.alloc(504)]);
    writeFileSync(join(dir, "old.csv"), ole2);
    writeFileSync(join(dir, "old.xls"), ole2);
    const run = (file: string) =>
      assess(["--sandbox", "invite", "bulk", join(dir, file), "--test", "1001"], config);

    const renamed = await run("saved-as.csv");
    expect(renamed.code).toBe(2);
    expect(renamed.stderr).not.toContain("binary data");
    expect(renamed.stderr).toContain(
      "saved-as.csv:1: a workbook (a ZIP archive, as .xlsx files are), not CSV text, though its name ends in .csv",
    );
    expect(renamed.stderr).toMatch(
      /Give it a name that ends in \.xlsx \(for example `mv .*saved-as\.csv .*saved-as\.xlsx`\)/,
    );
    for (const file of ["old.csv", "old.xls"]) {
      const old = await run(file);
      expect(old.code, file).toBe(2);
      expect(old.stderr, file).toContain(`${file}:1: an Excel 97–2003 workbook (the old binary .xls format)`);
      expect(old.stderr, file).toContain("Save it from the spreadsheet as an Excel Workbook (.xlsx)");
    }
  });

  it("an .xls file of CSV text (as some systems export) is read as the CSV it is", async () => {
    const { dir, config } = place("xls-text");
    writeFileSync(join(dir, "export.xls"), "email,name\nada@example.com,Ada Lovelace\n");
    const r = await assess(
      ["--sandbox", "invite", "bulk", join(dir, "export.xls"), "--test", "1001", "--json"],
      config,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 1, sent: 1 });
  });

  it("a workbook whose first sheet has no header lists its sheets and suggests --sheet", async () => {
    const { dir, config } = place("cover-sheet");
    await writeExcelFile([
      { sheet: "Read me", data: [["Hiring round, spring"], ["Candidates are on the next sheet"]] },
      {
        sheet: "Spring intake",
        data: [
          ["email", "name"],
          ["ada@example.com", "Ada"],
        ],
      },
    ]).toFile(join(dir, "round.xlsx"));
    await writeExcelFile([
      { sheet: "Cover", data: [[null]] },
      {
        sheet: "Staff",
        data: [
          ["email", "firstName"],
          ["ada@example.com", "Ada"],
        ],
      },
    ]).toFile(join(dir, "staff.xlsx"));
    const invite = await assess(
      ["--sandbox", "invite", "bulk", join(dir, "round.xlsx"), "--test", "1001"],
      config,
    );
    expect(invite.code).toBe(2);
    expect(invite.stderr).toContain(`round.xlsx, sheet "Read me", row 1: the header has no e-mail column`);
    expect(invite.stderr).toContain(
      `The workbook's sheets are "Read me", "Spring intake": name the one with the rows with --sheet (for example --sheet 'Spring intake')`,
    );
    const upsert = await assess(["--sandbox", "employees", "upsert", join(dir, "staff.xlsx")], config);
    expect(upsert.code).toBe(2);
    expect(upsert.stderr).toContain(`staff.xlsx, sheet "Cover": the sheet is empty: nothing to send`);
    expect(upsert.stderr).toContain(`The workbook's sheets are "Cover", "Staff"`);
    expect(upsert.stderr).toContain("--sheet Staff");
    const named = await assess(
      [
        "--sandbox",
        "invite",
        "bulk",
        join(dir, "round.xlsx"),
        "--sheet",
        "Spring intake",
        "--test",
        "1001",
        "--json",
      ],
      config,
    );
    expect(named.code, named.stderr).toBe(0);
  });
});

describe("a sheet of many rows", () => {
  // 100,000 rows: `npm run bench:large -- --only xlsx`.
  it("of 1,000 rows is read and sent whole", async () => {
    const { dir, config } = place("large");
    const rows: Array<Array<string | number>> = [["email", "name", "testid"]];
    for (let i = 0; i < 1_000; i++) rows.push([`large${i}@example.com`, `Large ${i}`, 1001]);
    await writeExcelFile(rows, { sheet: "All" }).toFile(join(dir, "large.xlsx"));
    const r = await assess(["--sandbox", "invite", "bulk", join(dir, "large.xlsx"), "--json"], config);
    expect(r.stderr).toContain(`large.xlsx, sheet "All": 1,000 rows: 1,000 sent`);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 1_000, sent: 1_000, invalid: 0 });
  });
});

describe("employees upsert from a sheet", () => {
  it("gives the outcome, summary, rejects and ledger of the same rows in a CSV file, date cells as CSV dates", async () => {
    const csv = place("upsert-csv");
    const xlsx = place("upsert-xlsx");
    writeFileSync(
      join(csv.dir, "staff.csv"),
      [
        "email,firstName,lastName,hireDate,exitDate,externalEmployeeId,Badge",
        "e1@example.com,Eve,One,2021-03-04,,7001,TRUE",
        "e2@example.com,Eli,Two,2022-01-02T09:30:00,2024-12-31,7002,0.3",
        "e3@example.com,Emma,Three,soon,,7003,",
        "e4@example.com,Ed,Four,1999-12-31,,7004,12.5",
        "",
      ].join("\n"),
    );
    await writeExcelFile(
      [
        ["email", "firstName", "lastName", "hireDate", "exitDate", "externalEmployeeId", "Badge"],
        ["e1@example.com", "Eve", "One", dmy(2021, 3, 4), null, 7001, true],
        [
          "e2@example.com",
          "Eli",
          "Two",
          { value: new Date(Date.UTC(2022, 0, 2, 9, 30)), type: Date, format: "yyyy-mm-dd hh:mm" },
          { value: new Date(Date.UTC(2024, 11, 31)), type: Date, format: "mmm d, yyyy" },
          7002,
          0.1 + 0.2,
        ],
        ["e3@example.com", "Emma", "Three", "soon", null, 7003, null],
        ["e4@example.com", "Ed", "Four", dmy(1999, 12, 31), null, 7004, { value: 12.5, format: "0.00" }],
      ],
      { sheet: "Staff" },
    ).toFile(join(xlsx.dir, "staff.xlsx"));

    const args = ["--sandbox", "employees", "upsert", "--skip-invalid", "--json"];
    const fromCsv = await assess([...args, join(csv.dir, "staff.csv")], csv.config);
    const fromSheet = await assess([...args, join(xlsx.dir, "staff.xlsx")], xlsx.config);
    expect(fromCsv.code).toBe(0);
    expect(fromSheet.code).toBe(fromCsv.code);
    expect(JSON.parse(fromSheet.stdout)).toMatchObject({ rows: 4, sent: 3, invalid: 1 });
    expect(withoutPaths(asCsv(fromSheet.stdout, [xlsx], "Staff"))).toEqual(withoutPaths(fromCsv.stdout));
    expect(asCsv(fromSheet.stderr, [xlsx], "Staff")).toBe(asCsv(fromCsv.stderr, [csv], "Staff"));
    expect(fromSheet.stderr).toContain(
      `staff.xlsx, sheet "Staff", row 4  e3@example.com: column "hireDate": "soon" is not a date`,
    );
    const rejects = readFileSync(join(xlsx.dir, "staff.rejects.csv"), "utf8");
    expect(rejects.split("\r\n")[1]).toMatch(
      /^e3@example\.com,Emma,Three,soon,,7003,,"row 4: column ""hireDate"": /,
    );
    expect(asCsv(rejects, [], "Staff")).toBe(readFileSync(join(csv.dir, "staff.rejects.csv"), "utf8"));
    // An employee's ledger key is its item's JSON: the same records mean the same items were sent.
    expect(ledgers(xlsx.config)).toEqual(ledgers(csv.config));
  });

  it("reads date cells of the 1904 date system, with a built-in and a custom date format", async () => {
    const { dir, config } = place("upsert-1904");
    const file = join(dir, "mac.xlsx");
    writeFileSync(file, workbook1904());
    const r = await assess(["--sandbox", "--dry-run", "employees", "upsert", file], config);
    expect(r.stderr).toContain(`mac.xlsx, sheet "Staff": 1 row: 1 to send`);
    const body = (JSON.parse(r.stdout) as { body: unknown[] }).body;
    expect(body).toEqual([
      {
        email: "mac@example.com",
        firstName: "Mac",
        employeeHRMSInfo: {
          // 42797 days after 1 January 1904; in the 1900 system that number would be 2017-03-04.
          externalEmployeeId: "42797",
          hireDate: "2021-03-04T00:00:00Z",
          exitDate: "2021-03-05T12:00:00Z",
        },
      },
    ]);
  });

  it("refuses --sheet with a JSON array (exit 2)", async () => {
    const { dir, config } = place("upsert-json");
    writeFileSync(join(dir, "people.json"), '[{"email":"j@example.com"}]');
    const r = await assess(
      ["--sandbox", "employees", "upsert", join(dir, "people.json"), "--sheet", "x"],
      config,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--sheet is for .xlsx input");
  });
});

describe("the chunk that reads workbooks", () => {
  it("is loaded by an .xlsx run only: not by --help, tests list, or a CSV run", async () => {
    const { dir, config } = place("chunks");
    const hook = join(dir, "hook.cjs");
    writeFileSync(
      hook,
      'process.on("exit", () => require("node:fs").writeFileSync(process.env.LOADED_OUT, Object.keys(require.cache).join("\\n")));\n',
    );
    const chunk = readdirSync(join(ROOT, "dist")).filter((f) => /^xlsx-\w+\.cjs$/.test(f));
    expect(chunk).toHaveLength(1);
    expect(readFileSync(join(ROOT, "dist", chunk[0]!), "utf8")).toContain("SheetNotFoundError");
    const loaded = async (args: string[]) => {
      const out = join(dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);
      await assess(args, config, { hook, out });
      const modules = readFileSync(out, "utf8").split("\n");
      expect(modules.some((m) => m.endsWith("launch.cjs"))).toBe(true);
      return modules.some((m) => m.endsWith(chunk[0]!));
    };
    writeFileSync(join(dir, "c.csv"), "email,name\nx@example.com,X\n");
    await writeExcelFile([
      ["email", "name"],
      ["x@example.com", "X"],
    ]).toFile(join(dir, "c.xlsx"));
    expect(await loaded(["--help"])).toBe(false);
    expect(await loaded(["invite", "bulk", "--help"])).toBe(false);
    expect(await loaded(["--sandbox", "tests", "list"])).toBe(false);
    expect(await loaded(["--sandbox", "invite", "bulk", join(dir, "c.csv"), "--test", "1001"])).toBe(false);
    expect(await loaded(["--sandbox", "invite", "bulk", join(dir, "c.xlsx"), "--test", "1001"])).toBe(true);
  });
});

/**
 * A workbook as a Mac's Excel of old saved it: the 1904 date system (`date1904="1"`), dates as serial numbers
 * with the built-in date format 14 and a custom one, text as inline strings; zipped without compression.
 */
function workbook1904(): Buffer {
  const xml = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
  const main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
  const rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
  const text = (ref: string, value: string) => `<c r="${ref}" t="inlineStr"><is><t>${value}</t></is></c>`;
  return zip({
    "[Content_Types].xml": `${xml}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`,
    "_rels/.rels": `${xml}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    "xl/workbook.xml": `${xml}<workbook xmlns="${main}" xmlns:r="${rel}"><workbookPr date1904="1"/><sheets><sheet name="Staff" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    "xl/_rels/workbook.xml.rels": `${xml}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${rel}/styles" Target="styles.xml"/></Relationships>`,
    "xl/styles.xml": `${xml}<styleSheet xmlns="${main}"><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy\\-mm\\-dd\\ hh:mm"/></numFmts><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="1"><fill><patternFill patternType="none"/></fill></fills><borders count="1"><border/></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="3"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs></styleSheet>`,
    "xl/worksheets/sheet1.xml": `${xml}<worksheet xmlns="${main}"><dimension ref="A1:E2"/><sheetData><row r="1">${text("A1", "email")}${text("B1", "firstName")}${text("C1", "hireDate")}${text("D1", "exitDate")}${text("E1", "externalEmployeeId")}</row><row r="2">${text("A2", "mac@example.com")}${text("B2", "Mac")}<c r="C2" s="1"><v>42797</v></c><c r="D2" s="2"><v>42798.5</v></c><c r="E2"><v>42797</v></c></row></sheetData></worksheet>`,
  });
}

/** A ZIP archive of `files`, stored (no compression). */
function zip(files: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.from(content, "utf8");
    const path = Buffer.from(name, "utf8");
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(path.length, 26);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(path.length, 28);
    entry.writeUInt32LE(offset, 42);
    parts.push(local, path, data);
    central.push(entry, path);
    offset += local.length + path.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}

/**
 * The files and answers an attacker crafts, against the sandbox or a small server on loopback: through the built
 * CLI where its peak memory is measured, in-process (`main`) for what it prints:
 *
 * - workbooks made here, by hand, to exhaust memory (one cell at XFD1048576, a used range of 16 million
 *   cells, an unused part of 500 MiB, a sheet that inflates to 2 GiB, a 2 MiB shared string used by 2,000 rows,
 *   1,048,576 rows, XML nested millions deep): each refused with exit 2 (or, for the unused part, read as if it
 *   were not there), nothing sent, at a peak RSS under 300 MiB measured in the process itself; the time and peak
 *   are printed;
 * - `reports stats` with a report dated .NET's minimum date and scores of 1e308 and -1e300;
 * - bidi and zero-width characters from the service escaped in table, TSV and CSV;
 * - the rejects CSV escapes ESC and BEL.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { constants, crc32, deflateRawSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { type HostileServer, startHostileServer } from "../../fixtures/hostile/servers.js";
import { isBulkInvite } from "../bulk/helpers.js";
import { type BinResult, runCli, SANDBOX_KEYS, useTempDir, useTestEnv } from "../helpers/cli.js";
import { expectClean, runBuilt } from "./built.js";

const KEY = SANDBOX_KEYS.acme;
const MIB = 1024 * 1024;

const t = useTestEnv();
const tmp = useTempDir("assess-hostile-workbooks-");

// ---- a ZIP writer, enough for a workbook ----

interface Part {
  name: string;
  /** Deflated bytes, as they go in the archive. */
  data: Buffer;
  crc: number;
  /** The size the directory declares (may lie). */
  size: number;
}

function part(name: string, text: string): Part {
  const bytes = Buffer.from(text);
  return { name, data: deflateRawSync(bytes), crc: crc32(bytes), size: bytes.length };
}

/** A part that inflates to `mib` MiB of `block` repeated: one deflated piece of 1 MiB, copied `mib` times. */
function bomb(name: string, mib: number, declared?: number, block = Buffer.alloc(MIB)): Part {
  const piece = deflateRawSync(block, { finishFlush: constants.Z_FULL_FLUSH });
  let crc = 0;
  for (let i = 0; i < mib; i++) crc = crc32(block, crc);
  return {
    name,
    data: Buffer.concat([...Array.from({ length: mib }, () => piece), Buffer.from([3, 0])]),
    crc,
    size: declared ?? Math.min(0xfffffffe, mib * MIB),
  };
}

function zip(parts: Part[]): Buffer {
  const out: Buffer[] = [];
  const dir: Buffer[] = [];
  let offset = 0;
  for (const p of parts) {
    const name = Buffer.from(p.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(p.crc >>> 0, 14);
    local.writeUInt32LE(p.data.length, 18);
    local.writeUInt32LE(p.size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(p.crc >>> 0, 16);
    central.writeUInt32LE(p.data.length, 20);
    central.writeUInt32LE(p.size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    out.push(local, name, p.data);
    dir.push(central, name);
    offset += 30 + name.length + p.data.length;
  }
  const size = dir.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(size, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...out, ...dir, end]);
}

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/** A workbook of one sheet ("Sheet1"), its XML `sheet`, plus any other parts. */
function workbook(sheet: Part | string, ...others: Part[]): Buffer {
  return zip([
    part(
      "xl/workbook.xml",
      `<?xml version="1.0"?><workbook ${NS} xmlns:r="${REL}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ),
    part(
      "xl/_rels/workbook.xml.rels",
      `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    ),
    typeof sheet === "string" ? part("xl/worksheets/sheet1.xml", sheet) : sheet,
    ...others,
  ]);
}

const cell = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
const sheetXml = (rows: string) =>
  `<?xml version="1.0"?><worksheet ${NS}><sheetData>${rows}</sheetData></worksheet>`;
const HEADER = `<row r="1">${cell("A1", "email")}${cell("B1", "name")}</row>`;

const figures: Array<{ file: string; bytes: number; run: BinResult }> = [];
afterAll(() => {
  // The table of figures: what each crafted file cost.
  console.info(
    figures
      .map(
        (f) =>
          `${f.file}: ${f.bytes} B file, exit ${f.run.code}, ${f.run.ms} ms, peak ${f.run.peakMiB?.toFixed(1)} MiB`,
      )
      .join("\n"),
  );
});

async function bulk(file: string, bytes: Buffer): Promise<{ run: BinResult; sent: number }> {
  const dir = tmp.file(file.replace(/\W/g, "-"));
  mkdirSync(dir);
  const path = join(dir, `${file}.xlsx`);
  writeFileSync(path, bytes);
  const mark = t.sandbox.requests.length;
  const run = await runBuilt(["invite", "bulk", path, "--test", "1001"], t.env, { timeoutMs: 240_000 });
  figures.push({ file, bytes: bytes.length, run });
  expect(run.peakMiB, run.stderr).toBeDefined();
  expect(run.peakMiB!).toBeLessThan(300);
  return { run, sent: t.sandbox.requests.slice(mark).filter(isBulkInvite).length };
}

describe("workbooks crafted to exhaust memory", () => {
  // Addresses of their own per test: the ledger of the shared config folder would skip rows sent before.
  const rows = (n: number, who: string, from = 2) =>
    Array.from(
      { length: n },
      (_, i) =>
        `<row r="${from + i}">${cell(`A${from + i}`, `${who}${i}@example.com`)}${cell(`B${from + i}`, `W ${i}`)}</row>`,
    ).join("");

  it("a workbook of a few rows made the same way is read and sent (the crafted ones below differ only in their trap)", async () => {
    const { run, sent } = await bulk("control", workbook(sheetXml(HEADER + rows(3, "control"))));
    expectClean(run, 0, KEY);
    expect(sent).toBe(1);
  });

  it("one cell at XFD1048576: refused before any row is built", async () => {
    const { run, sent } = await bulk(
      "xfd1048576",
      workbook(sheetXml(`${HEADER}<row r="1048576">${cell("XFD1048576", "x")}</row>`)),
    );
    expectClean(run, 2, KEY);
    expect(run.stderr).toMatch(
      /sheet "Sheet1" has more than 100,000 rows below its header \(row 1,048,576 found\)/,
    );
    expect(run.stderr).toContain("Export the sheet as CSV");
    expect(sent).toBe(0);
  });

  it("a used range of 1,000 rows × 16,384 columns (one cell at XFD1000): refused", async () => {
    const { run, sent } = await bulk(
      "xfd1000",
      workbook(sheetXml(`${HEADER}${rows(3, "range")}<row r="1000">${cell("XFD1000", "x")}</row>`)),
    );
    expectClean(run, 2, KEY);
    expect(run.stderr).toMatch(/uses a range of 1,000 rows × 16,384 columns \(up to XFD1000\)/);
    expect(sent).toBe(0);
  });

  it("an unused part of 500 MiB is never inflated: the sheet is read and sent", async () => {
    const { run, sent } = await bulk(
      "unused-500mib",
      workbook(sheetXml(HEADER + rows(3, "unused")), bomb("xl/media/junk.xml", 500)),
    );
    expectClean(run, 0, KEY);
    expect(sent).toBe(1);
  });

  it("a part whose directory declares 2 GiB: refused before it is inflated", async () => {
    const { run, sent } = await bulk(
      "declared-2gib",
      workbook(bomb("xl/worksheets/sheet1.xml", 2, 0x80000000)),
    );
    expectClean(run, 2, KEY);
    expect(run.stderr).toMatch(/its parts inflate to more than 64 MiB \(xl\/worksheets\/sheet1\.xml\)/);
    expect(sent).toBe(0);
  });

  it("a sheet that inflates to 2 GiB (its directory says 1 KB): refused at 64 MiB", async () => {
    const { run, sent } = await bulk("sheet-2gib", workbook(bomb("xl/worksheets/sheet1.xml", 2048, 1000)));
    expectClean(run, 2, KEY);
    expect(run.stderr).toMatch(/its parts inflate to more than 64 MiB \(xl\/worksheets\/sheet1\.xml\)/);
    expect(sent).toBe(0);
  });

  it("a shared string of 2 MiB used by 2,000 rows: refused naming the first cell holding it", async () => {
    const strings = part(
      "xl/sharedStrings.xml",
      `<?xml version="1.0"?><sst ${NS}><si><t>email</t></si><si><t>name</t></si><si><t>${"x".repeat(2 * MIB)}</t></si></sst>`,
    );
    const body = Array.from(
      { length: 2000 },
      (_, i) =>
        `<row r="${i + 2}">${cell(`A${i + 2}`, `s${i}@example.com`)}<c r="B${i + 2}" t="s"><v>2</v></c></row>`,
    ).join("");
    const header = '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>';
    const { run, sent } = await bulk("shared-2mib", workbook(sheetXml(header + body), strings));
    expectClean(run, 2, KEY);
    expect(run.stderr).toContain(
      'sheet "Sheet1", cell B2: 2,097,152 characters, more than the 4096 a cell may hold',
    );
    expect(sent).toBe(0);
  });

  it("a cell's text nested 9,000,000 elements deep (63 MiB of XML): refused as the scan passes 256", async () => {
    const depth = 9_000_000;
    const deep = `<row r="2"><c r="A2" t="inlineStr"><is>${"<r>".repeat(depth)}<t>a@example.com</t>${"</r>".repeat(depth)}</is></c></row>`;
    const { run, sent } = await bulk("nested-9m", workbook(sheetXml(HEADER + deep)));
    expectClean(run, 2, KEY);
    expect(run.stderr).toContain("its part xl/worksheets/sheet1.xml nests elements more than 256 deep");
    expect(sent).toBe(0);
  });

  it("shared strings nested 1,000,000 deep: refused naming the part", async () => {
    const depth = 1_000_000;
    const strings = part(
      "xl/sharedStrings.xml",
      `<?xml version="1.0"?><sst ${NS}><si>${"<r>".repeat(depth)}<t>x</t>${"</r>".repeat(depth)}</si></sst>`,
    );
    const { run, sent } = await bulk("nested-shared", workbook(sheetXml(HEADER), strings));
    expectClean(run, 2, KEY);
    expect(run.stderr).toContain("its part xl/sharedStrings.xml nests elements more than 256 deep");
    expect(sent).toBe(0);
  });

  it("1,048,576 rows: refused as the scan passes 100,001, not after reading them all", async () => {
    const row = `<row>${'<c t="inlineStr"><is><t>r@example.com</t></is></c>'.repeat(2)}</row>`;
    const block = Buffer.from(row.repeat(Math.floor(MIB / row.length)));
    const perBlock = Math.floor(MIB / row.length);
    const blocks = Math.ceil(1_048_576 / perBlock);
    const head = `<?xml version="1.0"?><worksheet ${NS}><sheetData>${HEADER}`;
    // Its directory says 1 KB: a size declared above 64 MiB is refused before anything is inflated.
    const sheet = bomb("xl/worksheets/sheet1.xml", blocks, 1000, block);
    // The head first: a stored piece of its own before the repeated rows (a deflate stream may mix blocks).
    const headPiece = deflateRawSync(Buffer.from(head), { finishFlush: constants.Z_FULL_FLUSH });
    sheet.data = Buffer.concat([headPiece, sheet.data]);
    const { run, sent } = await bulk("rows-1048576", workbook(sheet));
    expectClean(run, 2, KEY);
    expect(run.stderr).toMatch(/has more than 100,000 rows below its header \(row 100,002 found\)/);
    expect(sent).toBe(0);
  });
});

// ---- items 6, 7: answers of a small server ----

async function serve(routes: (method: string, path: string) => unknown): Promise<HostileServer> {
  return startHostileServer(({ req, res }) => {
    const body = routes(req.method ?? "", (req.url ?? "").split("?")[0]!);
    res.writeHead(body === undefined ? 404 : 200, { "content-type": "application/json" });
    res.end(JSON.stringify(body ?? { errors: ["not found"] }));
  });
}

describe("reports stats and .NET's minimum date, scores out of range", () => {
  it("table, TSV, CSV and JSON all finish; the per-day series is the period's; 1e308 and -1e300 are counted apart", async () => {
    const reports: Record<string, unknown> = {
      "1": {
        testInvitationId: 1,
        testId: 1001,
        completedOn: "0001-01-01T00:00:00",
        scorePercentage: 70,
        Status: "Complete",
      },
      "2": {
        testInvitationId: 2,
        testId: 1001,
        completedOn: "2026-10-05T10:00:00",
        scorePercentage: 1e308,
        Status: "Complete",
      },
      "3": {
        testInvitationId: 3,
        testId: 1001,
        completedOn: "2026-10-06T10:00:00",
        scorePercentage: -1e300,
        Status: "Complete",
      },
      "4": {
        testInvitationId: 4,
        testId: 1001,
        completedOn: "2026-10-07T10:00:00",
        scorePercentage: 50,
        Status: "Complete",
      },
    };
    const server = await serve((method, path) => {
      if (method === "POST" && path.endsWith("/v3/candidates/testattempts")) {
        return {
          result: {
            testAttempts: Object.keys(reports).map((id) => ({
              testInvitationId: Number(id),
              testId: 1001,
              teststatus: "Complete",
            })),
          },
        };
      }
      const id = /\/v3\/reports\/(\d+)$/.exec(path)?.[1];
      return id === undefined ? undefined : reports[id];
    });
    try {
      const env = {
        ASSESS_BASE_URL: server.url,
        ASSESS_API_KEY: KEY,
        ASSESS_CONFIG_DIR: tmp.file("stats-config"),
      };
      const period = ["--from", "2026-10-01", "--to", "2026-10-20", "--pass-mark", "60"];
      const json = await runCli(["reports", "stats", ...period, "--json"], { env });
      expectClean(json, 0, KEY);
      expect(json.stdout.length).toBeLessThan(10_000);
      const [stats] = JSON.parse(json.stdout) as Array<Record<string, unknown> & { perDay: unknown[] }>;
      expect(stats).toMatchObject({
        attempts: 4,
        scored: 2,
        outOfRange: 2,
        undated: 1,
        mean: 60,
        passed: 1,
        passRate: 0.5,
      });
      expect(stats!.perDay).toHaveLength(20);
      for (const format of ["table", "tsv", "csv"]) {
        const r = await runCli(["reports", "stats", ...period, "-o", format], { env });
        expectClean(r, 0, KEY);
        expect(r.stderr).not.toContain("Maximum call stack");
        expect(r.stdout).toMatch(format === "table" ? /2 scores out of range/ : /outOfRange/);
      }
    } finally {
      await server.close();
    }
  });
});

describe("stats rounding", () => {
  it("is the same in the table, TSV, JSON and help: 14 of 23 passed is passRate 0.61 and 61%", async () => {
    const ids = Array.from({ length: 23 }, (_, i) => i + 1);
    const server = await serve((method, path) => {
      if (method === "POST" && path.endsWith("/v3/candidates/testattempts")) {
        return {
          result: {
            testAttempts: ids.map((id) => ({ testInvitationId: id, testId: 1001, teststatus: "Complete" })),
          },
        };
      }
      const id = Number(/\/v3\/reports\/(\d+)$/.exec(path)?.[1]);
      return ids.includes(id)
        ? {
            testInvitationId: id,
            testId: 1001,
            completedOn: "2026-10-05T10:00:00",
            scorePercentage: id <= 14 ? 80 + id / 3 : 20,
          }
        : undefined;
    });
    try {
      const env = {
        ASSESS_BASE_URL: server.url,
        ASSESS_API_KEY: KEY,
        ASSESS_CONFIG_DIR: tmp.file("rounding-config"),
      };
      const period = ["--from", "2026-10-01", "--to", "2026-10-20", "--pass-mark", "60"];
      const json = await runCli(["reports", "stats", ...period, "--json"], { env });
      expectClean(json, 0, KEY);
      const [stats] = JSON.parse(json.stdout) as Array<{ passRate: number; mean: number }>;
      expect(stats!.passRate).toBe(0.61);
      const tsv = await runCli(["reports", "stats", ...period, "-o", "tsv"], { env });
      const [head, row] = tsv.stdout
        .trim()
        .split("\n")
        .map((line) => line.split("\t"));
      expect(row![head!.indexOf("passRate")]).toBe("0.61");
      expect(row![head!.indexOf("mean")]).toBe(String(stats!.mean));
      const table = await runCli(["reports", "stats", ...period, "-o", "table"], { env });
      expect(table.stdout).toContain("Pass rate  61% (14 of 23 scored 60 or more)");
      expect(table.stdout).toContain(`mean ${stats!.mean} `);
      const help = await runCli(["reports", "stats", "--help"], { env });
      expect(help.stdout).toContain("rounded to 2 decimals, the same in every format");
    } finally {
      await server.close();
    }
  });
});

describe("characters that reorder or hide text", () => {
  it("are escaped in table, TSV and CSV like control characters, and kept exact (escaped) in JSON", async () => {
    const name = "Java\u202e gnirts\u2066x\u2069\u200b\ufeff\u2028end";
    const server = await serve((method, path) =>
      method === "GET" && path.endsWith("/v3/tests")
        ? { tests: [{ testId: 1001, testName: name, status: "Active" }] }
        : undefined,
    );
    try {
      const env = {
        ASSESS_BASE_URL: server.url,
        ASSESS_API_KEY: KEY,
        ASSESS_CONFIG_DIR: tmp.file("bidi-config"),
      };
      for (const format of ["table", "tsv", "csv", "json"]) {
        const r = await runCli(["tests", "list", "-o", format], { env });
        expectClean(r, 0, KEY);
        expect(r.stdout).not.toMatch(/[\u202e\u2066\u2069\u200b\ufeff\u2028]/);
        expect(r.stdout).toContain("\\u202e");
        if (format === "json")
          expect((JSON.parse(r.stdout) as Array<{ testName: string }>)[0]!.testName).toBe(name);
      }
    } finally {
      await server.close();
    }
  });
});

describe("the rejects CSV", () => {
  it("escapes ESC and BEL from the cells it copies", async () => {
    const dir = tmp.file("rejects");
    mkdirSync(dir);
    const input = join(dir, "in.csv");
    writeFileSync(input, "email,name\nok@example.com,Ok\nnot-an-email\u001b[31m,Bell\u0007name\n");
    const r = await runBuilt(["invite", "bulk", input, "--test", "1001", "--skip-invalid"], t.env);
    expectClean(r, 0, KEY);
    const rejects = readFileSync(join(dir, "in.rejects.csv"), "utf8");
    expect(rejects.includes("\u001b") || rejects.includes("\u0007")).toBe(false);
    expect(rejects).toContain("not-an-email\\x1b[31m");
    expect(rejects).toContain("Bell\\x07name");
  });
});

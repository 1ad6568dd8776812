/**
 * `reports export --out x.xlsx` writes a workbook, through main(argv) against the sandbox, run in the scenario's
 * folder as a shell's current folder (test/helpers/shell.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import readXlsxFile from "read-excel-file/node";
import { describe, expect, it } from "vitest";
import { useScenarios } from "../helpers/cli.js";
import { runIn } from "../helpers/shell.js";

const t = useScenarios();
const { scenario } = t;

/** The parts of a ZIP archive by name, read through its central directory. */
function unzip(bytes: Buffer): Map<string, string> {
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = bytes.readUInt16LE(end + 10);
  const parts = new Map<string, string>();
  let at = bytes.readUInt32LE(end + 16);
  for (let i = 0; i < count; i++) {
    const method = bytes.readUInt16LE(at + 10);
    const size = bytes.readUInt32LE(at + 20);
    const [nameLength, extraLength, commentLength] = [28, 30, 32].map((o) => bytes.readUInt16LE(at + o));
    const local = bytes.readUInt32LE(at + 42);
    const name = bytes.toString("utf8", at + 46, at + 46 + nameLength!);
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    const data = bytes.subarray(start, start + size);
    parts.set(name, (method === 8 ? inflateRawSync(data) : data).toString("utf8"));
    at += 46 + nameLength! + extraLength! + commentLength!;
  }
  return parts;
}

describe("reports export --out x.xlsx writes a workbook", () => {
  it("a real .xlsx: its header row, numbers as numbers, one row per attempt", async () => {
    const { cwd, env } = scenario();
    const csv = await runIn(cwd, ["reports", "export", "--from", "10d", "--to", "now", "--json"], { env });
    const rows = csv.json<Array<{ testInvitationId: number; scorePercentage: number | null }>>();
    expect(rows.length).toBeGreaterThan(0);
    const r = await runIn(
      cwd,
      ["reports", "export", "--from", "10d", "--to", "now", "--out", "results.xlsx"],
      { env },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    const bytes = readFileSync(join(cwd, "results.xlsx"));
    expect(bytes.subarray(0, 2).toString("latin1")).toBe("PK");
    const [sheet] = await readXlsxFile(join(cwd, "results.xlsx"));
    const data = sheet!.data as unknown[][];
    expect(data[0]?.slice(0, 3)).toEqual(["Invitation ID", "Candidate", "Email"]);
    expect(data.length).toBe(rows.length + 1);
    expect(data.slice(1).map((row) => row[0])).toEqual(rows.map((row) => row.testInvitationId));
    const score = data[0]!.indexOf("Score %");
    expect(data.slice(1).map((row) => row[score] ?? null)).toEqual(rows.map((row) => row.scorePercentage));
  });

  it("dates are date cells, names starting with = are stored as they are, and the workbook has a default style", async () => {
    const { cwd, env } = scenario();
    const name = '=HYPERLINK("http://x.example","y")';
    const sent = await runIn(
      cwd,
      ["invite", "send", "--test", "1001", "--email", "eq@example.com", "--name", name, "--json"],
      { env },
    );
    expect(sent.code, sent.stderr).toBe(0);
    const { testInvitationId } = sent.json<{ testInvitationId: number }>();
    const done = await fetch(`${t.sandbox.url}/_sandbox/invitations/${testInvitationId}/complete`, {
      method: "POST",
    });
    expect(done.ok).toBe(true);
    const r = await runIn(cwd, ["reports", "export", "--from", "1d", "--to", "now", "--out", "r.xlsx"], {
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    const parts = unzip(readFileSync(join(cwd, "r.xlsx")));
    const sheet = parts.get("xl/worksheets/sheet1.xml")!;
    const shared = [...parts.get("xl/sharedStrings.xml")!.matchAll(/<t[^>]*>([^<]*)<\/t>/g)].map((m) => m[1]);
    // The name is one shared string, as given: no apostrophe, no formula.
    expect(shared).toContain(name);
    expect(shared.filter((text) => text!.includes("HYPERLINK"))).toHaveLength(1);
    expect(sheet).not.toContain("<f>");
    // "Attempted on" is a number cell (no t="s") styled with a date format.
    const styles = parts.get("xl/styles.xml")!;
    const header = shared.indexOf("Attempted on");
    const column = [...sheet.matchAll(/<c r="([A-Z]+)1"[^>]*t="s"[^>]*><v>(\d+)<\/v>/g)].find(
      (m) => Number(m[2]) === header,
    )![1];
    const cells = [...sheet.matchAll(new RegExp(`<c r="${column}(\\d+)"([^>]*)>`, "g"))].filter(
      (m) => m[1] !== "1",
    );
    expect(cells.length).toBeGreaterThan(0);
    const formats = [...styles.matchAll(/<numFmt numFmtId="(\d+)" formatCode="([^"]*)"/g)];
    const xfs = [...styles.matchAll(/<xf [^>]*>/g)].map((m) => m[0]);
    const cellXfs = styles.slice(styles.indexOf("<cellXfs")).match(/<xf [^>]*>/g)!;
    for (const [, , attributes] of cells) {
      expect(attributes).not.toContain('t="s"');
      const style = Number(/ s="(\d+)"/.exec(attributes!)?.[1]);
      const formatId = /numFmtId="(\d+)"/.exec(cellXfs[style]!)?.[1];
      expect(formats.find((f) => f[1] === formatId)?.[2]).toBe("yyyy-mm-dd hh:mm:ss");
    }
    expect(xfs.length).toBeGreaterThan(cellXfs.length);
    // A default style: openpyxl warns "Workbook contains no default style" without the Normal cell style.
    expect(styles).toMatch(/<cellStyleXfs count="1"><xf [^>]*\/><\/cellStyleXfs>/);
    expect(styles).toMatch(
      /<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"\/><\/cellStyles>/,
    );
    const [read] = await readXlsxFile(join(cwd, "r.xlsx"));
    const row = (read!.data as unknown[][]).find((cells) => cells.includes(name))!;
    expect(row[(read!.data[0] as unknown[]).indexOf("Attempted on")]).toBeInstanceOf(Date);
  });

  it("other spreadsheet names, and -o csv with .xlsx, are refused before any request (exit 2)", async () => {
    const { cwd, env } = scenario();
    const mark = t.sandbox.requests.length;
    const xls = await runIn(cwd, ["reports", "export", "--from", "10d", "--to", "now", "--out", "r.xls"], {
      env,
    });
    expect(xls.code).toBe(2);
    expect(xls.stderr).toContain("error: --out r.xls: assess writes no .xls files");
    const asCsv = await runIn(
      cwd,
      ["reports", "export", "--from", "10d", "--to", "now", "--out", "r.xlsx", "-o", "csv"],
      { env },
    );
    expect(asCsv.code).toBe(2);
    expect(asCsv.stderr).toContain(
      "error: --out r.xlsx names an Excel workbook, but -o csv asks for csv text",
    );
    expect(t.sandbox.requests.slice(mark)).toEqual([]);
    expect(readdirSync(cwd).filter((f) => f !== ".config")).toEqual([]);
  });
});

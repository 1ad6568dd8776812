/**
 * `reports export --out x.xlsx`: the rows as one sheet of a workbook (loaded only for this, from export.ts).
 * Numbers stay numbers; text stays text, so a cell is never read as a formula; the header row is bold.
 */
import writeXlsxFile, { type Cell } from "write-excel-file/node";
import { jsonText } from "../../escape.js";
import { type Column, cellValue, type Row } from "../../output/output.js";

/** Excel's limit on a cell's text. */
const MAX_CELL_CHARS = 32_767;

export async function workbookBytes(rows: Row[], columns: Column[]): Promise<Buffer> {
  const header: Cell[] = columns.map((c) => ({ value: c.header ?? c.key, fontWeight: "bold" }));
  const data = [header, ...rows.map((row) => columns.map((c) => cell(cellValue(c, row))))];
  return writeXlsxFile(data, { sheet: "Attempts", stickyRowsCount: 1 }).toBuffer();
}

function cell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === "number") return Number.isFinite(value) ? { type: Number, value } : String(value);
  if (typeof value === "boolean") return { type: Boolean, value };
  const text = typeof value === "string" ? value : jsonText(value, 0);
  return { type: String, value: text.slice(0, MAX_CELL_CHARS) };
}

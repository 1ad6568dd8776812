/**
 * `reports export --out x.xlsx`: the rows as one sheet of a workbook (loaded only for this, from export.ts).
 * Numbers stay numbers and dates are date cells; text stays text as given: a workbook's text cell is never
 * read as a formula, so it needs none of CSV's quote; the header row is bold.
 */
import type { Blob } from "node:buffer";
import type { Stream } from "node:stream";
import writeXlsxFile, { type Cell, type Feature } from "write-excel-file/node";
import { jsonText } from "../../escape.js";
import { type Column, cellValue, type Row } from "../../output/output.js";
import { parseDate } from "../../parse/dates.js";

/** Excel's limit on a cell's text. */
const MAX_CELL_CHARS = 32_767;

/** A date cell's format: the times are UTC, as everything assess reads and writes. */
const DATE_FORMAT = "yyyy-mm-dd hh:mm:ss";

/** A day, or a time to the second with or without its offset (the report's attemptedOn has none: UTC). */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * The cell style named Normal that spreadsheet programs expect to find: without it openpyxl warns "Workbook
 * contains no default style" on every read. Its record goes before the cells' styles, its name after them.
 */
const DEFAULT_STYLE: Feature<Stream | Buffer | Blob> = {
  files: {
    transform: {
      "xl/styles.xml": {
        transform: (xml) =>
          xml
            .replace(
              "<cellXfs",
              '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs',
            )
            .replace(
              "</cellXfs>",
              '</cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>',
            ),
      },
    },
  },
};

/** `dates`: the keys of the columns that hold dates. */
export async function workbookBytes(
  rows: Row[],
  columns: Column[],
  dates: ReadonlySet<string>,
): Promise<Buffer> {
  const header: Cell[] = columns.map((c) => ({ value: c.header ?? c.key, fontWeight: "bold" }));
  const data = [header, ...rows.map((row) => columns.map((c) => cell(cellValue(c, row), dates.has(c.key))))];
  return writeXlsxFile(
    data,
    { sheet: "Attempts", stickyRowsCount: 1 },
    { features: [DEFAULT_STYLE] },
  ).toBuffer();
}

function cell(value: unknown, date: boolean): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === "number") return Number.isFinite(value) ? { type: Number, value } : String(value);
  if (typeof value === "boolean") return { type: Boolean, value };
  const text = typeof value === "string" ? value : jsonText(value, 0);
  const when = date && ISO_DATE.test(text.trim()) ? dateOf(text) : undefined;
  if (when) return { type: Date, value: when, format: DATE_FORMAT };
  return { type: String, value: text.slice(0, MAX_CELL_CHARS) };
}

/** The date a text names, or undefined (then it stays text, as the service sent it). */
function dateOf(text: string): Date | undefined {
  try {
    return parseDate(text, "start", "date");
  } catch {
    return undefined;
  }
}

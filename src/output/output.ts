import type { Writable } from "node:stream";
import { UsageError } from "../errors.js";
import { escapeControls, jsonText } from "../escape.js";
import { fold } from "../fields.js";
import { cellText, type Format, getPath, neutralizeFormula } from "./format.js";
import { isClosed } from "./pipe.js";
import { plainStyle, type Style } from "./style.js";
import { isWhole, layoutTable } from "./table.js";

export type Row = Record<string, unknown>;

export interface Column {
  /** Name used by `--fields`; also the record path read when `get` is absent. */
  key: string;
  header?: string;
  get?: (row: Row) => unknown;
  /** Shown after a number in tables (`60 min`); tsv, csv and json keep the number alone. */
  unit?: string;
}

export interface OutputOptions {
  format: Format;
  fields?: string[];
  color: boolean;
  /** Colours for stdout (plain unless stdout is a terminal, and when omitted). */
  style?: Style;
  /** Terminal width, to keep tables readable. */
  width?: number;
}

/**
 * Renders records to stdout in the chosen format. Lists may arrive as pages (async iterable):
 * ndjson, tsv and csv stream them; table and json wait for the whole list.
 */
export class Output {
  constructor(
    private readonly stdout: Writable,
    readonly options: OutputOptions,
  ) {}

  get style(): Style {
    return this.options.style ?? plainStyle;
  }

  get format(): Format {
    return this.options.format;
  }

  get isJson(): boolean {
    return this.options.format === "json" || this.options.format === "ndjson";
  }

  /**
   * Whether stdout's reader went away (`| head -2`, src/output/pipe.ts): from then on every write is dropped,
   * and a list stops asking for pages.
   */
  get closed(): boolean {
    return isClosed(this.stdout);
  }

  /** Text the CLI composed, as it is: values from the service in it must go through escapeControls first. */
  write(text: string): void {
    if (!this.closed) this.stdout.write(text);
  }

  /** A list of records. Returns how many were written. */
  async list(
    source: Iterable<Row[]> | AsyncIterable<Row[]> | Row[],
    columns: Column[],
    limit?: number,
  ): Promise<number> {
    const pages = Array.isArray(source) && !Array.isArray(source[0]) ? [source as Row[]] : source;
    const collected: Row[] = [];
    let count = 0;
    let chosen: Column[] | undefined;
    for await (const page of pages as AsyncIterable<Row[]>) {
      for (const row of page) {
        if ((limit !== undefined && count >= limit) || this.closed) break;
        if (!chosen) {
          chosen = this.columns(columns, row);
          if (this.format === "tsv" || this.format === "csv")
            this.writeLine(chosen.map((c) => c.header ?? c.key));
        }
        count++;
        switch (this.format) {
          case "ndjson":
            this.write(`${jsonText(this.project(row, chosen))}\n`);
            break;
          case "tsv":
          case "csv":
            this.writeLine(chosen.map((c) => cellText(cellValue(c, row))));
            break;
          default:
            collected.push(row);
        }
      }
      if ((limit !== undefined && count >= limit) || this.closed) break;
    }
    if (this.format === "json") {
      const cols = chosen ?? columns;
      this.write(
        `${jsonText(
          collected.map((row) => this.project(row, cols)),
          2,
        )}\n`,
      );
    } else if (this.format === "table") {
      if (collected.length > 0) await this.table(chosen ?? columns, collected);
    } else if (!chosen && (this.format === "tsv" || this.format === "csv")) {
      this.writeLine(this.columns(columns, undefined).map((c) => c.header ?? c.key));
    }
    return count;
  }

  /** One record: a two-column table on a terminal, the object itself in JSON. */
  async record(row: Row, columns?: Column[]): Promise<void> {
    if (this.format === "table" && !this.options.fields) {
      const cols: Column[] = columns ?? Object.keys(row).map((key) => ({ key }));
      const { default: Table } = await import("cli-table3");
      const table = new Table({ style: this.tableStyle() });
      const labels = cols.map((column) => tableText(column.header ?? column.key));
      const values = cols.map((column) => tableCell(column, row));
      // The values get what the labels leave of the terminal; a link or an e-mail too long for that is not
      // cut but printed whole below the table.
      const valueWidth = Math.max(
        12,
        (this.options.width ?? 120) - Math.max(0, ...labels.map((l) => l.length)) - 7,
      );
      const below: number[] = [];
      values.forEach((value, i) => {
        if (value.length > valueWidth && isWhole(value)) below.push(i);
        else table.push({ [this.bold(labels[i] ?? "")]: truncate(value, valueWidth) });
      });
      if (table.length > 0) this.write(`${table.toString()}\n`);
      for (const i of below) this.write(`${this.bold(labels[i] ?? "")}\n${values[i]}\n`);
      return;
    }
    if (this.format === "json") {
      const value = this.options.fields ? this.project(row, this.columns(columns ?? [], row)) : row;
      this.write(`${jsonText(value, 2)}\n`);
      return;
    }
    await this.list([row], columns ?? Object.keys(row).map((key) => ({ key })));
  }

  /**
   * One record holding a list (a test's or report's sections): on a terminal the record, then the list as its
   * own table; in every other format the record as it is.
   */
  async recordWithList(
    row: Row,
    listKey: string,
    columns: Column[],
    recordColumns?: Column[],
  ): Promise<void> {
    if (this.format !== "table" || this.options.fields) return this.record(row);
    const { [listKey]: list, ...summary } = row;
    // The record's own columns first, then any other field the service sent, so that nothing is hidden.
    const own = (recordColumns ?? []).filter((c) => cellValue(c, summary) !== undefined);
    const named = new Set(own.map((c) => fold(c.key)));
    const rest = Object.keys(summary).filter((key) => !named.has(fold(key)));
    await this.record(summary, [...own, ...rest.map((key) => ({ key }))]);
    if (Array.isArray(list) && list.length > 0) await this.list(list as Row[], columns);
  }

  /** Any JSON value, as the service sent it (`--json` of commands whose answer is not a record list). */
  json(value: unknown): void {
    this.write(`${jsonText(value, this.format === "ndjson" ? 0 : 2)}\n`);
  }

  /**
   * The columns `--fields` asks for, each named as asked: a column's key (`teststatus`), its header (`status`,
   * `test link`, in any casing), or any field of the records (a dotted path reaches nested ones).
   */
  columns(defaults: Column[], sample: Row | undefined): Column[] {
    const fields = this.options.fields;
    if (!fields) return defaults;
    const named = (f: string) =>
      defaults.find((c) => fold(c.key) === fold(f)) ??
      defaults.find((c) => c.header !== undefined && fold(c.header) === fold(f));
    const unknown = fields.filter(
      (f) => !named(f) && (sample === undefined || getPath(sample, f) === undefined),
    );
    if (unknown.length > 0) {
      const available = [...new Set([...defaults.map((c) => c.key), ...Object.keys(sample ?? {})])];
      throw new UsageError(
        `Unknown field${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}`,
        `Available fields: ${available.join(", ")} (or a column's header, such as ${defaults[0]?.header?.toLowerCase() ?? "name"})`,
      );
    }
    return fields.map((f) => ({ ...(named(f) ?? { key: f }), header: f }));
  }

  /** With --fields, JSON output keeps only those fields; otherwise the record as the service sent it. */
  private project(row: Row, columns: Column[]): unknown {
    if (!this.options.fields) return row;
    return Object.fromEntries(columns.map((c) => [c.header ?? c.key, cellValue(c, row) ?? null]));
  }

  /**
   * One tsv or csv line. TSV escapes every control character, tab and line breaks included (they separate
   * cells and rows); CSV keeps those inside quoted cells, as RFC 4180 allows, and escapes the others.
   */
  private writeLine(cells: string[]): void {
    const line =
      this.format === "csv"
        ? cells.map((cell) => csvCell(neutralizeFormula(escapeControls(cell, "\t\r\n")))).join(",")
        : cells.map((cell) => escapeControls(cell)).join("\t");
    this.write(`${line}${this.format === "csv" ? "\r\n" : "\n"}`);
  }

  /**
   * A table that fits the terminal (src/output/table.ts): links and e-mails whole, other columns narrowed or
   * left out first; links that cannot fit follow the table, one line per row, after the row's first cell.
   */
  private async table(columns: Column[], rows: Row[]): Promise<void> {
    const { default: Table } = await import("cli-table3");
    const headers = columns.map((c) => tableText(c.header ?? c.key));
    const cells = rows.map((row) => columns.map((c) => tableCell(c, row)));
    const { shown, widths, below } = layoutTable(headers, cells, this.options.width ?? 120);
    if (shown.length > 0) {
      const table = new Table({
        head: shown.map((i) => this.bold(headers[i] ?? "")),
        style: this.tableStyle(),
      });
      for (const row of cells) table.push(shown.map((i, n) => truncate(row[i] ?? "", widths[n] ?? 0)));
      this.write(`${table.toString()}\n`);
    }
    const names = shown[0] === 0 ? cells.map((row) => row[0] ?? "") : undefined;
    const nameWidth = Math.max(0, ...(names ?? []).map((name) => name.length));
    for (const i of below) {
      this.write(`${this.bold(headers[i] ?? "")}\n`);
      cells.forEach((row, r) => {
        const value = row[i];
        if (!value) return;
        const name = names ? (names[r] ?? "").padEnd(nameWidth) : "";
        // The row's name before its link when both fit the line, else on a line of its own above it.
        if (!names) this.write(`${value}\n`);
        else if (name.length + 2 + value.length <= (this.options.width ?? 120))
          this.write(`${name}  ${value}\n`);
        else this.write(`${name.trimEnd()}\n${value}\n`);
      });
    }
  }

  /**
   * Light tables, as gh's: a rule under the header and none between rows (`compact`), so a long list reads as
   * lines, not as a grid.
   */
  private tableStyle() {
    return { head: [], border: this.options.color ? ["grey"] : [], compact: true };
  }

  private bold(text: string): string {
    return this.style.bold(text);
  }
}

/** A row's value in a column, as every format reads it. */
export function cellValue(column: Column, row: Row): unknown {
  return column.get ? column.get(row) : getPath(row, column.key);
}

/** A cell as a table shows it: one line, controls escaped, a number followed by its column's unit. */
function tableCell(column: Column, row: Row): string {
  const value = cellValue(column, row);
  const text = tableText(cellText(value));
  return column.unit && text !== "" && Number.isFinite(Number(value)) ? `${text} ${column.unit}` : text;
}

/**
 * A table cell's text: a line break (with the blanks around it) becomes one space, any other control
 * character a visible escape, so a cell cut by `…` can never leave an escape sequence open.
 */
function tableText(text: string): string {
  return escapeControls(text.replace(/\s*\n\s*/g, " "));
}

/** `text` (already through tableText) cut to `width` characters, the last one an ellipsis. */
function truncate(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

function csvCell(cell: string): string {
  return /[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

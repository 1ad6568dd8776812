import type { Writable } from "node:stream";
import { largest } from "../arrays.js";
import { UsageError } from "../errors.js";
import { escapeControls, jsonText } from "../escape.js";
import { fold } from "../fields.js";
import { cellText, type Format, getPath, neutralizeFormula } from "./format.js";
import { isClosed } from "./pipe.js";
import { plainStyle, type Style } from "./style.js";

export type Row = Record<string, unknown>;

export interface Column {
  /** Name used by `--fields`; also the record path read when `get` is absent. */
  key: string;
  /** The column's name in every format; absent, tables say headerOf(key), the others the key. */
  header?: string;
  get?: (row: Row) => unknown;
  /** Shown after a number in tables (`60 min`); tsv, csv and json keep the number alone. */
  unit?: string;
  /** Prose (a plan's DETAIL): in a table too narrow for it, wrapped within its cell at blanks, never cut. */
  prose?: boolean;
}

/** Renders records to stdout. Lists may come as pages: ndjson, tsv and csv stream them; table and json wait. */
export class Output {
  constructor(
    private readonly stdout: Writable,
    readonly options: { format: Format; fields?: string[]; color: boolean; style?: Style; width?: number },
  ) {}

  get style(): Style {
    return this.options.style ?? plainStyle;
  }

  get format(): Format {
    return this.options.format;
  }

  get isJson(): boolean {
    return this.format === "json" || this.format === "ndjson";
  }

  /** Whether stdout's reader went away (`| head -2`, ./pipe.ts): every later write is dropped. */
  get closed(): boolean {
    return isClosed(this.stdout);
  }

  /** Text the CLI composed, as it is: values from the service in it must go through escapeControls first. */
  write(text: string): void {
    if (!this.closed) this.stdout.write(text);
  }

  /** Returns how many records were written. */
  async list(
    source: Iterable<Row[]> | AsyncIterable<Row[]> | Row[],
    columns: Column[],
    limit?: number,
  ): Promise<number> {
    const pages = Array.isArray(source) && !Array.isArray(source[0]) ? [source as Row[]] : source;
    const lines = this.format === "tsv" || this.format === "csv";
    const collected: Row[] = [];
    let count = 0;
    let chosen: Column[] | undefined;
    const stop = () => (limit !== undefined && count >= limit) || this.closed;
    for await (const page of pages as AsyncIterable<Row[]>) {
      for (const row of page) {
        if (stop()) break;
        if (!chosen) {
          chosen = this.columns(columns, row);
          if (lines) this.writeLine(chosen.map((c) => c.header ?? c.key));
        }
        count++;
        if (this.format === "ndjson") this.write(`${jsonText(this.project(row, chosen))}\n`);
        else if (lines) this.writeLine(chosen.map((c) => cellText(cellValue(c, row))));
        else collected.push(row);
      }
      if (stop()) break;
    }
    const cols = chosen ?? columns;
    if (this.format === "json") this.json(collected.map((row) => this.project(row, cols)));
    else if (this.format === "table" && collected.length > 0) await this.table(cols, collected);
    else if (lines && !chosen) this.writeLine(this.columns(columns, undefined).map((c) => c.header ?? c.key));
    return count;
  }

  /** One record: a two-column table on a terminal, the object itself in JSON. */
  async record(row: Row, columns?: Column[]): Promise<void> {
    if (this.format === "json") return this.json(this.project(row, this.columns(columns ?? [], row)));
    const cols: Column[] = columns ?? Object.keys(row).map((key) => ({ key }));
    if (this.format !== "table" || this.options.fields) {
      await this.list([row], cols);
      return;
    }
    const [{ default: Table }, { isWhole, truncate, width }] = await tableCode();
    const table = new Table({ style: this.tableStyle() });
    const labels = cols.map((column) => tableText(column.header ?? headerOf(column.key)));
    const values = cols.map((column) => tableCell(column, row));
    // The values get what the labels leave; a link or an e-mail too long for that is printed whole below.
    const labelWidth = largest(labels.map(width));
    const valueWidth = Math.max(12, (this.options.width ?? 120) - labelWidth - 7);
    const below: number[] = [];
    values.forEach((value, i) => {
      if (width(value) > valueWidth && isWhole(value)) below.push(i);
      else table.push({ [this.style.bold(labels[i] ?? "")]: truncate(value, valueWidth) });
    });
    if (table.length > 0) this.write(`${table.toString()}\n`);
    for (const i of below) this.write(`${this.style.bold(labels[i] ?? "")}\n${values[i]}\n`);
  }

  /** A record holding a list (a test's sections): on a terminal the record, then the list as a table. */
  async recordWithList(
    row: Row,
    listKey: string,
    columns: Column[],
    recordColumns?: Column[],
  ): Promise<void> {
    if (this.format !== "table" || this.options.fields) return this.record(row);
    const { [listKey]: list, ...summary } = row;
    await this.record(summary, everyField(summary, recordColumns ?? []));
    if (Array.isArray(list) && list.length > 0) await this.list(list as Row[], columns);
  }

  /** Any JSON value, as the service sent it. */
  json(value: unknown): void {
    this.write(`${jsonText(value, this.format === "ndjson" ? 0 : 2)}\n`);
  }

  /** The columns `--fields` asks for, by a column's key or header (any casing), or any (dotted) field. */
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

  private project(row: Row, columns: Column[]): unknown {
    if (!this.options.fields) return row;
    return Object.fromEntries(columns.map((c) => [c.header ?? c.key, cellValue(c, row) ?? null]));
  }

  /** TSV escapes every control character (tabs and line breaks separate cells and rows); CSV quotes them. */
  private writeLine(cells: string[]): void {
    const line = this.format === "csv" ? csvRow(cells) : cells.map((cell) => escapeControls(cell)).join("\t");
    this.write(`${line}${this.format === "csv" ? "\r\n" : "\n"}`);
  }

  /**
   * A table that fits the terminal (./table.ts); links that cannot fit follow it, one line per row, after the
   * row's first cell when both fit the line, else on a line of their own below it.
   */
  private async table(columns: Column[], rows: Row[]): Promise<void> {
    const [{ default: Table }, { layoutTable, truncate, width: columnsOf, wrapCell }] = await tableCode();
    const width = this.options.width ?? 120;
    const headers = columns.map((c) => tableText(c.header ?? headerOf(c.key)));
    const cells = rows.map((row) => columns.map((c) => tableCell(c, row)));
    const prose = columns.map((c) => c.prose === true);
    const { shown, widths, below } = layoutTable(headers, cells, width, prose);
    if (shown.length > 0) {
      const head = shown.map((i) => this.style.bold(headers[i] ?? ""));
      const table = new Table({ head, style: this.tableStyle() });
      const shape = (text: string, i: number, n: number) =>
        prose[i] ? wrapCell(text, widths[n] ?? 0) : truncate(text, widths[n] ?? 0);
      for (const row of cells) table.push(shown.map((i, n) => shape(row[i] ?? "", i, n)));
      this.write(`${table.toString()}\n`);
    }
    const names = shown[0] === 0 ? cells.map((row) => row[0] ?? "") : undefined;
    const nameWidth = largest((names ?? []).map(columnsOf));
    for (const i of below) {
      this.write(`${this.style.bold(headers[i] ?? "")}\n`);
      cells.forEach((row, r) => {
        const value = row[i];
        if (!value) return;
        const name = names?.[r] ?? "";
        const padded = name + " ".repeat(nameWidth - columnsOf(name));
        if (!names) this.write(`${value}\n`);
        else if (nameWidth + 2 + columnsOf(value) <= width) this.write(`${padded}  ${value}\n`);
        else this.write(`${name.trimEnd()}\n${value}\n`);
      });
    }
  }

  /** Light tables, as gh's: no rule between rows. */
  private tableStyle() {
    return { head: [], border: this.options.color ? ["grey"] : [], compact: true };
  }
}

/** The `columns` a record has a value for, then a column of each other field it has, so that nothing is hidden. */
export function everyField(row: Row, columns: Column[]): Column[] {
  const own = columns.filter((c) => cellValue(c, row) !== undefined);
  const named = new Set(own.map((c) => fold(c.key)));
  const rest = Object.keys(row).filter((key) => !named.has(fold(key)));
  return [...own, ...rest.map((key) => ({ key }))];
}

/** A field's name as a table heads it, as the declared headers are: `completedOn` → `COMPLETED ON`, `Total_Score` → `TOTAL SCORE`. */
export function headerOf(key: string): string {
  return key
    .replace(/([a-z\d])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim()
    .toUpperCase();
}

export function cellValue(column: Column, row: Row): unknown {
  return column.get ? column.get(row) : getPath(row, column.key);
}

function tableCell(column: Column, row: Row): string {
  const value = cellValue(column, row);
  const text = tableText(cellText(value));
  return column.unit && text !== "" && Number.isFinite(Number(value)) ? `${text} ${column.unit}` : text;
}

/** A line break (with the blanks around it) becomes one space, so a cell cut by `…` leaves no escape open. */
function tableText(text: string): string {
  return escapeControls(text.replace(/\s*\n\s*/g, " "));
}

/** What a table takes, loaded when one is drawn: cli-table3, and the layout measuring by string-width. */
function tableCode() {
  return Promise.all([import("cli-table3"), import("./table.js")]);
}

/** A CSV line of cells (no line end), each neutralised against formulas and quoted where needed, as `-o csv`'s. */
export function csvRow(cells: readonly string[]): string {
  return cells.map((cell) => csvCell(neutralizeFormula(escapeControls(cell, "\t\r\n")))).join(",");
}

function csvCell(cell: string): string {
  return /[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

/**
 * Rejects files: the rows a run did not get through, as the user wrote them plus an `error` column, so the
 * file can be fixed and fed back in (`error` is ignored on input). CSV input gives a CSV with the same
 * header and delimiter; JSON input gives a JSON array of the original items with an `error` property.
 *
 * A sheet of a workbook gives a CSV file too (comma-delimited, its header row's cells as the header), which can
 * be fed back in as it is, or copied into the workbook.
 *
 * People open it in a spreadsheet or a terminal to fix the rows, so its cells are neutralised and their control
 * characters escaped as `-o csv`'s are (output/format.ts `neutralizeFormula`, escape.ts), and a rejects file read back in has that quote taken off again
 * (`fromRejectsFile`). It is checked before anything is sent (`rejectsTarget`: no file or link clobbered
 * without --force) and written under a temporary name, moved into place when the run ends (files.ts).
 */
import { lstatSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import { CliError, UsageError } from "../../errors.js";
import { escapeControls, jsonText } from "../../escape.js";
import { AtomicFile, checkTarget } from "../../files.js";
import { neutralizeFormula } from "../../output/format.js";
import type { RejectsSink } from "../engine/types.js";
import { normalizeHeader } from "./columns.js";
import type { CsvInput } from "./csv.js";

/** `candidates.csv` → `candidates.rejects.csv`, beside the input. */
export function defaultRejectsPath(input: string, extension = extname(input) || ".csv"): string {
  const base = basename(input, extname(input));
  return join(dirname(input), `${base}.rejects${extension}`);
}

/** Where a run's rejected rows go: `path`, unless they are byte for byte one of the `earlier` files. */
export interface RejectsTarget {
  path: string;
  /** The earlier runs' default rejects files that `path` was numbered past (`candidates.rejects.csv`, …). */
  earlier: string[];
}

/**
 * Where the rejected rows go, checked before anything is sent (dry runs write none and check nothing):
 * - `--rejects FILE`: that file; its folder must exist, and nothing may be there yet (a file of an earlier run
 *   that someone may be fixing, or a link) unless `force`;
 * - otherwise beside the input, `candidates.rejects.csv`; when an earlier run's file (or anything) is there, the
 *   next free `candidates.rejects-2.csv`, … so a rerun is never stopped and never overwrites (`force` reuses
 *   the first name). A rerun whose rejected rows are those of an earlier file writes no copy: the summary
 *   names that file (`earlier`).
 * Never the input itself.
 */
export function rejectsTarget(
  input: string,
  option: unknown,
  { force, dryRun, extension }: { force: boolean; dryRun: boolean; extension?: string },
): RejectsTarget {
  const given = typeof option === "string" && option !== "";
  let path = given ? option : defaultRejectsPath(input, extension);
  const earlier: string[] = [];
  if (!given && !force) {
    const ext = extname(path);
    const stem = path.slice(0, path.length - ext.length);
    for (let n = 2; taken(path) && n < 1000; n++) {
      earlier.push(path);
      path = `${stem}-${n}${ext}`;
    }
  }
  if (resolve(path) === resolve(input)) {
    throw new UsageError(
      `--rejects ${path} is the input file itself`,
      "Choose another file for the rejected rows.",
    );
  }
  if (!dryRun) checkTarget(path, { option: "--rejects", force, what: "The rejects file" });
  return { path, earlier };
}

/** Something (a file, a folder, a link, even a dangling one) is at `path`. */
function taken(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A cell as a rejects file wrote it, back as the input had it: `neutralizeFormula`'s quote taken off. */
export function restoreCell(cell: string): string {
  return cell.charCodeAt(0) === 0x27 && neutralizeFormula(cell.slice(1)) === cell ? cell.slice(1) : cell;
}

/** A CSV input whose header has a rejects file's `error` column: its cells read back with `restoreCell`. */
export function fromRejectsFile(input: CsvInput): CsvInput {
  if (!input.header.some((cell) => normalizeHeader(cell) === "error")) return input;
  return {
    ...input,
    async *batches(range, end) {
      for await (const batch of input.batches(range, end)) {
        for (const record of batch) record.fields = record.fields.map(restoreCell);
        yield batch;
      }
    },
  };
}

/**
 * Buffered synchronous writes: rows are written in the order they are reported, with no backpressure to
 * manage. They go to a temporary file beside the target, moved into place by `finish`.
 */
class FileSink {
  private readonly file: AtomicFile;
  private buffer = "";
  /** The target's path, or after `finish` the earlier file that holds the same rows. */
  path: string;
  private readonly earlier: string[];

  constructor(target: RejectsTarget, force: boolean) {
    const { path } = target;
    this.path = path;
    this.earlier = target.earlier;
    try {
      this.file = new AtomicFile(path, force);
    } catch (error) {
      throw new CliError(
        `Cannot write the rejects file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
        { suggestion: "Check that its folder is writable; the summary lists the rows it would hold." },
      );
    }
  }

  protected put(text: string): void {
    this.buffer += text;
    if (this.buffer.length > 64 * 1024) this.flush();
  }

  protected flush(): void {
    if (this.buffer.length === 0) return;
    this.file.write(this.buffer);
    this.buffer = "";
  }

  protected finish(): void {
    this.flush();
    const same = this.earlier.find((path) => this.file.sameAs(path));
    if (same === undefined) {
      this.file.commit();
    } else {
      this.file.discard();
      this.path = same;
    }
  }
}

export class CsvRejects extends FileSink implements RejectsSink {
  /** Columns copied over: all but an `error` column of an earlier rejects file (it gets a fresh one). */
  private readonly keep: number[];

  constructor(
    target: RejectsTarget,
    header: string[],
    private readonly delimiter: string,
    force = false,
    /** What the error column calls a row's place: its `line` in a CSV file, its `row` in a sheet. */
    private readonly unit: "line" | "row" = "line",
  ) {
    super(target, force);
    this.keep = header.flatMap((cell, i) => (normalizeHeader(cell) === "error" ? [] : [i]));
    this.put(this.line([...this.keep.map((i) => header[i]!), "error"]));
  }

  write(source: unknown, line: number, error: string): void {
    const fields = Array.isArray(source) ? (source as string[]) : [];
    this.put(this.line([...this.keep.map((i) => fields[i] ?? ""), `${this.unit} ${line}: ${error}`]));
  }

  async close(): Promise<void> {
    this.finish();
  }

  private line(cells: string[]): string {
    const d = this.delimiter;
    return `${cells
      .map((text) => {
        // As `-o csv` writes cells: controls escaped (ESC, BEL), line breaks and tabs kept inside quotes.
        const cell = neutralizeFormula(escapeControls(text, "\t\r\n"));
        return needsQuotes(cell, d) ? `"${cell.replaceAll('"', '""')}"` : cell;
      })
      .join(d)}\r\n`;
  }
}

function needsQuotes(cell: string, delimiter: string): boolean {
  return (
    cell.includes(delimiter) ||
    cell.includes('"') ||
    cell.includes("\n") ||
    cell.includes("\r") ||
    /^\s|\s$/.test(cell)
  );
}

export class JsonRejects extends FileSink implements RejectsSink {
  private count = 0;

  constructor(target: RejectsTarget, force = false) {
    super(target, force);
    this.put("[\n");
  }

  write(source: unknown, line: number, error: string): void {
    const item =
      source && typeof source === "object" && !Array.isArray(source)
        ? { ...(source as Record<string, unknown>), error: `line ${line}: ${error}` }
        : { value: source ?? null, error: `line ${line}: ${error}` };
    this.put(`${this.count++ > 0 ? ",\n" : ""}  ${jsonText(item)}`);
  }

  async close(): Promise<void> {
    this.put("\n]\n");
    this.finish();
  }
}

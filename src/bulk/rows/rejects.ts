/**
 * Rejects files: the rows a run did not get through, as written plus an `error` column, to be fixed and fed
 * back in. CSV and sheet input give CSV (a sheet's comma-delimited), JSON input a JSON array. Cells are
 * neutralised and escaped as `-o csv`'s are, and read back without that quote (`fromRejectsFile`). Checked
 * before anything is sent, written under a temporary name and moved into place when the run ends.
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

/** Where a run's rejected rows go: `path`, unless they are byte for byte one of the `earlier` files. */
export interface RejectsTarget {
  path: string;
  /** The earlier runs' default rejects files that `path` was numbered past. */
  earlier: string[];
  /** Named by --rejects: a rerun refuses it while it is there (unless --force), where one beside the input is numbered. */
  named: boolean;
}

/**
 * `--rejects FILE` (nothing may be there unless `force`), or beside the input: `candidates.rejects.csv`, or
 * when taken the next free `candidates.rejects-2.csv`, … (`force` reuses the first). Never the input itself.
 */
export function rejectsTarget(
  input: string,
  option: unknown,
  { force, dryRun, extension }: { force: boolean; dryRun: boolean; extension?: string },
): RejectsTarget {
  const given = typeof option === "string" && option !== "";
  const beside = join(
    dirname(input),
    `${basename(input, extname(input))}.rejects${extension ?? (extname(input) || ".csv")}`,
  );
  let path = given ? option : beside;
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
  return { path, earlier, named: given };
}

/** Anything (even a dangling link) is at `path`. */
function taken(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A cell as a rejects file wrote it, back as the input had it: `neutralizeFormula`'s quote taken off. */
function restoreCell(cell: string): string {
  return cell.charCodeAt(0) === 0x27 && neutralizeFormula(cell.slice(1)) === cell ? cell.slice(1) : cell;
}

/** A CSV input whose header has a rejects file's `error` column: its cells read back with `restoreCell`. */
export function fromRejectsFile(input: CsvInput): CsvInput {
  if (!input.header.some((cell) => normalizeHeader(cell) === "error")) return input;
  return {
    ...input,
    async *batches() {
      for await (const batch of input.batches()) {
        for (const record of batch) record.fields = record.fields.map(restoreCell);
        yield batch;
      }
    },
  };
}

/** Buffered synchronous writes to a temporary file beside the target, moved into place by `close`. */
class FileSink {
  private readonly file: AtomicFile;
  private buffer = "";
  /** The target's path, or after `close` the earlier file that holds the same rows. */
  path: string;
  private readonly earlier: string[];

  constructor({ path, earlier }: RejectsTarget, force: boolean) {
    this.path = path;
    this.earlier = earlier;
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

  async close(): Promise<void> {
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
  /** All columns but an earlier rejects file's `error` (it gets a fresh one). */
  private readonly keep: number[];

  constructor(
    target: RejectsTarget,
    header: string[],
    private readonly delimiter: string,
    force = false,
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

  private line(cells: string[]): string {
    const d = this.delimiter;
    return `${cells
      .map((text) => {
        // As `-o csv` writes cells: controls escaped, line breaks and tabs kept inside quotes.
        const cell = neutralizeFormula(escapeControls(text, "\t\r\n"));
        return cell.includes(d) || /["\r\n]|^\s|\s$/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
      })
      .join(d)}\r\n`;
  }
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

  override async close(): Promise<void> {
    this.put("\n]\n");
    await super.close();
  }
}

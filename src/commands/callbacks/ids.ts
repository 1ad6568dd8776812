/** The ids `callbacks resend` works on, as bulk-engine entries: from arguments, a file (or stdin), or a list. */
import { createReadStream } from "node:fs";
import { access } from "node:fs/promises";
import { Readable } from "node:stream";
import type { BulkEntry } from "../../bulk/engine/types.js";
import { prepareId } from "../../bulk/jobs/resend.js";
import { UsageError } from "../../errors.js";
import { readText } from "../../files.js";
import { SHOWN_ROWS } from "../../output/format.js";
import { boundedLines } from "../../parse/lines.js";

const BATCH = 1000;
const FILE_SUGGESTION = "Give a text file with one testInvitationId per line, or - for stdin.";

type Entries = AsyncGenerator<BulkEntry<number>[]>;

/** Where the ids come from (named in messages), read again at every pass of the bulk engine. */
export interface IdsInput {
  name: string;
  read: () => Entries;
}

export function listInput(values: ReadonlyArray<string | number>, name: string): IdsInput {
  return { name, read: () => entriesOfLines(values.map(String), name) };
}

/** Standard input as an id list, at most: millions of ids. */
const MAX_STDIN_BYTES = 64 * 1024 * 1024;

/** `--file`: a file is read again at every read; stdin (`-`) can be read once, so it is kept, within a bound. */
export async function fileInput(file: string, stdin: Readable): Promise<IdsInput> {
  if (file === "-") {
    const text = await readText("-", MAX_STDIN_BYTES, "an id list", stdin);
    return { name: "stdin", read: () => entriesOfLines(linesOf(Readable.from([text]), "stdin"), "stdin") };
  }
  await requireFile("--file", file, FILE_SUGGESTION);
  return { name: file, read: () => entriesOfLines(linesOf(createReadStream(file), `--file ${file}`), file) };
}

/** The texts of the lines, each at most MAX_LINE_BYTES (an over-long one is a usage error naming `what`:line). */
async function* linesOf(input: AsyncIterable<Buffer | string>, what: string): AsyncGenerator<string> {
  for await (const { text } of boundedLines(input, what, FILE_SUGGESTION)) yield text;
}

/** A usage error naming `flag` when `file` is not there. */
async function requireFile(flag: string, file: string, suggestion: string): Promise<void> {
  try {
    await access(file);
  } catch {
    throw new UsageError(`${flag} ${file}: no such file`, suggestion);
  }
}

/**
 * One id per line; blank lines and `#` comments (whole-line or trailing) are skipped. Every id is checked as it
 * is read: an invalid one stops the run before anything is sent, with every invalid id listed (`callbacks
 * resend` has no --skip-invalid, which the bulk engine's own message would suggest).
 */
async function* entriesOfLines(lines: AsyncIterable<string> | Iterable<string>, name: string): Entries {
  let batch: BulkEntry<number>[] = [];
  let line = 0;
  let valid = 0;
  const invalid: string[] = [];
  let invalidCount = 0;
  for await (const text of lines) {
    line++;
    const value = text
      .replace(/^\uFEFF/, "")
      .replace(/#.*$/, "")
      .trim();
    if (value === "") continue;
    const id = prepareId(value);
    if ("invalid" in id) {
      if (++invalidCount <= SHOWN_ROWS) invalid.push(`${name}:${line}: ${id.invalid}`);
      continue;
    }
    valid++;
    batch.push({ row: { line, group: "", ...id } });
    if (batch.length >= BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (invalidCount > 0) {
    const listed = [
      ...invalid,
      ...(invalidCount > SHOWN_ROWS ? [`… and ${invalidCount - SHOWN_ROWS} more`] : []),
    ];
    throw new UsageError(
      `${invalidCount} of ${valid + invalidCount} ids ${invalidCount === 1 ? "is not a testInvitationId" : "are not testInvitationIds"}; nothing was sent:\n  ${listed.join("\n  ")}`,
      "Fix or remove them, then run the command again.",
      listed,
    );
  }
  if (valid === 0) {
    throw new UsageError(
      `${name} holds no ids: nothing to resend`,
      "Put one testInvitationId per line; blank lines and # comments are skipped.",
    );
  }
  if (batch.length > 0) yield batch;
}

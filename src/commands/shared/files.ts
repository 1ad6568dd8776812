import { readFile } from "node:fs/promises";
import type { Readable } from "node:stream";
import { text as readAll } from "node:stream/consumers";
import { UsageError } from "../../errors.js";
import { isRecord } from "../../fields.js";
import { unreadable } from "../../files.js";

/** A JSON object file given by the user (`-`: stdin, when `stdin` is given); errors name the file. */
export async function readJsonObject(
  path: string,
  option: string,
  stdin?: Readable,
): Promise<Record<string, unknown>> {
  let text: string;
  let value: unknown;
  const name = path === "-" && stdin ? "stdin" : path;
  try {
    text = path === "-" && stdin ? await readAll(stdin) : await readFile(path, "utf8");
  } catch (error) {
    const why = unreadable(path, error, { stdin: stdin !== undefined });
    throw new UsageError(`${option}: ${why.message}`, why.suggestion);
  }
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new UsageError(`${option}: ${name} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isRecord(value)) throw new UsageError(`${option}: ${path} must hold a JSON object`);
  return value;
}

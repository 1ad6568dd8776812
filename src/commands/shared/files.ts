import type { Readable } from "node:stream";
import { UsageError } from "../../errors.js";
import { isRecord } from "../../fields.js";
import { readText } from "../../files.js";
import { jsonErrorText } from "../../parse/json.js";

/**
 * A request body read from a file or stdin, at most: the largest the service documents, 1,000 candidates of a
 * bulk invite, is well under 1 MiB.
 */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** A JSON object file given by the user (`-`: stdin, when `stdin` is given); errors name the file. */
export async function readJsonObject(
  path: string,
  option: string,
  stdin?: Readable,
): Promise<Record<string, unknown>> {
  const name = path === "-" && stdin ? "stdin" : path;
  const text = await readText(path, MAX_BODY_BYTES, "a request body", stdin).catch((why: UsageError) => {
    throw new UsageError(`${option}: ${why.message}`, why.suggestion);
  });
  const json = text.replace(/^\uFEFF/, "");
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new UsageError(`${option}: ${name} is not valid JSON: ${jsonErrorText(json, error)}`);
  }
  if (!isRecord(value)) throw new UsageError(`${option}: ${path} must hold a JSON object`);
  return value;
}

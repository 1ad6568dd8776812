import type { Readable } from "node:stream";
import { dropUndefined, mergeObjects, parseSetPairs } from "../shared/fields.js";
import { readJsonObject } from "../shared/files.js";

/** A body the service's docs do not show: `--file` as the base, the command's flags over it, `--set` pairs last. */
export async function composeBody(
  options: { file?: string; set?: string[] },
  fromFlags: Record<string, unknown>,
  stdin: Readable,
): Promise<Record<string, unknown>> {
  const file = options.file === undefined ? {} : await readJsonObject(options.file, "--file", stdin);
  return mergeObjects(file, dropUndefined(fromFlags), parseSetPairs(options.set ?? []));
}

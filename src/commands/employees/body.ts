import type { Readable } from "node:stream";
import { mergeObjects, parseSetPairs } from "../shared/fields.js";
import { readJsonObject } from "../shared/files.js";

/**
 * The JSON body of an operation whose shape the service's documentation does not show: `--file body.json`
 * as the base, the command's own flags over it, and `--set key=value` pairs last, so any field can be sent or
 * overridden.
 */
export async function composeBody(
  options: { file?: string; set?: string[] },
  fromFlags: Record<string, unknown>,
  stdin: Readable,
): Promise<Record<string, unknown>> {
  const file = options.file === undefined ? {} : await readJsonObject(options.file, "--file", stdin);
  const flags = Object.fromEntries(Object.entries(fromFlags).filter(([, value]) => value !== undefined));
  return mergeObjects(file, flags, parseSetPairs(options.set ?? []));
}

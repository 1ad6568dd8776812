import type { Readable } from "node:stream";
import * as z from "../../parse/zod.js";
import { dropUndefined, mergeObjects, parseSetPairs } from "../shared/fields.js";
import { readJsonObject } from "../shared/files.js";
import { arg, flag } from "../shared/flags.js";

/** A body the service's docs do not show: `--file` as the base, the command's flags over it, `--set` pairs last. */
export async function composeBody(
  options: { file?: string; set?: string[] },
  fromFlags: Record<string, unknown>,
  stdin: Readable,
): Promise<Record<string, unknown>> {
  const file = options.file === undefined ? {} : await readJsonObject(options.file, "--file", stdin);
  return mergeObjects(file, dropUndefined(fromFlags), parseSetPairs(options.set ?? []));
}

/** The employee a verb acts on: its first argument. */
export const employeeArg = () => arg.id("<employeeId>", "the employee's id");

/** `--file` and `--set`, after a verb's own flags: the JSON it sends, as composeBody builds it. */
export const bodyFlags = (file: string) => ({
  file: flag.text(`<${file}>`, "a JSON object to send (- reads stdin); the flags above override its fields"),
  set: flag.each("<key=value>", "set any other body field (repeatable; dotted keys nest)", z.string()),
});

/** Help that documents the JSON a verb sends, since the service's docs show no such body. */
export const bodyNotes = (shape: string, note: string) =>
  `Body sent by default (--file is the base, flags override it, --set goes last):\n  ${shape}\n${note}`;

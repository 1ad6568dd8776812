import { readFile } from "node:fs/promises";
import { UsageError } from "../../errors.js";

/** A JSON file given by the user, with an error that names the file and what is wrong. */
export async function readJsonFile(path: string, option: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new UsageError(
      `${option}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new UsageError(`${option}: ${path} is not valid JSON: ${(error as Error).message}`);
  }
}

export async function readJsonObject(path: string, option: string): Promise<Record<string, unknown>> {
  const value = await readJsonFile(path, option);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`${option}: ${path} must hold a JSON object`);
  }
  return value as Record<string, unknown>;
}

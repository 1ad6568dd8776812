/**
 * Test settings as a person reads and edits them: flat, in the names `tests settings set --file` takes, and the
 * Yes/No flags as `yes` / `no` (the words `tests settings set --random-questions yes` takes). Used by
 * `settings get` (its table), `settings pull` (the file) and `settings apply` (reading the file back, the
 * difference field by field).
 */
import { UsageError } from "../../errors.js";
import { SETTING_FLAGS } from "../../spec/settings-flags.js";
import { flatSettings } from "./settings-set.js";

const FLAGS = new Set<string>(SETTING_FLAGS);
const TEXT_FIELDS = ["testName", "testAliasName"] as const;
/** Every field a settings file may hold, in the order a pulled file writes them. */
export const SETTINGS_FIELDS: readonly string[] = [...TEXT_FIELDS, "typeOfTest", ...SETTING_FLAGS];

const YES = new Set(["yes", "y", "true", "1", "on"]);
const NO = new Set(["no", "n", "false", "0", "off"]);

/** The service's flat settings with each Yes/No flag as `yes` or `no` (a value other than 0/1 is kept as sent). */
export function readableSettings(answer: Record<string, unknown>): Record<string, unknown> {
  const flat = flatSettings(answer);
  const shown: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(flat)) {
    shown[name] = FLAGS.has(name) && (value === 0 || value === 1) ? (value === 1 ? "yes" : "no") : value;
  }
  return shown;
}

/**
 * A settings file read back into the values the service takes (flags 1/0, typeOfTest 1/2). Unknown keys and
 * bad values are a usage error naming each of them; nothing is sent.
 */
export function parseSettingsFile(file: string, body: Record<string, unknown>): Record<string, unknown> {
  const unknown = Object.keys(body).filter((key) => !SETTINGS_FIELDS.includes(key));
  if (unknown.length > 0) {
    throw new UsageError(
      `${file}: unknown setting${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}`,
      `A settings file holds only ${SETTINGS_FIELDS.join(", ")}; \`assess tests settings pull <testId>\` writes one.`,
    );
  }
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    if (FLAGS.has(name)) {
      const word = String(value).toLowerCase();
      if (typeof value !== "object" && YES.has(word)) values[name] = 1;
      else if (typeof value !== "object" && NO.has(word)) values[name] = 0;
      else problems.push(`${name}: must be yes or no, got ${JSON.stringify(value)}`);
    } else if (name === "typeOfTest") {
      if (value === 1 || value === 2 || value === "1" || value === "2") values[name] = Number(value);
      else
        problems.push(
          `typeOfTest: must be 1 (multiple questions) or 2 (single question), got ${JSON.stringify(value)}`,
        );
    } else if (name === "testAliasName" && value === null) {
      values[name] = null;
    } else if (typeof value === "string" && (name !== "testName" || value.trim() !== "")) {
      values[name] = value;
    } else {
      problems.push(
        `${name}: must be ${name === "testName" ? "a non-empty" : "a"} string, got ${JSON.stringify(value)}`,
      );
    }
  }
  if (problems.length > 0) {
    throw new UsageError(
      `${file}: ${problems.length} invalid setting${problems.length > 1 ? "s" : ""}; nothing was sent:\n  ${problems.join("\n  ")}`,
      "Fix the file (flags take yes or no) and run the command again.",
      problems,
    );
  }
  return values;
}

/** One field's change, readable (yes/no); `old` is null when the service sent none. A type: output rows are records. */
export type SettingChange = { field: string; old: unknown; new: unknown };

/** The fields of `wanted` whose value differs from `current` (both in the service's values), readable. */
export function settingsDiff(
  current: Record<string, unknown>,
  wanted: Record<string, unknown>,
): SettingChange[] {
  const readable = (name: string, value: unknown) =>
    FLAGS.has(name) && (value === 0 || value === 1) ? (value === 1 ? "yes" : "no") : (value ?? null);
  return SETTINGS_FIELDS.filter((name) => name in wanted && wanted[name] !== current[name]).map((name) => ({
    field: name,
    old: readable(name, current[name]),
    new: readable(name, wanted[name]),
  }));
}

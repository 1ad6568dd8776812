/** Test settings as a person reads and edits them: flat, in the names `settings set --file` takes, flags as yes/no. */
import { append } from "../../arrays.js";
import { UsageError } from "../../errors.js";
import { field, isRecord } from "../../fields.js";
import { SETTING_FLAGS } from "../../spec/settings-flags.js";

const FLAGS = new Set<string>(SETTING_FLAGS);
/** Every field a settings file may hold, in the order a pulled file writes them. */
const SETTINGS_FIELDS: readonly string[] = ["testName", "testAliasName", "typeOfTest", ...SETTING_FLAGS];

const YES = new Set(["yes", "y", "true", "1", "on"]);
const NO = new Set(["no", "n", "false", "0", "off"]);

/**
 * The settings fields of an answer, flat, in the service's values, as they are written back. The real service
 * groups them (`testSettings`, `questionSettings`...): a field is taken from the top level, or else from the
 * first group that holds it.
 */
export function flatSettings(answer: Record<string, unknown>): Record<string, unknown> {
  // Outer groups before inner ones (`windowViolationSettings.displayViolationSettings`).
  const groups: Record<string, unknown>[] = [answer];
  for (let i = 0; i < groups.length && i < 64; i++)
    append(groups, Object.values(groups[i] ?? {}).filter(isRecord));
  const flat: Record<string, unknown> = {};
  for (const name of SETTINGS_FIELDS) {
    const value = groups.map((group) => field(group, name)).find((v) => v !== undefined);
    if (value !== undefined) flat[name] = serviceValue(name, value);
  }
  return flat;
}

/** A flag or typeOfTest answered as true/false or "1"/"0" is the Integer the service takes (API.md 2.2). */
function serviceValue(name: string, value: unknown): unknown {
  const numeric = typeof value === "boolean" || value === "1" || value === "0" || value === "2";
  return name !== "testName" && name !== "testAliasName" && numeric ? Number(value) : value;
}

/** A Yes/No flag sent as 1 or 0 as `yes` or `no`; any other value as it is. */
function readable(name: string, value: unknown): unknown {
  return FLAGS.has(name) && (value === 0 || value === 1) ? (value === 1 ? "yes" : "no") : value;
}

/** The service's flat settings, readable. */
export function readableSettings(answer: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(flatSettings(answer)).map(([name, value]) => [name, readable(name, value)]),
  );
}

/** A settings file read back into the values the service takes (flags 1/0, typeOfTest 1/2), or a usage error. */
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
    const word = typeof value === "object" ? undefined : String(value).toLowerCase();
    if (FLAGS.has(name)) {
      if (word !== undefined && YES.has(word)) values[name] = 1;
      else if (word !== undefined && NO.has(word)) values[name] = 0;
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

/** The fields of `wanted` whose value differs from `current` (both in the service's values), readable. */
export function settingsDiff(current: Record<string, unknown>, wanted: Record<string, unknown>) {
  return SETTINGS_FIELDS.filter((name) => name in wanted && wanted[name] !== current[name]).map((name) => ({
    field: name,
    old: readable(name, current[name]) ?? null,
    new: readable(name, wanted[name]) ?? null,
  }));
}

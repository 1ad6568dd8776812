/** Test settings as a person reads and edits them: flat, in the names `settings set --file` takes, flags as yes/no. */
import { append } from "../../../arrays.js";
import { UsageError } from "../../../errors.js";
import { field, isRecord } from "../../../fields.js";
import { SETTING_FLAGS } from "../../../spec/settings-flags.js";

const FLAGS = new Set<string>(SETTING_FLAGS);
/** Every field a settings file may hold, in the order a pulled file writes them. */
const SETTINGS_FIELDS: readonly string[] = ["testName", "testAliasName", "typeOfTest", ...SETTING_FLAGS];
/** The field of a pulled file that names the test it was pulled from (not a setting: never sent). */
const TEST_ID = "testId";

/** A pulled file: the test's id first, then its settings, readable. */
export function pulledFile(testId: number, answer: Record<string, unknown>): Record<string, unknown> {
  return { [TEST_ID]: testId, ...readableSettings(answer) };
}

/** Whether `body` is in the format `settings pull` writes: flat, each key a setting (or the test id). */
export function isPulledFormat(body: Record<string, unknown>): boolean {
  return Object.keys(body).every((key) => key === TEST_ID || SETTINGS_FIELDS.includes(key));
}

/**
 * The settings of a file given to test `testId`, without the test id a pulled file carries. Another test's file
 * is refused (it would rename this test and copy that one's flags) unless `force`; a file that names no test (one
 * pulled by an earlier version, or written by hand) is taken, with `onNoTest` told.
 */
export function settingsForTest(
  file: string,
  body: Record<string, unknown>,
  testId: number,
  {
    force,
    onNoTest,
    onForced,
  }: { force: boolean; onNoTest?(message: string): void; onForced(message: string): void },
): Record<string, unknown> {
  const { [TEST_ID]: of, ...settings } = body;
  if (of === undefined) {
    onNoTest?.(`${file} does not say which test it was pulled from: applied to test ${testId} as it is`);
  } else if (String(of) !== String(testId)) {
    const other = JSON.stringify(of);
    if (!force) {
      throw new UsageError(
        `${file} holds the settings of test ${other}, not of test ${testId}; nothing was sent`,
        `Pull test ${testId}'s own (assess tests settings pull ${testId}), or pass --force to give test ${testId} the settings of test ${other}, its name included.`,
      );
    }
    onForced(`--force: giving test ${testId} the settings of test ${other} from ${file}`);
  }
  return settings;
}

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

/**
 * A flag or typeOfTest answered as true/false or "1"/"0", or a flag as a word ("Yes", "false"), is the Integer
 * the service takes (API.md 2.2).
 */
function serviceValue(name: string, value: unknown): unknown {
  const word = typeof value === "string" ? value.trim().toLowerCase() : undefined;
  if (FLAGS.has(name) && word !== undefined && (YES.has(word) || NO.has(word))) return YES.has(word) ? 1 : 0;
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

/**
 * A settings file (without its test id: `settingsForTest`) read back into the values the service takes (flags
 * 1/0, typeOfTest 1/2), or a usage error.
 */
export function parseSettingsFile(file: string, body: Record<string, unknown>): Record<string, unknown> {
  const unknown = Object.keys(body).filter((key) => !SETTINGS_FIELDS.includes(key));
  if (unknown.length > 0) {
    throw new UsageError(
      `${file}: unknown setting${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}`,
      `A settings file holds only ${[TEST_ID, ...SETTINGS_FIELDS].join(", ")}; \`assess tests settings pull <testId>\` writes one.`,
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

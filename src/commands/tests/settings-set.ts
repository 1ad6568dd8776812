import { TestSettings } from "../../api/schemas.js";
import { UsageError } from "../../errors.js";
import { field, isRecord } from "../../fields.js";
import { SETTING_FLAGS } from "../../spec/settings-flags.js";
import { readJsonObject } from "../shared/files.js";
import type { Handler } from "../shared/kit.js";
import { parseId } from "../shared/options.js";

const YES = new Set(["yes", "y", "true", "1", "on"]);
const NO = new Set(["no", "n", "false", "0", "off"]);

const settingsSet: Handler = async (ctx, [testIdArg], options) => {
  const testId = parseId(testIdArg, "testId");
  const changes = changesFromFlags(options);
  if (options.file !== undefined && Object.keys(changes).length > 0) {
    throw new UsageError("Give either --file or setting flags, not both");
  }
  const api = await ctx.api();
  let body: Record<string, unknown>;
  if (typeof options.file === "string") {
    body = await readJsonObject(options.file, "--file");
    const checked = TestSettings.safeParse(body);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new UsageError(`--file ${options.file}: ${issue?.path.join(".")}: ${issue?.message}`);
    }
  } else {
    if (Object.keys(changes).length === 0) {
      throw new UsageError(
        "Nothing to change",
        "Pass --file settings.json or at least one setting flag (see --help)",
      );
    }
    // The service takes the whole object (no partial update): read, change, write back.
    const current = await api.getSettings(testId);
    body = { ...flatSettings(current), ...changes };
  }
  const answer = await api.updateSettings(testId, body);
  ctx.success(`Settings of test ${testId} updated`);
  await ctx.out.record(answer && Object.keys(answer).length > 0 ? answer : body);
  return 0;
};
export default settingsSet;

/**
 * The fields of API.md §2.2 in a settings answer, flat, as they are written back. The real service groups them
 * (`testSettings`, `questionSettings`, `windowViolationSettings`...; fixtures/real/tests/settings-get-200.json):
 * a field is taken from the top level, or else from the first group that holds it.
 */
export function flatSettings(answer: Record<string, unknown>): Record<string, unknown> {
  // Outer groups before inner ones (`windowViolationSettings.displayViolationSettings`).
  const groups: Record<string, unknown>[] = [answer];
  for (let i = 0; i < groups.length && i < 64; i++)
    groups.push(...Object.values(groups[i] ?? {}).filter(isRecord));
  const flat: Record<string, unknown> = {};
  for (const name of ["testName", "testAliasName", "typeOfTest", ...SETTING_FLAGS]) {
    const value = groups.map((group) => field(group, name)).find((v) => v !== undefined);
    if (value !== undefined) flat[name] = value;
  }
  return flat;
}

function changesFromFlags(options: Record<string, unknown>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  if (typeof options.testName === "string") changes.testName = options.testName;
  if (typeof options.testAliasName === "string") changes.testAliasName = options.testAliasName;
  if (options.typeOfTest !== undefined) {
    if (options.typeOfTest !== "1" && options.typeOfTest !== "2") {
      throw new UsageError(
        `--type-of-test must be 1 (multiple questions) or 2 (single question), got "${String(options.typeOfTest)}"`,
      );
    }
    changes.typeOfTest = Number(options.typeOfTest);
  }
  for (const flag of SETTING_FLAGS) {
    const value = options[flag];
    if (value === undefined) continue;
    const text = String(value).toLowerCase();
    if (YES.has(text)) changes[flag] = 1;
    else if (NO.has(text)) changes[flag] = 0;
    else
      throw new UsageError(
        `--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} must be yes or no, got "${String(value)}"`,
      );
  }
  return changes;
}

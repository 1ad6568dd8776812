import { TestSettings } from "../../../api/schemas.js";
import type { Context } from "../../../context.js";
import { UsageError } from "../../../errors.js";
import { FLAG } from "../../../parse/flag.js";
import { parsed } from "../../../parse/flags.js";
import { SETTING_FLAGS } from "../../../spec/settings-flags.js";
import { dropUndefined } from "../../shared/fields.js";
import { readJsonObject } from "../../shared/files.js";
import { arg, flag } from "../../shared/flags.js";
import { type OptionsOf, verb } from "../../shared/verb.js";
import { flatSettings, isPulledFormat, parseSettingsFile, settingsForTest } from "./file.js";

/** `--random-questions yes` and the others: each yes/no test setting, sent as 1 or 0. */
const yesNoFlag = (name: string) => flag.yesNo(`${name} (yes/no, 1/0, true/false)`);
const settingFlags = Object.fromEntries(SETTING_FLAGS.map((name) => [name, yesNoFlag(name)])) as Record<
  (typeof SETTING_FLAGS)[number],
  ReturnType<typeof yesNoFlag>
>;

const flags = {
  file: flag.text(
    "<settings.json>",
    "a JSON file with the whole settings object: as `settings pull` writes it, or the service's (- reads stdin)",
  ),
  force: flag.bool("with --file: send a file pulled from another test"),
  testName: flag.text("<name>", "name of the test"),
  testAliasName: flag.text("<name>", "alias name of the test"),
  typeOfTest: flag.of(
    "<1|2>",
    "1 = multiple questions, 2 = single question",
    parsed((text) => {
      if (text !== "1" && text !== "2")
        throw new UsageError(`${FLAG} must be 1 (multiple questions) or 2 (single question), got "${text}"`);
      return Number(text);
    }),
  ),
  ...settingFlags,
};

export default verb({
  summary:
    "Change settings: --file sends a whole settings object; flags read, change and write back the whole object",
  args: [arg.id("<testId>", "the test's id")],
  flags,
  examples: [
    "assess tests settings set 1001 --random-questions yes --copy-paste no",
    "assess tests settings set 1001 --file settings.json --dry-run",
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>, [testId]: [number]) {
  const { file, force, ...flags } = o;
  // Only the settings given: the schema's keys of the flags not passed are absent or undefined.
  const changes = dropUndefined(flags);
  if (file !== undefined && Object.keys(changes).length > 0) {
    throw new UsageError("Give either --file or setting flags, not both");
  }
  const client = await ctx.client();
  let body: Record<string, unknown>;
  if (file !== undefined) {
    const read = await readJsonObject(file, "--file", ctx.io.stdin);
    if (isPulledFormat(read)) {
      // The file `settings pull` writes (flags as yes/no, the test's id), or the service's flat object: one format.
      const settings = settingsForTest(file, read, testId, {
        force: force === true,
        onForced: (message) => ctx.warn(message),
      });
      body = parseSettingsFile(`--file ${file}`, settings);
    } else {
      // The service's object in another shape (grouped, fields of its own): sent as is.
      body = read;
      const checked = TestSettings.safeParse(body);
      if (!checked.success) {
        const issue = checked.error.issues[0];
        throw new UsageError(
          `--file ${file}: ${issue?.path.join(".")}: ${issue?.message}`,
          "--file sends the file `assess tests settings pull` writes (flags as yes/no), or the service's settings object as is (flags as 1 or 0).",
        );
      }
    }
  } else {
    if (Object.keys(changes).length === 0)
      throw new UsageError(
        "Nothing to change",
        "Pass --file settings.json or at least one setting flag (see --help)",
      );
    // The service takes the whole object (no partial update): read, change, write back.
    ctx.planWithReads(`Reading the settings of test ${testId} to show what would be written back`);
    body = { ...flatSettings(await client.tests.settings.get(testId)), ...changes };
  }
  const answer = await client.tests.settings.update(testId, body);
  ctx.success(`Settings of test ${testId} updated`);
  await ctx.out.record(answer && Object.keys(answer).length > 0 ? answer : body);
  return 0;
}

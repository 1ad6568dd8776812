import type { Context } from "../../../context.js";
import { CliError } from "../../../errors.js";
import { readJsonObject } from "../../shared/files.js";
import { arg, flag } from "../../shared/flags.js";
import { confirmOrYes } from "../../shared/options.js";
import { type OptionsOf, verb } from "../../shared/verb.js";
import { flatSettings, parseSettingsFile, settingsDiff, settingsForTest } from "./file.js";

const flags = {
  yes: flag.bool("apply without asking (needed without a terminal)"),
  force: flag.bool("apply a file pulled from another test (its name included)"),
};

export default verb({
  summary:
    "Make a test's settings what a file says: shows each change (old → new), asks, sends the whole object once",
  args: [
    arg.id("<testId>", "the test's id"),
    arg.text("<file.json>", "settings as `settings pull` writes them; fields left out keep their value"),
  ],
  flags,
  examples: [
    "assess tests settings apply 1001 settings.json --dry-run   # the difference only",
    "assess tests settings apply 1001 settings.json --yes",
  ],
  run,
});

/**
 * Shows the difference field by field, asks (or --yes), and sends the whole object once, as the service takes
 * no partial update; a field the file leaves out keeps its value. --dry-run: the difference only. What is sent is
 * what was shown: after a person's yes the settings are read again, and a change made meanwhile (a colleague's)
 * stops the command (exit 1) with the new difference, rather than being undone.
 */
async function run(ctx: Context, o: OptionsOf<typeof flags>, [testId, file]: [number, string]) {
  const body = settingsForTest(file, await readJsonObject(file, "<file.json>"), testId, {
    force: o.force === true,
    onNoTest: (message) => ctx.warn(message),
    onForced: (message) => ctx.warn(message),
  });
  const wanted = parseSettingsFile(file, body);
  const client = await ctx.client();
  ctx.planWithReads(`Reading the settings of test ${testId} to show what would change`);
  const read = async () => flatSettings(await client.tests.settings.get(testId));
  const current = await read();
  const changes = settingsDiff(current, wanted);
  const table = (rows: typeof changes) =>
    ctx.out.list(rows, [
      { key: "field", header: "FIELD" },
      { key: "old", header: "OLD" },
      { key: "new", header: "NEW" },
    ]);
  const report = (sent: boolean) =>
    ctx.out.isJson
      ? ctx.out.json({ testId, changes, sent, ...(ctx.dryRun ? { dryRun: true } : {}) })
      : changes.length > 0
        ? table(changes)
        : undefined;
  if (changes.length === 0) {
    await report(false);
    ctx.success(`Settings of test ${testId} are already as in ${file}: nothing was sent`);
    return 0;
  }
  const fields = `${changes.length} setting${changes.length === 1 ? "" : "s"}`;
  if (ctx.dryRun) {
    await report(false);
    ctx.info(
      `[dry-run] would change ${fields} of test ${testId} (POST the whole settings object once); nothing was sent`,
    );
    return 0;
  }
  if (!ctx.out.isJson) await report(false);
  await confirmOrYes(ctx, o.yes, `Change ${fields} of test ${testId}?`);
  // A question was open (without --yes): what the service holds now, not what it held before it.
  const now = o.yes === true ? current : await read();
  const since = changedSince(current, now);
  if (since.length > 0) {
    const fresh = settingsDiff(now, wanted);
    if (ctx.out.isJson) await ctx.out.json({ testId, changes: fresh, sent: false, changedSince: since });
    else if (fresh.length > 0) await table(fresh);
    throw new CliError(
      `The settings of test ${testId} changed while you were asked (${since.join(", ")}); nothing was sent. ${
        fresh.length > 0
          ? `Applying ${file} now would change ${fresh.length} setting${fresh.length === 1 ? "" : "s"}, as shown`
          : `They are now as in ${file}`
      }`,
      {
        suggestion:
          fresh.length > 0
            ? `Run the command again to confirm the new difference (assess tests settings apply ${testId} ${file}).`
            : undefined,
      },
    );
  }
  // The service takes the whole object: what it has, with the file's values over it.
  await client.tests.settings.update(testId, { ...now, ...wanted });
  if (ctx.out.isJson) await report(true);
  ctx.success(`Changed ${fields} of test ${testId}: ${changes.map((c) => c.field).join(", ")}`);
  return 0;
}

/** The fields whose value differs between two reads of the settings. */
function changedSince(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => before[name] !== after[name]);
}

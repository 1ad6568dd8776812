import type { Context } from "../../context.js";
import { id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { readJsonObject } from "../shared/files.js";
import { confirmOrYes } from "../shared/options.js";
import { parseSettingsFile, settingsDiff } from "./settings-file.js";
import { flatSettings } from "./settings-set.js";

export const options = z.object({ yes: z.boolean().optional() });
export const args = z.tuple([id(), z.string()]);

/**
 * Makes a test's settings what a file says: reads them, shows the difference field by field, asks (or --yes),
 * and sends the whole object once, as the service takes no partial update. A field the file leaves out keeps
 * its value. Nothing different: nothing sent. --dry-run: the difference only (the read is made; no write).
 */
export async function run(
  ctx: Context,
  o: z.infer<typeof options>,
  [testId, file]: z.infer<typeof args>,
): Promise<number> {
  const wanted = parseSettingsFile(file, await readJsonObject(file, "<file.json>"));
  const client = await ctx.client();
  ctx.planWithReads(`Reading the settings of test ${testId} to show what would change`);
  const current = serviceValues(flatSettings(await client.tests.settings.get(testId)));
  const changes = settingsDiff(current, wanted);
  const report = (sent: boolean) =>
    ctx.out.isJson
      ? ctx.out.json({ testId, changes, sent, ...(ctx.dryRun ? { dryRun: true } : {}) })
      : changes.length > 0
        ? ctx.out.list(changes, [
            { key: "field", header: "FIELD" },
            { key: "old", header: "OLD" },
            { key: "new", header: "NEW" },
          ])
        : undefined;
  if (changes.length === 0) {
    await report(false);
    ctx.success(`Settings of test ${testId} are already as in ${file}: nothing was sent`);
    return 0;
  }
  const fields = `${changes.length} setting${changes.length === 1 ? "" : "s"}`;
  if (!ctx.out.isJson) await report(false);
  if (ctx.dryRun) {
    if (ctx.out.isJson) await report(false);
    ctx.info(
      `[dry-run] would change ${fields} of test ${testId} (POST the whole settings object once); nothing was sent`,
    );
    return 0;
  }
  await confirmOrYes(ctx, o.yes, `Change ${fields} of test ${testId}?`);
  // The service takes the whole object: what it has, with the file's values over it.
  await client.tests.settings.update(testId, { ...current, ...wanted });
  if (ctx.out.isJson) await report(true);
  ctx.success(`Changed ${fields} of test ${testId}: ${changes.map((c) => c.field).join(", ")}`);
  return 0;
}

/** Settings as the service compares them: a flag or typeOfTest sent as true/false or "1"/"0" is a number. */
function serviceValues(flat: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(flat)) {
    const text = name === "testName" || name === "testAliasName";
    values[name] =
      text || !(typeof value === "boolean" || value === "1" || value === "0" || value === "2")
        ? value
        : Number(value);
  }
  return values;
}

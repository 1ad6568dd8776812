import type { Context } from "../../context.js";
import { id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { readJsonObject } from "../shared/files.js";
import { confirmOrYes } from "../shared/options.js";
import { flatSettings, parseSettingsFile, settingsDiff } from "./settings-file.js";

export const options = z.object({ yes: z.boolean().optional() });
export const args = z.tuple([id(), z.string()]);

/**
 * Shows the difference field by field, asks (or --yes), and sends the whole object once, as the service takes
 * no partial update; a field the file leaves out keeps its value. --dry-run: the difference only.
 */
export async function run(ctx: Context, o: z.infer<typeof options>, [testId, file]: z.infer<typeof args>) {
  const wanted = parseSettingsFile(file, await readJsonObject(file, "<file.json>"));
  const client = await ctx.client();
  ctx.planWithReads(`Reading the settings of test ${testId} to show what would change`);
  const current = flatSettings(await client.tests.settings.get(testId));
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
  if (ctx.dryRun) {
    await report(false);
    ctx.info(
      `[dry-run] would change ${fields} of test ${testId} (POST the whole settings object once); nothing was sent`,
    );
    return 0;
  }
  if (!ctx.out.isJson) await report(false);
  await confirmOrYes(ctx, o.yes, `Change ${fields} of test ${testId}?`);
  // The service takes the whole object: what it has, with the file's values over it.
  await client.tests.settings.update(testId, { ...current, ...wanted });
  if (ctx.out.isJson) await report(true);
  ctx.success(`Changed ${fields} of test ${testId}: ${changes.map((c) => c.field).join(", ")}`);
  return 0;
}

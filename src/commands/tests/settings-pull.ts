import type { Context } from "../../context.js";
import { AtomicFile, checkTarget, commitOrDiscard } from "../../files.js";
import { id } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { pulledFile } from "./settings-file.js";

export const options = z.object({ out: z.string().optional(), force: z.boolean().optional() });
export const args = z.tuple([id()]);

/**
 * The test's whole settings as a file to edit and give to `settings apply` (or `settings set --file`), with the
 * test's id, so that it is not applied to another test by mistake; without --out (or `--out -`) on stdout.
 */
export async function run(ctx: Context, o: z.infer<typeof options>, [testId]: z.infer<typeof args>) {
  const out = o.out ?? "-";
  const force = o.force === true;
  if (out !== "-") checkTarget(out, { option: "--out", force });
  const client = await ctx.client();
  const text = `${JSON.stringify(pulledFile(testId, await client.tests.settings.get(testId)), null, 2)}\n`;
  if (out === "-") {
    ctx.out.write(text);
    return 0;
  }
  const file = new AtomicFile(out, force);
  await commitOrDiscard(file, () => file.write(text));
  ctx.success(`Settings of test ${testId} written to ${out}`);
  ctx.hint(`Edit it, then: assess tests settings apply ${testId} ${out}`);
  return 0;
}

import type { Context } from "../../../context.js";
import { AtomicFile, checkTarget, commitOrDiscard } from "../../../files.js";
import { arg, flag } from "../../shared/flags.js";
import { type OptionsOf, verb } from "../../shared/verb.js";
import { pulledFile } from "./file.js";

const flags = {
  out: flag.text("<file.json>", "where to write it (default: stdout)"),
  force: flag.bool("overwrite an existing --out file"),
};

export default verb({
  summary: "Write a test's whole settings as a file to edit: flat, flags as yes/no, with the test's id",
  args: [arg.id("<testId>", "the test's id")],
  flags,
  examples: [
    "assess tests settings pull 1001 --out settings.json",
    "assess tests settings pull 1001 > settings.json",
  ],
  run,
});

/**
 * The test's whole settings as a file to edit and give to `settings apply` (or `settings set --file`), with the
 * test's id, so that it is not applied to another test by mistake; without --out (or `--out -`) on stdout.
 */
async function run(ctx: Context, o: OptionsOf<typeof flags>, [testId]: [number]) {
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

import type { Context } from "../../context.js";
import { listPages, pageFlags } from "../shared/pages.js";
import { type OptionsOf, verb } from "../shared/verb.js";
import { PROFILE_COLUMNS } from "./records.js";

const flags = pageFlags("profiles");

export default verb({
  summary: "List employees with their strongest skills",
  flags,
  examples: [
    "assess employees skills-profiles",
    "assess employees skills-profiles --all -o ndjson > profiles.ndjson",
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>) {
  const fetchPage = async (page: number, size: number) =>
    (await ctx.client()).employees.skillsProfiles.list({ page, pageSize: size });
  const { pages, limit } = listPages(ctx, o, fetchPage, "profiles");
  if ((await ctx.out.list(pages, PROFILE_COLUMNS, limit)) === 0) ctx.info("No skills profiles found.");
  return 0;
}

import type { Handler } from "../shared/kit.js";
import { listPages } from "../shared/pages.js";
import { PROFILE_COLUMNS } from "./records.js";

const skillsProfiles: Handler = async (ctx, _args, options) => {
  const { pages, limit } = listPages(
    ctx,
    options,
    async (page, size) => (await ctx.api()).listSkillsProfiles(page, size),
    "profiles",
  );
  const count = await ctx.out.list(pages, PROFILE_COLUMNS, limit);
  if (count === 0) ctx.info("No skills profiles found.");
  return 0;
};
export default skillsProfiles;

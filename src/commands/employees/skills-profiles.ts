import type { Context } from "../../context.js";
import * as z from "../../parse/zod.js";
import { listPages, pageOptions } from "../shared/pages.js";
import { PROFILE_COLUMNS } from "./records.js";

export const options = z.object({ ...pageOptions });

export async function run(ctx: Context, o: z.infer<typeof options>) {
  const fetchPage = async (page: number, size: number) =>
    (await ctx.client()).employees.skillsProfiles.list({ page, pageSize: size });
  const { pages, limit } = listPages(ctx, o, fetchPage, "profiles");
  if ((await ctx.out.list(pages, PROFILE_COLUMNS, limit)) === 0) ctx.info("No skills profiles found.");
  return 0;
}

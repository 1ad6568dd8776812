import { stringify } from "yaml";
import { openApiDocument } from "../../api/openapi.js";
import type { Context } from "../../context.js";
import * as z from "../../parse/zod.js";

export const options = z.object({ format: z.enum(["yaml", "json"]).optional() });

/** The OpenAPI 3.1 document of both services, servers the profile's; YAML unless asked for JSON. */
export async function run(ctx: Context, o: z.infer<typeof options>): Promise<number> {
  const { baseUrl, skillsBaseUrl } = ctx.settings;
  const document = openApiDocument({ baseUrl, skillsBaseUrl });
  const json =
    (o.format ?? (ctx.flags.json === true || ctx.flags.output === "json" ? "json" : "yaml")) === "json";
  ctx.out.write(json ? `${JSON.stringify(document, null, 2)}\n` : stringify(document, { lineWidth: 0 }));
  return 0;
}

import { stringify } from "yaml";
import { openApiDocument } from "../../api/openapi.js";
import type { Context } from "../../context.js";
import { flag } from "../shared/flags.js";
import { type OptionsOf, verb } from "../shared/verb.js";

const flags = {
  format: flag.choice(["yaml", "json"], "yaml or json (default: yaml; the global --json means json)", {
    value: "<format>",
  }),
};

export default verb({
  summary: "Print an OpenAPI 3.1 document of both services (for Postman and code generators)",
  flags,
  examples: [
    "assess openapi > assess-openapi.yaml   # then in Postman: File → Import → the file",
    "assess openapi --format json > assess-openapi.json",
    "assess --profile staging openapi   # servers: that profile's base URLs",
  ],
  run,
});

/** The OpenAPI 3.1 document of both services, servers the profile's; YAML unless asked for JSON. */
async function run(ctx: Context, o: OptionsOf<typeof flags>): Promise<number> {
  const { baseUrl, skillsBaseUrl } = ctx.settings;
  const document = openApiDocument({ baseUrl, skillsBaseUrl });
  const json =
    (o.format ?? (ctx.flags.json === true || ctx.flags.output === "json" ? "json" : "yaml")) === "json";
  ctx.out.write(json ? `${JSON.stringify(document, null, 2)}\n` : stringify(document, { lineWidth: 0 }));
  return 0;
}

import { request } from "undici";
import type { Context } from "../../context.js";
import { ApiError, NetworkError } from "../../errors.js";
import { getPath } from "../../output/format.js";
import type { Row } from "../../output/output.js";
import { FINAL_STATUSES } from "../../spec/final-statuses.js";
import { arg, flag } from "../shared/flags.js";
import { type OptionsOf, verb } from "../shared/verb.js";

const flags = {
  status: flag.choice(FINAL_STATUSES, "how the attempt ends", { value: "<status>" }).default("Complete"),
  url: flag.text(
    "<url>",
    "the running sandbox (default: --base-url / ASSESS_BASE_URL; with --sandbox, the embedded one)",
  ),
};

export default verb({
  summary:
    "Make a candidate finish an attempt in a running sandbox; its callback URL gets both notifications",
  args: [arg.id("<testInvitationId>", "the invitation to complete")],
  flags,
  examples: [
    "assess sandbox complete 100304",
    "assess sandbox complete 100306 --status TestLeft --url http://127.0.0.1:4010",
    "assess --sandbox sandbox complete 100311   # an attempt of the embedded sandbox (`assess --sandbox ...`)",
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>, [id]: [number]) {
  // With --sandbox, the embedded sandbox (its saved state): the attempts other `--sandbox` commands made.
  const base = (o.url ?? (await ctx.connection.assessBaseUrl())).replace(/\/+$/, "");
  const url = `${base}/_sandbox/invitations/${id}/complete`;
  const res = await request(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ status: o.status }),
  }).catch((error: Error) => {
    throw new NetworkError(
      `Cannot reach a sandbox at ${base}: ${error.message}`,
      "Start one with `assess sandbox` and pass its URL with --url, or use the embedded one: `assess --sandbox sandbox complete <id>`.",
      error,
    );
  });
  const body = (await res.body.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (res.statusCode >= 300)
    throw new ApiError(res.statusCode, [String(body?.message ?? `HTTP ${res.statusCode}`)]);
  ctx.success(`Attempt ${id} finished with status ${o.status}`);
  if (ctx.out.isJson) {
    ctx.out.json(body);
    return 0;
  }
  const delivered = Array.isArray(body?.delivered) ? (body.delivered as Row[]) : [];
  if (delivered.length === 0) {
    ctx.info("The invitation has no callback URL: no notification was sent");
    return 0;
  }
  await ctx.out.list(delivered, [
    { key: "notification", header: "NOTIFICATION", get: (row) => getPath(row, "body.Status") },
    { key: "url", header: "CALLBACK URL" },
    { key: "status", header: "HTTP", get: (row) => row.status ?? "unreachable" },
  ]);
  return 0;
}

import { request } from "undici";
import type { Context } from "../../context.js";
import { ApiError, NetworkError } from "../../errors.js";
import { getPath } from "../../output/format.js";
import type { Row } from "../../output/output.js";
import { id as idFlag } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";

export const options = z.object({
  status: z.enum(["Complete", "TestLeft", "Terminated"]),
  url: z.string().optional(),
});
export const args = z.tuple([idFlag()]);

export async function run(ctx: Context, o: z.infer<typeof options>, [id]: z.infer<typeof args>) {
  // With --sandbox, the embedded sandbox (its saved state): the attempts other `--sandbox` commands made.
  const base = (o.url ?? (await ctx.assessBaseUrl())).replace(/\/+$/, "");
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

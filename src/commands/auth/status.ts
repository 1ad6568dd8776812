/** `assess auth status`: which key and URLs are in use, and whether the service accepts the key. */
import { validKeyAdvice } from "../../config/resolve.js";
import type { Context } from "../../context.js";
import { ApiError, AuthError } from "../../errors.js";
import type { Column } from "../../output/output.js";
import { redactKey } from "../../redact.js";
import type { Client } from "../../sdk/client.js";
import { verb } from "../shared/verb.js";

export default verb({
  summary: "Show which key and URLs are in use, and check the key with one call",
  examples: ["assess auth status", "assess auth status --json"],
  run: showStatus,
});

const STATUS_COLUMNS: Column[] = [
  { key: "profile", header: "PROFILE" },
  { key: "key", header: "KEY" },
  { key: "keySource", header: "KEY FROM" },
  { key: "baseUrl", header: "BASE URL" },
  { key: "skillsBaseUrl", header: "SKILLS BASE URL" },
  { key: "valid", header: "VALID" },
];

async function showStatus(ctx: Context) {
  const { profile } = ctx.settings;
  const target = await ctx.connection.target();
  if (!target.apiKey) {
    throw new AuthError(`No API key for profile "${profile}"`, {
      suggestion: "Run `assess auth login`, or set ASSESS_API_KEY.",
    });
  }
  const check = await checkKey(await ctx.client());
  const report = {
    profile,
    key: redactKey(target.apiKey),
    keySource: target.keySource,
    baseUrl: target.baseUrl,
    skillsBaseUrl: target.skillsBaseUrl,
    valid: check.ok,
  };
  await ctx.out.record(report, STATUS_COLUMNS);
  if (!check.ok)
    throw new AuthError(`The service refused the key ${report.key} (HTTP ${check.status})`, {
      status: check.status,
      suggestion: `Check that the key is current and the subscription active, then ${validKeyAdvice(ctx.settings)}.`,
    });
  ctx.success(`Key ${report.key} (from ${report.keySource}) is accepted by ${report.baseUrl}`);
  return 0;
}

/** One cheap call (the first test) tells whether a key is accepted. Network failures propagate. */
export async function checkKey(client: Client): Promise<{ ok: boolean; status?: number }> {
  try {
    await client.tests.list({ page: 1, pageSize: 1 });
    return { ok: true };
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403))
      return { ok: false, status: error.status };
    throw error;
  }
}

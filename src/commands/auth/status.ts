import type { Context } from "../../context.js";
import { AuthError } from "../../errors.js";
import type { Column } from "../../output/output.js";
import { redactKey } from "../../redact.js";
import { verifyKey } from "./verify.js";

const STATUS_COLUMNS: Column[] = [
  { key: "profile", header: "PROFILE" },
  { key: "key", header: "KEY" },
  { key: "keySource", header: "KEY FROM" },
  { key: "baseUrl", header: "BASE URL" },
  { key: "skillsBaseUrl", header: "SKILLS BASE URL" },
  { key: "valid", header: "VALID" },
];

export async function run(ctx: Context) {
  const s = ctx.settings;
  if (!s.apiKey) {
    throw new AuthError(`No API key for profile "${s.profile}"`, {
      suggestion: "Run `assess auth login`, or set ASSESS_API_KEY.",
    });
  }
  const check = await verifyKey(ctx, s.apiKey);
  const report = {
    profile: s.profile,
    key: redactKey(s.apiKey),
    keySource: s.apiKeySource,
    baseUrl: s.baseUrl,
    skillsBaseUrl: s.skillsBaseUrl,
    valid: check.ok,
  };
  await ctx.out.record(report, STATUS_COLUMNS);
  if (!check.ok)
    throw new AuthError(`The service refused the key ${report.key} (HTTP ${check.status})`, {
      status: check.status,
      suggestion: "Run `assess auth login` with a valid key.",
    });
  ctx.success(`Key ${report.key} (from ${s.apiKeySource}) is accepted by ${s.baseUrl}`);
  return 0;
}

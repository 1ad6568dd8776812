import { AUDIT_FILE, MAX_AUDIT_BYTES, readAudit, SURFACES } from "../../config/audit.js";
import { configDir } from "../../config/store.js";
import type { Context } from "../../context.js";
import type { Row } from "../../output/output.js";
import { flag } from "../shared/flags.js";
import { type OptionsOf, verb } from "../shared/verb.js";

const flags = {
  since: flag.date("start", "only writes from this time on (a bare date: from the start of that day)"),
  surface: flag.choice(SURFACES, "only writes sent from this surface", { value: "<surface>" }),
};

export default verb({
  summary:
    "Show the audit log: every write sent from the CLI, the SDK and the MCP server, who sent it and how it went",
  flags,
  examples: [
    "assess audit",
    "assess audit --since 7d --surface mcp",
    "assess audit --since 2026-11-01 --json",
  ],
  notes: [
    `Every write sent (an invitation, a cancellation, each request of a bulk run, a raw \`assess api\` POST) adds one line to ${AUDIT_FILE} in the config folder (0600), from the CLI, the SDK and \`assess mcp\` alike: time, surface, actor, assistant, profile (\`sandbox\` with --sandbox), operation, the path's ids or a bulk request's count, outcome (ok, error and its HTTP status, uncertain). Never the key, an e-mail or a name.`,
    "The actor is the OS user, or `ci` when CI is set; for `assess mcp`, the client's name/version from initialize; for `assess mcp --http`, the name of the session's token. An assistant is named when it announces itself: CLAUDECODE (claude-code), CURSOR_AGENT (cursor), GEMINI_CLI (gemini-cli), CODEX_SANDBOX or CODEX_THREAD_ID (codex), or AI_AGENT (its value).",
    `At ${MAX_AUDIT_BYTES / 1024 / 1024} MiB the log becomes ${AUDIT_FILE}.1 (one previous file kept). A write whose line cannot be kept (a link in the log's place) is not sent; the SDK records its writes too unless createClient({ audit: false }).`,
  ].join("\n"),
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>) {
  const { entries, skipped } = await readAudit(configDir(ctx.io.env), { since: o.since, surface: o.surface });
  if (skipped > 0) {
    ctx.warn(
      `Skipped ${skipped} line${skipped === 1 ? "" : "s"} of the audit log that ${skipped === 1 ? "is" : "are"} not a record (cut short by a crash, or longer than 64 KiB)`,
    );
  }
  if (entries.length === 0 && !ctx.out.isJson) {
    ctx.info(`No writes recorded${o.since || o.surface ? " that match" : ""} in ${configDir(ctx.io.env)}`);
    return 0;
  }
  const rows = entries as unknown as Row[];
  // JSON keeps each line's fields as written; a table joins the target's and the outcome's.
  const json = ctx.out.isJson;
  await ctx.out.list(rows, [
    { key: "time", header: "TIME" },
    { key: "surface", header: "SURFACE" },
    { key: "actor", header: "ACTOR" },
    { key: "assistant", header: "ASSISTANT" },
    { key: "profile", header: "PROFILE" },
    { key: "operation", header: "OPERATION" },
    ...(json
      ? ["method", "target", "count", "outcome", "status", "error"].map((key) => ({ key }))
      : [
          { key: "target", header: "TARGET", get: targetText },
          { key: "outcome", header: "OUTCOME", get: outcomeText },
        ]),
  ]);
  return 0;
}

/** `testId=1001 testInvitationId=5`, then `count=250`. */
function targetText(row: Row): string {
  const target = row.target && typeof row.target === "object" ? Object.entries(row.target) : [];
  const parts = target.map(([name, value]) => `${name}=${String(value)}`);
  if (typeof row.count === "number") parts.push(`count=${row.count}`);
  return parts.join(" ");
}

/** `ok`, `uncertain`, `error 404`, `error network`. */
function outcomeText(row: Row): string {
  const detail = row.status ?? row.error;
  return detail === undefined ? String(row.outcome) : `${String(row.outcome)} ${String(detail)}`;
}

/**
 * `assess rules test <rules.yaml> --from 30d`: the rules checked against a past period's finished attempts and
 * their reports, as `attempts watch --rules` would check them; which would fire, with their actions, and why
 * the others would not. Only reads: nothing is invited, posted, appended or run.
 */
import type { Context } from "../../context.js";
import { attemptTestId } from "../../core/finished-attempts.js";
import { periodReports } from "../../core/period-reports.js";
import { evaluate, missingTests } from "../../core/rules/evaluate.js";
import { rulesError } from "../../core/rules/problems.js";
import { readRules } from "../../core/rules/read.js";
import { describeAction } from "../../core/rules/rule.js";
import { scoreOf } from "../../core/stats.js";
import { escapeControls } from "../../escape.js";
import type { Row } from "../../output/output.js";
import { arg, flag } from "../shared/flags.js";
import { periodFlags, periodFromOptions, periodYes } from "../shared/period.js";
import { type OptionsOf, verb } from "../shared/verb.js";

const flags = {
  ...periodFlags(
    "start of the period whose finished attempts are checked (YYYY-MM-DD, ISO, 30d)",
    "end of the period (inclusive for a bare date; default now)",
  ),
  firing: flag.bool("list only the rules that would fire (every rule of each attempt's test by default)"),
  concurrency: flag.int(1, 32, "reports fetched at once (1-32)").default("8"),
  yes: periodYes(),
};

export default verb({
  summary:
    "Show which rules of a rules file would fire on a past period's finished attempts, and why the others would not; sends nothing",
  args: [arg.text("<rules.yaml>", "the rules file (see `assess rules check --help` for its format)")],
  flags,
  notes:
    "Reads the period's finished attempts of the tests the rules name (every test when a rule says `test: any`) and each one's report, then checks each rule of the attempt's test as attempts watch --rules would: one row per attempt and rule, FIRES yes with the actions it would take, or no with the first part of its condition the report does not meet. Nothing is invited, forwarded, appended or run, and no watch state is touched. The file is checked first, as rules check does (exit 2 naming its line and key).",
  examples: [
    "assess rules test rules.yaml --from 30d",
    "assess rules test rules.yaml --from 2026-10-01 --to 2026-10-31 --firing",
    "assess rules test rules.yaml --from 7d --json | jq '[.[] | select(.fires)] | length'",
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>, [file]: [string]): Promise<number> {
  const { rules } = readRules(file);
  const period = await periodFromOptions(ctx, { ...o, to: o.to ?? new Date() });
  const client = await ctx.client();
  const missing = await missingTests(ctx, client.api, rules);
  if (missing.length > 0) throw rulesError(file, missing);
  const any = rules.some((rule) => rule.tests === "any");
  const tests = any ? [] : [...new Set(rules.flatMap((rule) => (rule.tests === "any" ? [] : rule.tests)))];
  const { attempts, outcomes } = await periodReports(ctx, client.api, period, tests, o.concurrency);

  const rows: Row[] = [];
  const fired = new Map<string, number>();
  let failed = 0;
  for (const outcome of outcomes) {
    const { attempt } = outcome;
    const base = {
      testInvitationId: attempt.testInvitationId,
      testId: attemptTestId(attempt) ?? attempt.testId,
      email: attempt.email,
    };
    if ("error" in outcome) {
      failed++;
      ctx.warn(
        `The report of attempt ${attempt.testInvitationId} could not be read: ${outcome.error.message}`,
      );
      continue;
    }
    const score = scoreOf(outcome.report);
    for (const verdict of evaluate(rules, attempt, outcome.report)) {
      if (verdict.fires) fired.set(verdict.rule.name, (fired.get(verdict.rule.name) ?? 0) + 1);
      if (o.firing && !verdict.fires) continue;
      rows.push({
        ...base,
        score: score === undefined ? undefined : Math.round(score * 100) / 100,
        rule: verdict.rule.name,
        fires: verdict.fires,
        detail: verdict.fires ? verdict.rule.actions.map(describeAction).join("; ") : verdict.why,
      });
    }
  }
  await ctx.out.list(rows, [
    { key: "testInvitationId", header: "ATTEMPT" },
    { key: "testId", header: "TEST" },
    { key: "email", header: "CANDIDATE" },
    { key: "score", header: "SCORE" },
    { key: "rule", header: "RULE" },
    { key: "fires", header: "FIRES", get: (row) => (ctx.out.isJson ? row.fires : row.fires ? "yes" : "no") },
    { key: "detail", header: "DETAIL", prose: true },
  ]);
  const counts = rules.map((rule) => `${escapeControls(rule.name)} ${fired.get(rule.name) ?? 0}`).join(", ");
  ctx.info(
    `${attempts.length} finished attempt${attempts.length === 1 ? "" : "s"} checked${failed > 0 ? ` (${failed} without a report)` : ""}; would fire: ${counts}. Nothing was sent.`,
  );
  return failed > 0 && failed === outcomes.length ? 1 : 0;
}

/**
 * `assess rules check <rules.yaml>`: reads a rules file as `attempts watch --rules` does and lists its rules;
 * a problem is named by file, line and key (exit 2). The tests it names are looked up when a key (or
 * --sandbox) is at hand: one the service does not know, or another account's, is a problem too.
 */
import type { Context } from "../../context.js";
import { missingTests } from "../../core/rules/evaluate.js";
import { rulesError } from "../../core/rules/problems.js";
import { readRules } from "../../core/rules/read.js";
import { describeAction, describeCondition, type Rule } from "../../core/rules/rule.js";
import { AuthError } from "../../errors.js";
import type { Row } from "../../output/output.js";
import { arg } from "../shared/flags.js";
import { verb } from "../shared/verb.js";

export const RULES_FORMAT = `A rules file is YAML: a list under \`rules:\`. Each rule has a name (unique: with the attempt, it keys each action's one run, so renaming a rule or moving its actions runs them again for later attempts only), a test (an id, a list of ids, or \`any\`), a condition \`when\` (all must hold; left out, every finished attempt matches) and \`actions\`.
Conditions, on the attempt's report: \`score: { atLeast: 70 }\` or \`{ below: 40 }\` or both (the score percentage, else points out of the total, as reports stats reads it); \`status: Complete\` or a list of Complete, TestLeft, Terminated; \`sections: { SQL: { atLeast: 50 } }\` (a section's points out of its total, as a percentage; the section named as the report names it, any case).
Actions, each run once per attempt and rule, as attempts watch --forward delivers (pending until done, tried again, dead-lettered after --give-up-after): \`invite: { test: 1002, end: +7d }\` invites the candidate to the next test through the call invite send makes, e-mail sent (\`sendEmail: false\` not; \`start\`, \`timezone\` too); \`forward: <url>\`, \`slack:<webhook URL>\` or \`teams:<workflow URL>\` posts the attempt with its report and rule (a URL signed as --forward is: with a signing secret, webhook-id \`assess_<attempt>_rule-<rule>-<n>-<kind>\`, the rule's name in lower case with - for spaces and signs, n the action's place in the rule); \`append: shortlist.csv\` adds a row (rule, attempt, test, candidate, status, score, key) to a CSV file beside the rules file, formulas neutralised, never twice for one key; \`exec: [./advance.sh, arg]\` runs a program (a list: no shell) or \`exec: "cmd | cmd"\` a shell command, with the attempt, its report and the rule as JSON on stdin and ASSESS_TEST_INVITATION_ID, ASSESS_TEST_ID, ASSESS_RULE and ASSESS_IDEMPOTENCY_KEY in its environment (no text of the service on its command line), killed after \`timeout\` (\`exec: { command: [...], timeout: 30s }\`, default 60s), its output shown up to 64 KiB.
The file is at most 1 MiB, 16 levels deep, with at most 64 aliases (*name).`;

export default verb({
  summary: "Check a rules file for attempts watch --rules: its format, and that the tests it names exist",
  args: [arg.text("<rules.yaml>", "the rules file")],
  notes: `Every problem is named by its file, line and key (exit 2). The tests the file names (its rules' and their invites') are looked up on the service when an API key is configured or with --sandbox: one it does not know, or another account's, is a problem; without a key only the file is checked (said on stderr).
${RULES_FORMAT}`,
  examples: ["assess rules check rules.yaml", "assess rules check rules.yaml --json | jq '.rules[].name'"],
  run,
});

async function run(ctx: Context, _o: unknown, [file]: [string]): Promise<number> {
  const { rules } = readRules(file);
  let testsChecked = false;
  let client: Awaited<ReturnType<Context["client"]>> | undefined;
  try {
    client = await ctx.client();
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    ctx.info(
      `The tests ${file} names were not looked up: no API key (set one with \`assess auth login\`, or pass --sandbox).`,
    );
  }
  if (client) {
    const missing = await missingTests(ctx, client.api, rules);
    if (missing.length > 0) throw rulesError(file, missing);
    testsChecked = true;
  }
  ctx.success(
    `${file}: ${rules.length} rule${rules.length === 1 ? "" : "s"}, no problems${testsChecked ? " (tests looked up)" : ""}`,
  );
  const rows = rules.map(ruleRow);
  if (ctx.out.isJson) {
    ctx.out.json({ file, testsChecked, rules: rows });
    return 0;
  }
  await ctx.out.list(rows, [
    { key: "name", header: "RULE" },
    { key: "tests", header: "TESTS" },
    { key: "when", header: "WHEN" },
    { key: "actions", header: "ACTIONS", prose: true },
  ]);
  return 0;
}

function ruleRow(rule: Rule): Row {
  return {
    name: rule.name,
    line: rule.line,
    tests: rule.tests === "any" ? "any" : rule.tests.join(", "),
    when: describeCondition(rule.when),
    actions: rule.actions.map(describeAction).join("; "),
  };
}

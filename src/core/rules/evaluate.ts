/**
 * Which rules an attempt's report satisfies, and why not for the others (`rules test` shows it), and the keys
 * that make each action run once per attempt: `<attempt id>:<rule name>#<n>.<kind>`.
 */
import type { Api } from "../../api/endpoints.js";
import type { Report, TestAttempt } from "../../api/schemas.js";
import { ApiError } from "../../errors.js";
import { field } from "../../fields.js";
import { attemptTestId } from "../finished-attempts.js";
import type { Notices } from "../notices.js";
import { scoreOf } from "../stats.js";
import type { RuleProblem } from "./problems.js";
import { type Action, type Bounds, type Rule, statusKey, testsNamed } from "./rule.js";

/** The rules that apply to an attempt of `testId` (those of any test included). */
export function rulesOfTest(rules: readonly Rule[], testId: number | undefined): Rule[] {
  return rules.filter(
    (rule) => rule.tests === "any" || (testId !== undefined && rule.tests.includes(testId)),
  );
}

/** Whether some rule applies to this attempt's test: its report is read only then. */
export function concerns(rules: readonly Rule[], attempt: TestAttempt): boolean {
  return rulesOfTest(rules, attemptTestId(attempt)).length > 0;
}

export interface Verdict {
  rule: Rule;
  fires: boolean;
  /** Why it does not: `score 62 is below 70`. */
  why?: string;
}

/** Each rule of the attempt's test, whether its condition holds on the report. */
export function evaluate(rules: readonly Rule[], attempt: TestAttempt, report: Report): Verdict[] {
  return rulesOfTest(rules, attemptTestId(attempt)).map((rule) => {
    const why = unmet(rule, attempt, report);
    return why === undefined ? { rule, fires: true } : { rule, fires: false, why };
  });
}

/** The first part of the rule's condition the report does not meet, or undefined when it meets them all. */
function unmet(rule: Rule, attempt: TestAttempt, report: Report): string | undefined {
  const { score, status, sections } = rule.when;
  if (status) {
    const given = field(report, "Status") ?? field(attempt as Record<string, unknown>, "testStatus");
    const key = typeof given === "string" ? statusKey(given) : undefined;
    if (key === undefined || !status.some((s) => statusKey(s) === key))
      return `status ${typeof given === "string" ? given : "unknown"} is not ${status.join(" or ")}`;
  }
  if (score) {
    const why = outside("score", scoreOf(report), score);
    if (why) return why;
  }
  for (const section of sections ?? []) {
    const found = (report.sections ?? []).find(
      (s) =>
        typeof s.sectionName === "string" &&
        s.sectionName.trim().toLowerCase() === section.name.trim().toLowerCase(),
    );
    if (!found) return `the report has no section "${section.name}"`;
    const points = Number(found.candidateScore);
    const total = Number(found.sectionScore);
    const percentage =
      Number.isFinite(points) && Number.isFinite(total) && total > 0 ? (points / total) * 100 : undefined;
    const why = outside(`section ${section.name}`, percentage, section);
    if (why) return why;
  }
  return undefined;
}

function outside(what: string, value: number | undefined, { atLeast, below }: Bounds): string | undefined {
  if (value === undefined) return `the report has no ${what}`;
  const shown = Math.round(value * 100) / 100;
  if (atLeast !== undefined && value < atLeast) return `${what} ${shown} is below ${atLeast}`;
  if (below !== undefined && value >= below) return `${what} ${shown} is not below ${below}`;
  return undefined;
}

/** The key of a rule's action, stable while the rule keeps its name and the action its place and kind. */
export function actionKey(rule: Rule, index: number): string {
  return `${rule.name}#${index + 1}.${rule.actions[index]!.kind}`;
}

/** The rule and action a key names in these rules, if they still hold it. */
export function actionOf(rules: readonly Rule[], key: string): { rule: Rule; action: Action } | undefined {
  const match = /^(.*)#(\d+)\.(\w+)$/.exec(key);
  if (!match) return undefined;
  const rule = rules.find((r) => r.name === match[1]);
  const action = rule?.actions[Number(match[2]) - 1];
  return rule && action && action.kind === match[3] ? { rule, action } : undefined;
}

/** The key of one run of an action: per attempt, rule and action, what a receiver or command can drop repeats by. */
export function idempotencyKey(attempt: TestAttempt, key: string): string {
  return `${attempt.testInvitationId}:${key}`;
}

/**
 * The tests a rules file names that the service does not know (404) or that are another account's (403),
 * each a problem at its line. Any other failure (a bad key, the network) is thrown.
 */
export async function missingTests(
  notices: Pick<Notices, "signal">,
  api: Api,
  rules: readonly Rule[],
): Promise<RuleProblem[]> {
  const problems: RuleProblem[] = [];
  for (const [id, where] of testsNamed(rules)) {
    if (notices.signal.aborted) break;
    try {
      await api.call("getTest", [id]);
    } catch (error) {
      const status = error instanceof ApiError ? error.status : undefined;
      if (status !== 404 && status !== 403) throw error;
      const message =
        status === 404
          ? `test ${id} does not exist on the service`
          : `test ${id} is not one of this account's tests (403)`;
      problems.push({ ...where, message: `${message}; \`assess tests list\` shows yours` });
    }
  }
  return problems;
}

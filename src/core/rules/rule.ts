/**
 * What a rule of a rules file is (`attempts watch --rules`, `rules check`, `rules test`): for each finished
 * attempt of a test, a condition on its report and the actions to take once when it holds; and how a rule reads
 * to a person. read.ts reads a file of them:
 *
 *   rules:
 *     - name: advance            # unique: with the attempt, it keys each action's one run
 *       test: 1001               # a test id, a list of them, or `any`
 *       when:                    # all must hold; left out, every finished attempt matches
 *         score: { atLeast: 70 } # the report's score percentage; `below` too
 *         status: Complete       # or a list: Complete, TestLeft, Terminated
 *         sections: { SQL: { atLeast: 50 } }
 *       actions:
 *         - invite: { test: 1002, end: +7d }
 *         - forward: slack:https://hooks.slack.com/services/…
 *         - append: shortlist.csv
 *         - exec: [./advance.sh, --stage, "2"]
 */
import { type Destination, describeDestination } from "../forward.js";

export interface Bounds {
  atLeast?: number;
  below?: number;
}

export interface Condition {
  score?: Bounds;
  /** As FINAL_STATUSES spells them; compared by statusKey. */
  status?: string[];
  sections?: Array<{ name: string } & Bounds>;
}

interface Located {
  /** The line of the file it was declared on, for messages. */
  line: number;
}

export type Action = Located &
  (
    | {
        kind: "invite";
        test: number;
        /** As written (`+7d`, an ISO time): read when the action runs, so a relative end counts from then. */
        end: string;
        start?: string;
        sendEmail: boolean;
        timezone?: number;
      }
    | { kind: "forward"; destination: Destination }
    | { kind: "append"; file: string }
    | {
        kind: "exec";
        /** A string runs through the shell, as --exec; a list is the program and its arguments, no shell. */
        command: string | string[];
        timeoutMs: number;
      }
  );

export type ActionKind = Action["kind"];
export const ACTION_KINDS: readonly ActionKind[] = ["invite", "forward", "append", "exec"];

export interface Rule extends Located {
  name: string;
  /** Test ids, or every test. */
  tests: number[] | "any";
  /** The line of `test:`. */
  testLine: number;
  when: Condition;
  actions: Action[];
}

export interface Rules {
  file: string;
  rules: Rule[];
}

/** A status as rules compare it: `Complete` and `Completed` alike, `Test Left` as `TestLeft`, any case. */
export function statusKey(status: string): string {
  const key = status.toLowerCase().replace(/[\s_-]+/g, "");
  return key === "completed" ? "complete" : key;
}

/** Every test id a rules file names (its rules' tests and their invites' tests), each with its first line. */
export function testsNamed(rules: readonly Rule[]): Map<number, { line: number; key: string }> {
  const named = new Map<number, { line: number; key: string }>();
  rules.forEach((rule, i) => {
    if (rule.tests !== "any") {
      for (const id of rule.tests)
        if (!named.has(id)) named.set(id, { line: rule.testLine, key: `rules[${i}].test` });
    }
    rule.actions.forEach((action, j) => {
      if (action.kind === "invite" && !named.has(action.test))
        named.set(action.test, { line: action.line, key: `rules[${i}].actions[${j}].invite.test` });
    });
  });
  return named;
}

/** `invite to test 1002 (end +7d)`, `forward to Slack (hooks.slack.com)`, `append to /x/shortlist.csv`, `exec ./a.sh`. */
export function describeAction(action: Action): string {
  switch (action.kind) {
    case "invite":
      return `invite to test ${action.test} (end ${action.end}${action.sendEmail ? "" : ", no e-mail"})`;
    case "forward":
      return `forward to ${describeDestination(action.destination)}`;
    case "append":
      return `append to ${action.file}`;
    case "exec":
      return `exec ${typeof action.command === "string" ? action.command : action.command.join(" ")}`;
  }
}

/** `score ≥ 70, status Complete, section SQL < 40`; `every finished attempt` when there is no condition. */
export function describeCondition({ score, status, sections }: Condition): string {
  const bounds = (what: string, b: Bounds) =>
    [
      b.atLeast !== undefined ? `${what} ≥ ${b.atLeast}` : "",
      b.below !== undefined ? `${what} < ${b.below}` : "",
    ]
      .filter(Boolean)
      .join(", ");
  const parts = [
    score ? bounds("score", score) : "",
    status ? `status ${status.join(" or ")}` : "",
    ...(sections ?? []).map((s) => bounds(`section ${s.name}`, s)),
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(", ") : "every finished attempt";
}

/**
 * A rules file's problems, each named by its file, line and key (`rules.yaml:7: rules[0].actions[1]: unknown
 * action "invit"`), all of them at once.
 */
import { UsageError } from "../../errors.js";

/** One problem of a rules file, where it is. */
export interface RuleProblem {
  line: number;
  key: string;
  message: string;
}

/** `rules.yaml:7: rules[0].when.score: …` */
function describeProblem(file: string, p: RuleProblem): string {
  return `${file}:${p.line}: ${p.key ? `${p.key}: ` : ""}${p.message}`;
}

/** A rules file's problems, all of them (exit 2: nothing was sent). */
export function rulesError(file: string, problems: RuleProblem[]): UsageError {
  const lines = problems.map((p) => describeProblem(file, p));
  const message =
    lines.length === 1
      ? lines[0]!
      : `${file} has ${lines.length} problems:\n${lines.map((l) => `  ${l}`).join("\n")}`;
  return new UsageError(
    message,
    "Fix the file and check it with `assess rules check`; `assess rules check --help` shows the format.",
    lines,
  );
}

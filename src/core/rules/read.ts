/**
 * Reads a rules file: the file (a regular one, at most MAX_RULES_BYTES), its YAML (yaml.ts, bounded since a
 * file may come from anywhere), its rules (check-rule.ts), every problem at once.
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { CliError, UsageError } from "../../errors.js";
import { RuleChecks } from "./check-rule.js";
import { type RuleProblem, rulesError } from "./problems.js";
import type { Rule, Rules } from "./rule.js";
import { walkYaml } from "./yaml.js";

/** A rules file larger than this is not one a person wrote. */
export const MAX_RULES_BYTES = 1024 * 1024;

/** Reads and checks a rules file; every problem at once as one UsageError (exit 2). */
export function readRules(file: string): Rules {
  let text: string;
  try {
    const info = statSync(file);
    if (!info.isFile())
      throw new UsageError(`${file} is not a file`, "Give the path of a rules file (YAML).");
    if (info.size > MAX_RULES_BYTES) {
      throw new UsageError(
        `${file} is ${info.size} bytes: a rules file is at most ${MAX_RULES_BYTES} (1 MiB)`,
        "Give the rules file itself.",
      );
    }
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (error instanceof CliError) throw error;
    const code = (error as { code?: string }).code;
    if (code === "ENOENT") throw new UsageError(`No rules file at ${file}`, "Check the path.");
    throw new UsageError(`Cannot read the rules file ${file}: ${(error as Error).message}`);
  }
  const { rules, problems } = parseRules(text, dirname(resolve(file)));
  if (problems.length > 0) throw rulesError(file, problems);
  return { file, rules };
}

/** Parses the text of a rules file; paths (`append`) are taken from `base`, the file's folder. */
export function parseRules(text: string, base: string): { rules: Rule[]; problems: RuleProblem[] } {
  const problems: RuleProblem[] = [];
  const walk = walkYaml(text, problems);
  if (!walk) return { rules: [], problems };
  const rules = new RuleChecks(walk, base).file();
  problems.sort((a, b) => a.line - b.line);
  // A part left out for its problem (an unknown key) may leave a rule that reads as whole: none is kept then.
  return { rules: problems.length > 0 ? [] : rules, problems };
}

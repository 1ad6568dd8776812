/**
 * Completion offers each command's own values for each option: the generated script run in the real shell
 * (bash, zsh, fish, where installed).
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runCli, useTempDir } from "../helpers/cli.js";

const tmp = useTempDir("assess-first-hour-b-");

const has = (shell: string) => spawnSync(shell, ["-c", "exit 0"]).status === 0;

/** What the shell offers after `line` (which ends where the cursor is: "assess links create --type "). */
function offered(shell: "bash" | "zsh" | "fish", script: string, line: string): string[] {
  const file = tmp.file(`assess.${shell}`);
  writeFileSync(file, script);
  const words = line.split(" ");
  let run: ReturnType<typeof spawnSync>;
  if (shell === "fish") {
    run = spawnSync("fish", ["--no-config", "-c", `source ${file}; complete -C ${JSON.stringify(line)}`], {
      encoding: "utf8",
    });
    if (run.status !== 0) throw new Error(String(run.stderr));
    return String(run.stdout)
      .split("\n")
      .filter(Boolean)
      .map((entry) => entry.split("\t")[0]!);
  }
  const array = words.map((w) => JSON.stringify(w)).join(" ");
  const program =
    shell === "zsh"
      ? // What bashcompinit's _bash_complete sets up before it calls the function through compgen -F.
        // compdef (compinit's, which bashcompinit's complete calls) is stubbed: only the function is run.
        `compdef() { :; }
source ${JSON.stringify(file)}
words=(${array}); CURRENT=\${#words}; COMP_WORDS=("\${words[@]}"); COMP_CWORD=$((CURRENT - 1))
compgen -F _assess -- ${JSON.stringify(words.at(-1))}`
      : `source ${JSON.stringify(file)}
COMP_WORDS=(${array}); COMP_CWORD=${words.length - 1}
_assess
printf '%s\\n' "\${COMPREPLY[@]}"`;
  run = spawnSync(shell, shell === "zsh" ? ["-f", "-c", program] : ["--norc", "--noprofile", "-c", program], {
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(String(run.stderr));
  return String(run.stdout).split("\n").filter(Boolean);
}

/**
 * Where zsh or fish is not installed, the script is still checked: zsh's is the bash function (bashcompinit),
 * run by bash; fish's completions are read from its lines, scoped by command path.
 */
function offeredWithout(shell: "zsh" | "fish", script: string, line: string): string[] {
  if (shell === "zsh") return offered("bash", script.replace(/^autoload .*$/m, ""), line);
  const words = line.trim().split(" ").slice(1);
  const flag = words.at(-1)!;
  const path = words.slice(0, -1).filter((w) => /^[a-z][a-z-]*$/.test(w));
  const values = (lines: string[]) => lines.flatMap((l) => /-x -a '([^']*)'/.exec(l)?.[1]?.split(" ") ?? []);
  const lines = script
    .split("\n")
    .filter((l) => l.includes(` -l ${flag.slice(2)} `) || l.includes(` -s ${flag.slice(1)} `));
  // The deepest known path is where the cursor is, as __assess_path finds it; global options apply anywhere.
  const known = (p: string[]) => script.includes(`'__assess_at ${p.join(" ")}'`);
  let n = path.length;
  while (n > 0 && !known(path.slice(0, n))) n--;
  const own = lines.filter((l) => l.includes(`-n '__assess_at ${path.slice(0, n).join(" ")}'`));
  return values(own.length > 0 ? own : lines.filter((l) => !l.includes(" -n ")));
}

describe("completion offers each command's own values for each option", () => {
  for (const shell of ["bash", "zsh", "fish"] as const) {
    it(`${shell}: links create --type/--schedule/--status, reports get --type, and nothing of reports' --type for tests get or links get`, async () => {
      const r = await runCli(["completion", shell]);
      expect(r.code, r.stderr).toBe(0);
      const ask = (line: string) =>
        (shell === "bash" || has(shell)
          ? offered(shell, r.stdout, line)
          : offeredWithout(shell, r.stdout, line)
        )
          .filter((word) => !word.startsWith("-"))
          .sort();
      expect(ask("assess links create --type ")).toEqual(["email", "open"]);
      expect(ask("assess links update 3001 --type ")).toEqual(["email", "open"]);
      expect(ask("assess links create --schedule ")).toEqual(["slotwise", "timebound", "validityindays"]);
      expect(ask("assess links create --status ")).toEqual(["active", "inactive"]);
      expect(ask("assess links create --proctoring ")).toEqual(["disabled", "image", "video"]);
      expect(ask("assess reports get --type ")).toEqual(["1", "2", "3"]);
      expect(ask("assess sandbox complete --status ")).toEqual(["Complete", "Terminated", "TestLeft"]);
      expect(ask("assess tests get --type ")).toEqual([]);
      expect(ask("assess links get 3001 --type ")).toEqual([]);
      expect(ask("assess links create -o ")).toEqual(["csv", "json", "ndjson", "table", "tsv"]);
    });
  }
});

import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runCli } from "../helpers/cli.js";

describe("help topics", () => {
  it.each(["environment", "formatting", "exit-codes"])("assess help %s", async (topic) => {
    const r = await runCli(["help", topic]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(topic.toUpperCase().replace("-", " "));
  });

  it("assess help exit-codes says what CLI.md's table says, its notes on 3 and 4 included", async () => {
    const text = (await runCli(["help", "exit-codes"])).stdout.replace(/\s+/g, " ");
    expect(text).toContain("(rows skipped by --skip-invalid alone do not make it 3)");
    expect(text).toContain(
      "(a 401 of callbacks resend's request, POST /v3/callbacks/process, that names invalid ids is a per-id failure, not this)",
    );
  });

  it("assess help environment names every ASSESS_* variable the CLI reads", async () => {
    const names = new Set<string>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory() && entry.name !== "sandbox") walk(path);
        else if (entry.name.endsWith(".ts"))
          for (const [name] of readFileSync(path, "utf8").matchAll(/\bASSESS_[A-Z_]+/g)) names.add(name);
      }
    };
    walk(join(ROOT, "src"));
    // Error codes, and the variables `attempts watch --exec` and a rule's `exec` give their command (their help
    // says so: watch's, and rules check's).
    const notRead = [
      "ASSESS_TOO_LARGE",
      "ASSESS_DEADLINE",
      "ASSESS_TEST_INVITATION_ID",
      "ASSESS_TEST_ID",
      "ASSESS_RULE",
      "ASSESS_IDEMPOTENCY_KEY",
    ];
    const help = (await runCli(["help", "environment"])).stdout;
    expect([...names].filter((name) => !notRead.includes(name) && !help.includes(name))).toEqual([]);
    expect(names.has("ASSESS_WEBHOOK_SECRET")).toBe(true);
  });

  it("assess help <command> shows that command's help", async () => {
    const r = await runCli(["help", "invite", "send"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: assess invite send");
  });

  it("an unknown topic is exit 2 and lists the topics", async () => {
    const r = await runCli(["help", "nope"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("environment, formatting, exit-codes");
  });
});

/** Sources the generated script in a real bash and asks it to complete `line`. */
function complete(script: string, line: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), "assess-completion-"));
  const file = join(dir, "assess.bash");
  writeFileSync(file, script);
  const words = line.split(" ");
  const program = `
source ${JSON.stringify(file)}
COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(" ")})
COMP_CWORD=${words.length - 1}
_assess
printf '%s\\n' "\${COMPREPLY[@]}"
`;
  const r = spawnSync("bash", ["--norc", "--noprofile", "-c", program], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.split("\n").filter(Boolean);
}

describe("completion", () => {
  it("bash: groups, verbs, options and enum values complete in a real bash", async () => {
    const r = await runCli(["completion", "bash"]);
    expect(r.code).toBe(0);
    expect(complete(r.stdout, "assess inv")).toEqual(["invite"]);
    expect(complete(r.stdout, "assess invite b")).toEqual(["bulk"]);
    expect(complete(r.stdout, "assess invite bulk --ret")).toEqual(["--retry-uncertain", "--retries"]);
    expect(complete(r.stdout, "assess -o ").sort()).toEqual(["csv", "json", "ndjson", "table", "tsv"]);
    expect(complete(r.stdout, "assess invite send --proctoring v")).toEqual(["video"]);
    expect(complete(r.stdout, "assess tests settings ")).toEqual(expect.arrayContaining(["get", "set"]));
  });

  it("zsh and fish scripts are generated from the same tree", async () => {
    const zsh = await runCli(["completion", "zsh"]);
    expect(zsh.stdout).toMatch(/^#compdef assess/);
    expect(zsh.stdout).toContain("invite");
    const fish = await runCli(["completion", "fish"]);
    // Scoped by the exact command path: at the root, the groups.
    expect(fish.stdout).toContain("complete -c assess -n '__assess_at' -a invite");
    expect(fish.stdout).toContain("-l proctoring -x -a 'disabled image video'");
  });

  it("an unknown shell is exit 2", async () => {
    expect((await runCli(["completion", "tcsh"])).code).toBe(2);
  });
});

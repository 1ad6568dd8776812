/**
 * Every `Examples:` line of every command's --help runs as written: as docs/reference shows it (80 columns, long
 * lines continued with \ and # as a shell reads them), through bash, against a sandbox, from a folder holding the
 * files it names, in the order of the reference. Each exits 0, or as EXPECTED says and why.
 *
 * The `assess` on the examples' PATH is main() of this process (test/helpers/shell.ts): bash runs each line with
 * its pipes, redirections and variables, and hands each `assess` to main(argv, io) here, against the sandbox over
 * loopback. The examples that run until Ctrl-C run the built CLI: a process interrupted in a terminal is their
 * subject.
 */
import { type ChildProcess, type StdioOptions, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import writeXlsxFile from "write-excel-file/node";
import { ROOT, SANDBOX_KEYS, stopWhenTestEnds, useTempDir, useTestEnv } from "../helpers/cli.js";
import { helpTexts } from "../helpers/reference.js";
import { type Relay, startRelay } from "../helpers/shell.js";

interface Expected {
  /** The example's exit code(s). */
  codes?: number[];
  /** Runs until stopped: started, seen waiting (its "Ctrl-C" line), then interrupted (exit 130). */
  longRunning?: boolean;
  /** The fixed port it listens on: not run while something else holds it (a sandbox of the README's tour). */
  port?: number;
  /** What its output shows (stdout). */
  shows?: RegExp;
  /** Not run, and why. */
  skip?: string;
  why?: string;
}

/** Examples that do not simply exit 0, keyed by their start. Each key must match an example (the last test). */
const EXPECTED: Record<string, Expected> = {
  "assess attempts watch --test 1001,1002": { longRunning: true },
  "assess attempts watch --exec": { longRunning: true },
  "assess attempts watch --forward http://127.0.0.1:3000": { longRunning: true },
  "assess attempts watch --once --forward": { skip: "its destination is a placeholder on hooks.slack.com" },
  "assess attempts watch --once --rules": { skip: "its rules post to a placeholder on hooks.slack.com" },
  "ASSESS_WEBHOOK_SECRET=whsec_…": { skip: "its secret and destination are placeholders" },
  "assess attempts watch --signing-secret": { skip: "its secrets and destination are placeholders" },
  "assess auth login\n": { codes: [2], why: "a hidden prompt: no terminal here" },
  "assess callbacks resend": {
    codes: [0, 3],
    why: "the sandbox's attempts have no callback URL, so the service refuses to queue their notifications (exit 3)",
  },
  "assess callbacks reconcile --from 2026-10-01": {
    codes: [0, 3],
    why: "what it resends the service refuses: no callback URL (exit 3); the sandbox's dates move with today",
  },
  "0 6 * * *": { skip: "a crontab line" },
  "assess callbacks listen": { longRunning: true, port: 4020 },
  "assess employees sync staff.csv --prune --yes": {
    codes: [2],
    why: "staff.csv (fixtures/employees.csv) is not the sandbox's whole staff: the 10 % guard refuses, as the next example's --max-prune allows",
  },
  "assess gdpr mask --email ada@example.com\n": { codes: [2], why: "asks to confirm: no terminal here" },
  "assess links create\n": { codes: [2], why: "a wizard: no terminal here" },
  "npx @modelcontextprotocol/inspector": { skip: "downloads the MCP Inspector" },
  "assess sandbox\n": { longRunning: true, port: 4010 },
  "assess reports stats --from 90d --to now --test 1001,1002": { shows: /"passRate": 0\.\d+/ },
  "assess sandbox --port 0": { longRunning: true },
  "assess mcp --http": { longRunning: true, port: 8808 },
};

const expectedOf = (example: string): Expected | undefined =>
  Object.entries(EXPECTED).find(([start]) => `${example}\n`.startsWith(start))?.[1];

/** The examples of every command's help, each as its lines (a shell line continued, then comments). */
async function examples(): Promise<string[]> {
  const found: string[] = [];
  for (const { help } of await helpTexts()) {
    const section = help.split("\nExamples:\n")[1];
    if (!section) continue;
    for (const line of section.split("\n")) {
      if (line.startsWith("  $ ")) found.push(line.slice(4));
      else if (line.startsWith("      ") && found.length > 0) found[found.length - 1] += `\n${line}`;
    }
  }
  return found;
}

/** The files examples name, as a user would have them (fixtures/ where it has one). */
const PEOPLE = [
  { email: "ada.lovelace@example.com", firstName: "Ada", lastName: "Lovelace" },
  { email: "alan.turing@example.com", firstName: "Alan", lastName: "Turing" },
];
const FILES: Record<string, () => string | Buffer | Promise<Buffer>> = {
  "candidates.csv": () => fixture("candidates.csv"),
  "candidates.xlsx": () => fixture("candidates.xlsx"),
  "export.csv": () => fixture("candidates.csv"),
  "employees.csv": () => fixture("employees.csv"),
  "staff.csv": () => fixture("employees.csv"),
  "staff.xlsx": () =>
    writeXlsxFile(
      [["email", "firstName", "lastName"], ...PEOPLE.map((p) => [p.email, p.firstName, p.lastName])],
      { sheet: "Current staff" },
    ).toBuffer(),
  "people.json": () => JSON.stringify(PEOPLE, null, 2),
  "ids.txt": () => "100001\n100002\n",
  "rules.yaml": () => fixture("rules.yaml"),
  "callbacks.ndjson": () => `${JSON.stringify({ TestInvitationId: 100004, Status: "Complete" })}\n`,
  "cert.json": () =>
    JSON.stringify({ title: "ITIL 4 Foundation", issuer: "AXELOS", issueDate: "2025-03-01" }),
  "body.json": () => JSON.stringify({ resourceId: "lr-104", dueDate: "2026-12-31" }),
  "settings.json": () =>
    JSON.stringify({ testName: "JavaScript Fundamentals", typeOfTest: 1, randomQuestions: 1, copyPaste: 0 }),
  "ada-lovelace.pdf": () => "%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n",
  "cv.docx": () => fixture("candidates.xlsx"),
};
const fixture = (name: string) => readFileSync(join(ROOT, "fixtures", name));

const t = useTestEnv();
const tmp = useTempDir("assess-examples-");
let all: string[] = [];
/** The PATH's folders: `assess` as main() of this process, or as the built CLI (the long-running examples). */
let inProcess: string;
let built: string;
let home: string;
let configDir: string;
let placed = 0;
let relay: Relay;

beforeAll(async () => {
  all = await examples();
  relay = await startRelay(tmp.file("bin"));
  inProcess = relay.bin;
  built = tmp.file("bin-built");
  const shim = (dir: string, name: string, body: string) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, name), `#!/bin/bash\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  };
  shim(built, "assess", `exec "${process.execPath}" "${join(ROOT, "bin", "assess.js")}" "$@"`);
  // `hr-export --json | assess employees upsert -`: the HR system's own export program.
  for (const dir of [inProcess, built]) shim(dir, "hr-export", `echo '${JSON.stringify(PEOPLE)}'`);
  home = tmp.file("home");
  for (const dir of [".local/share/bash-completion/completions", ".zfunc", ".config/fish/completions"])
    mkdirSync(join(home, dir), { recursive: true });
  configDir = tmp.file("config");
  // The base URLs come from the environment (which `assess config set base-url …` of an example leaves in effect).
  // The key is stored as `assess auth login` stores it, in the default profile and in "prod" (`--profile prod`).
  for (const profile of ["default", "prod"]) {
    const login = await bash(
      `printf '%s' "$KEY" | assess auth login --with-key --profile ${profile}`,
      tmp.dir,
    );
    expect(login.stderr).toContain("verified and stored");
  }
  expect((await bash(`assess config set base-url ${t.sandbox.url}`, tmp.dir)).code).toBe(0);
});

const running = new Set<ChildProcess>();
afterAll(async () => {
  for (const child of running) child.kill("SIGKILL");
  await relay?.close();
});

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command line with bash in `cwd`, as a user's shell would, its output into files (which the relay can
 * open again; a socket pair, Node's pipes to a child, cannot be). `interrupt`: the built CLI, on pipes, sent
 * Ctrl-C once it says it waits for it.
 */
function bash(line: string, cwd: string, interrupt = false): Promise<Ran> {
  const env: NodeJS.ProcessEnv = {
    PATH: `${interrupt ? built : inProcess}:${process.env.PATH}`,
    HOME: home,
    ASSESS_CONFIG_DIR: configDir,
    ASSESS_BASE_URL: t.sandbox.url,
    ASSESS_SKILLS_BASE_URL: t.sandbox.skillsUrl,
    KEY: SANDBOX_KEYS.acme,
    NO_COLOR: "1",
  };
  const script = line
    .replaceAll("http://127.0.0.1:4010/skills", t.sandbox.skillsUrl)
    .replaceAll("http://127.0.0.1:4010", t.sandbox.url);
  const out = mkdtempSync(join(tmp.dir, "output-"));
  const files = interrupt ? [] : [openSync(join(out, "stdout"), "a"), openSync(join(out, "stderr"), "a")];
  const stdio: StdioOptions = interrupt ? "pipe" : ["ignore", ...files];
  const child: ChildProcess = stopWhenTestEnds(
    spawn("bash", ["-c", script], { cwd, env, detached: true, stdio }),
    { group: true },
  );
  for (const file of files) closeSync(file);
  running.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    if (interrupt && /Ctrl-C/.test(stderr) && child.pid) process.kill(-child.pid, "SIGINT");
  });
  child.stdin?.end();
  const bound = setTimeout(() => child.pid && process.kill(-child.pid, "SIGKILL"), 120_000);
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      clearTimeout(bound);
      running.delete(child);
      if (!interrupt) {
        stdout = readFileSync(join(out, "stdout"), "utf8");
        stderr = readFileSync(join(out, "stderr"), "utf8");
      }
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A fresh folder holding each file the example reads (not one it writes: after --out or >). */
async function folderFor(example: string): Promise<string> {
  const cwd = mkdtempSync(join(tmp.dir, `example-${placed++}-`));
  symlinkSync(join(ROOT, "fixtures"), join(cwd, "fixtures"));
  for (const [name, content] of Object.entries(FILES)) {
    const written = new RegExp(`(--out|>)\\s+${name.replace(".", "\\.")}`).test(example);
    if (example.includes(name) && !written) writeFileSync(join(cwd, name), await content());
  }
  return cwd;
}

/** Examples piped into jq run where it is installed. */
const hasJq = spawnSync("jq", ["--version"]).status === 0;

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

describe("every example of every --help", () => {
  it("runs as written against a sandbox, exiting as expected", async () => {
    expect(all.length).toBeGreaterThan(100);
    const wrong: string[] = [];
    for (const example of all) {
      const expected = expectedOf(example) ?? {};
      if (expected.skip || (expected.port !== undefined && !(await portFree(expected.port)))) continue;
      if (!hasJq && /\| jq\b/.test(example)) continue;
      const cwd = await folderFor(example);
      const r = await bash(example, cwd, expected.longRunning === true);
      const codes = expected.longRunning ? [130] : (expected.codes ?? [0]);
      // Ctrl-C in a terminal reaches the shell too: one that ends by it is what the user sees as 130.
      const code = r.signal === "SIGINT" ? 130 : r.code;
      // Messages go to stderr, never among the data on stdout.
      const messageOnStdout = /^(✓|warning:|error:|hint:)/m.test(r.stdout);
      const shown = expected.shows === undefined || expected.shows.test(r.stdout);
      const failed =
        !codes.includes(code ?? -1) || (code === 0 && /error:/.test(r.stderr)) || messageOnStdout || !shown;
      if (failed)
        wrong.push(
          `$ ${example}\n  exit ${code} (expected ${codes.join(" or ")})\n${r.stderr}${messageOnStdout || !shown ? `stdout:\n${r.stdout}` : ""}`,
        );
    }
    expect(wrong.join("\n")).toBe("");
  }, 600_000);

  it("each exception above is an example still", () => {
    const stale = Object.keys(EXPECTED).filter((start) => !all.some((e) => `${e}\n`.startsWith(start)));
    expect(stale).toEqual([]);
  });
});

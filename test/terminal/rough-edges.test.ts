/**
 * The last rough edges of a terminal, through the built CLI in a pseudo-terminal of 60, 80 and 120 columns (or
 * main(argv) with streams of a set width): values below a table keyed to their row, dates and a plan's DETAIL
 * never cut, help dry-run wrapped once, a missing profile warned about, messages on stderr wrapped at blanks,
 * empty columns left out before any is cut, and the wording.
 */
import { writeFileSync } from "node:fs";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import { TOPICS } from "../../src/commands/help/topics.js";
import type { Io } from "../../src/context.js";
import { capture, runBin, sleep, useTempDir, useTestEnv } from "../helpers/cli.js";
import { helpTexts } from "../helpers/reference.js";
import { screenLines } from "../helpers/screen.js";
import { KEY, Terminal } from "../helpers/terminal.js";

const WIDTHS = [60, 80, 120] as const;
/** Wide enough that the emulator never wraps: the lines as the program wrote them. */
const UNWRAPPED = 100_000;
const TABLE_LINE = /^[┌│├└]/;

const t = useTestEnv({ clearFaults: true });
const tmp = useTempDir("assess-edges-");
const terminals: Terminal[] = [];
afterEach(() => Promise.all(terminals.splice(0).map((term) => term.close())));

/** The built CLI in a terminal of `cols` columns, run to its end: the lines as written and as shown. */
async function inTerminal(args: string[], cols: number, env: Record<string, string> = {}) {
  const term = Terminal.start(args, { ...t.env, ...env }, cols);
  terminals.push(term);
  const code = await term.exited;
  return { code, written: screenLines(term.output, UNWRAPPED), shown: screenLines(term.output, cols) };
}

/** The built CLI with stdout and stderr piped (not spawnSync: the sandbox answers from this process). */
const piped = (args: string[]) => runBin(args, { env: t.env });

/** `main(argv)` with stdout and stderr terminals of `cols` columns. */
async function onTerminal(argv: string[], cols: number, env: Record<string, string> = {}) {
  const stdout = capture(true);
  const stderr = capture(true);
  stdout.stream.columns = cols;
  stderr.stream.columns = cols;
  const stdin = Readable.from([]) as Io["stdin"];
  const code = await main(argv, {
    stdout: stdout.stream,
    stderr: stderr.stream,
    stdin,
    env: { PATH: process.env.PATH, NO_COLOR: "1", ...t.env, ...env },
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** The words of a text, continuation backslashes aside: what wrapping must keep. */
const words = (text: string) => text.split(/\s+/).filter((word) => word !== "" && word !== "\\");
/** A cut date: its digits, then an ellipsis. */
const CUT_DATE = /\d{4}-\d\d-\d[\dT:-]*…/;
/** Times as `<time>`: a plan's look-up window moves between two runs. */
const timeless = (text: string) => text.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<time>");
const tsv = (text: string) =>
  text
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => line.split("\t"));

/** Invitations of test 1001 to `emails`, each attempt then finished. */
async function finishedCandidates(emails: string[]): Promise<void> {
  for (const email of emails) {
    const r = await t.run(["invite", "send", "--test", "1001", "--email", email, "--name", "Fin", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    await t.sandbox.completeAttempt(r.json<{ testInvitationId: number }>().testInvitationId, "Complete");
  }
}

describe("wording", () => {
  it("no command's help shows a default of []", async () => {
    const shown = (await helpTexts()).filter(({ help }) => help.includes("(default: [])"));
    expect(shown.map(({ path }) => path)).toEqual([]);
  });

  it("a plan of one row says 'row'", async () => {
    const file = tmp.file("one.csv");
    writeFileSync(file, "email,name\none.row@edges.example,One\n");
    const r = await piped(["invite", "bulk", file, "--test", "1001", "--plan", "--lookback", "0"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("Plan for 1 row: 1 to invite; nothing was sent");
  });

  it("reports get shows TIME TAKEN in minutes, the number alone when piped", async () => {
    const list = await t.run(["attempts", "list", "--from", "90d", "--to", "now", "--limit", "1", "--json"]);
    const id = String(list.json<Array<{ testInvitationId: number }>>()[0]?.testInvitationId);
    const r = await onTerminal(["reports", "get", id], 120);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/│ TIME TAKEN +│ \d+ min +│/);
    expect(r.stdout).toMatch(/│ SECTION +│.*│ TIME TAKEN │\n[\s\S]*│ \d+ min +│\n/);
    const json = await t.run(["reports", "get", id, "--json"]);
    expect(typeof json.json<{ timeTaken: unknown }>().timeTaken).toBe("number");
  });
});

describe("values below a table are keyed to their row, as links list keys them", () => {
  it.each(WIDTHS)(
    "invite bulk --reattempt-finished at %i columns: each new URL after its candidate's e-mail",
    async (cols) => {
      const emails = [`keyed.one.${cols}@edges.example`, `keyed.two.${cols}@edges.example`];
      await finishedCandidates(emails);
      const file = tmp.file(`reattempt-${cols}.csv`);
      writeFileSync(file, `email,name\n${emails.map((e) => `${e},Fin`).join("\n")}\n`);
      const r = await inTerminal(["invite", "bulk", file, "--test", "1001", "--reattempt-finished"], cols);
      expect(r.code, r.shown.join("\n")).toBe(0);
      const urls = r.written.filter((line) => /https:\/\/\S+\/t\/[0-9a-f]{32}/.test(line));
      expect(urls).toHaveLength(2);
      for (const email of emails) {
        // The e-mail keys its URL: before it on the line, or alone on the line just above it.
        const keyed = r.written.filter(
          (line, i) =>
            /^https:\/\/\S+\/t\//.test(line.replace(email, "").trim()) &&
            (line.startsWith(`${email} `) || r.written[i - 1]?.trim() === email),
        );
        expect(keyed, `${email}\n${r.written.join("\n")}`).toHaveLength(1);
      }
    },
  );
});

describe("dates and a plan's DETAIL are never cut", () => {
  it.each(WIDTHS)("links list at %i columns shows each link's ACCESS whole", async (cols) => {
    const [header, ...rows] = tsv((await piped(["links", "list", "--test", "1001"])).stdout);
    const access = rows.map((row) => row[header!.indexOf("ACCESS")] ?? "");
    expect(access.some((value) => / → /.test(value))).toBe(true);
    const r = await inTerminal(["links", "list", "--test", "1001"], cols);
    expect(r.code).toBe(0);
    for (const value of access) expect(r.written.join("\n")).toContain(value);
    expect(r.written.filter((line) => CUT_DATE.test(line))).toEqual([]);
  });

  it.each(WIDTHS)(
    "invite bulk --plan at %i columns: each DETAIL whole (wrapped in its cell), no ellipsis",
    async (cols) => {
      const emails = [`detail.${cols}@edges.example`];
      await finishedCandidates(emails);
      const file = tmp.file(`plan-${cols}.csv`);
      writeFileSync(file, `email,name\n${emails[0]},Fin\nnew.${cols}@edges.example,New\nnot-an-email,Bad\n`);
      const args = ["invite", "bulk", file, "--test", "1001", "--plan"];
      const [header, ...rows] = tsv((await piped(args)).stdout);
      const details = rows.map((row) => row[header!.indexOf("DETAIL")] ?? "").filter(Boolean);
      expect(details).toHaveLength(2);
      const r = await inTerminal(args, cols);
      expect(r.code).toBe(0);
      expect(r.written.filter((line) => line.includes("…"))).toEqual([]);
      // The table's DETAIL cells, read down the column: each detail, every word in order.
      const table = r.written.filter((line) => TABLE_LINE.test(line));
      const cells = table.map((line) => line.split("│").at(-2)?.trim() ?? "");
      for (const detail of details) expect(timeless(cells.join(" "))).toContain(timeless(detail));
      expect(cells.join(" ").match(/\d{4}-\d\d-\d\dT[\d:]+Z/g)).toHaveLength(2);
      expect(table.every((line) => [...line].length <= cols)).toBe(true);
    },
  );
});

describe("help dry-run is wrapped once, and assess --help names every topic", () => {
  it.each(WIDTHS)(
    "at %i columns each paragraph's lines are filled, no comment on a line of its own",
    async (cols) => {
      const r = await inTerminal(["help", "dry-run"], cols);
      expect(r.code).toBe(0);
      const lines = r.written;
      expect(lines.filter((line) => [...line].length > cols)).toEqual([]);
      expect(lines.filter((line) => line.trimStart().startsWith("#"))).toEqual([]);
      // A line of prose followed by more of its paragraph had no room for the next word.
      const ragged = lines.filter((line, i) => {
        const next = lines[i + 1] ?? "";
        const indent = (text: string) => /^\s*/.exec(text)?.[0].length ?? 0;
        if (!line.trim() || !next.trim() || line.includes("$ ") || next.includes("$ ")) return false;
        if (indent(next) !== indent(line) || line.endsWith(":")) return false;
        return [...line].length + 1 + (words(next)[0]?.length ?? 0) <= cols;
      });
      expect(ragged).toEqual([]);
      expect(words(lines.join("\n"))).toEqual(words((await piped(["help", "dry-run"])).stdout));
    },
  );

  it("assess --help lists each topic", async () => {
    const root = (await piped(["--help"])).stdout.replace(/\s+/g, " ");
    expect(root).toMatch(/a topic: [^.]*dry-run/);
    for (const topic of Object.keys(TOPICS)) expect(root).toContain(topic);
  });
});

describe("a profile that does not exist", () => {
  it.each([
    ["--profile nope", ["--profile", "nope"], {}],
    ["ASSESS_PROFILE=nope", [], { ASSESS_PROFILE: "nope" }],
  ] as const)("%s with the key in the environment: the command runs, warned", async (_, flags, env) => {
    const r = await onTerminal([...flags, "tests", "list", "-o", "tsv"], 120, env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ID\tNAME/);
    const said = r.stderr.replace(/\s+/g, " ");
    expect(said).toContain('warning: Profile "nope"');
    expect(said).toContain("does not exist; going on with the API key from ASSESS_API_KEY");
    expect(said).toContain("`assess auth login --profile nope` creates it");
    expect(said).toContain("`assess config list`");
  });

  it("no profile named (the default, absent): no warning", async () => {
    const r = await onTerminal(["tests", "list", "-o", "tsv"], 120);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("warning");
  });
});

describe("messages on stderr wrap at blanks to the terminal", () => {
  it.each(WIDTHS)(
    "invite bulk --plan at %i columns: no message wider than the terminal, no word cut",
    async (cols) => {
      const file = tmp.file(`messages-${cols}.csv`);
      await finishedCandidates([`messages.${cols}@edges.example`]);
      writeFileSync(file, `email,name\nmessages.${cols}@edges.example,Fin\nnot-an-email,Bad\n`);
      // The plan as tsv: every line without a tab is a message.
      const args = ["invite", "bulk", file, "--test", "1001", "--plan", "-o", "tsv"];
      const r = await inTerminal(args, cols);
      expect(r.code).toBe(0);
      const messages = r.written.filter((line) => line && !line.includes("\t"));
      // A word longer than the line (the file's path) is alone on its line, whole.
      const wide = messages.filter((line) => [...line].length > cols && words(line).length > 1);
      expect(wide).toEqual([]);
      expect(messages.some((line) => line.includes("--reattempt-finished"))).toBe(true);
      expect(words(messages.join("\n"))).toEqual(words((await piped(args)).stderr));
    },
  );

  it.each(WIDTHS)(
    "the sandbox's banner at %i columns: its URLs whole, shell lines unbroken",
    async (cols) => {
      const term = Terminal.start(["sandbox", "--port", "0"], t.env, cols);
      terminals.push(term);
      await term.waitFor("Ctrl-C to stop");
      term.type(KEY.ctrlC);
      await term.exited;
      const lines = screenLines(term.output, UNWRAPPED).filter(Boolean);
      const url = /Sandbox listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(lines.join(" "))?.[1];
      expect(url).toBeDefined();
      expect(lines.some((line) => line.includes(`${url}/skills`))).toBe(true);
      for (const line of lines) {
        if (/^\s*export /.test(line)) expect(line).toMatch(/^ {2}export ASSESS_\w+=\S+$/);
        else expect([...line].length, line).toBeLessThanOrEqual(cols);
      }
      // A wrapped comment stays a comment.
      expect(lines.filter((line) => line.startsWith("  ") && !/^ {2}(export|#) /.test(line))).toEqual([]);
    },
  );
});

describe("a status line too long for the terminal is cut at a blank", () => {
  it.each(WIDTHS)("attempts watch's idle line at %i columns: whole words, then …", async (cols) => {
    const env = { ...t.env, ASSESS_CONFIG_DIR: tmp.fresh() };
    const term = Terminal.start(["attempts", "watch", "--since", "1s", "--interval", "1h"], env, cols);
    terminals.push(term);
    // The frames drawn on the status line, each from its carriage return to its erase.
    const frames = () =>
      term.output
        .split("\r")
        .filter((frame) => frame.startsWith("Watching all tests: last poll") && frame.includes("\u001b[K"))
        .map((frame) => frame.slice(0, frame.indexOf("\u001b[K")));
    await term.waitFor("Watching all tests: last poll");
    while (frames().length === 0) await sleep(25);
    term.type(KEY.ctrlC);
    await term.exited;
    // The count shown depends on what other tests of this file completed in the sandbox they share.
    const full = "Watching all tests: last poll <time>, next in 1h; <n> shown (Ctrl-C stops)";
    for (const frame of frames()) {
      const text = frame.replace(/\d\d:\d\d:\d\dZ/, "<time>").replace(/; \d+/, "; <n>");
      expect([...frame].length).toBeLessThan(cols);
      if (text === full) continue;
      expect(text.endsWith("…"), text).toBe(true);
      expect(full.startsWith(`${text.slice(0, -1)} `), text).toBe(true);
    }
  });
});

describe("tables leave out empty columns before cutting any", () => {
  it("attempts list a column narrower than its whole table: EMPLOYEE, empty, goes; nothing is cut", async () => {
    // Some test's latest attempts with no employee among them.
    let args: string[] = [];
    let rows: string[][] = [];
    for (const test of ["1001", "1002", "1003", "1004", "1005"]) {
      args = ["attempts", "list", "--from", "90d", "--to", "now", "--test", test, "--limit", "2"];
      rows = tsv((await piped(args)).stdout);
      if (rows.slice(1).every((row) => row.at(-1) === "")) break;
    }
    expect(rows[0]?.at(-1)).toBe("EMPLOYEE");
    expect(rows.slice(1).every((row) => row.at(-1) === "")).toBe(true);
    // The width of the whole table, less one: room enough once the empty column has gone (11 columns).
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0)));
    const cols = widths.reduce((sum, w) => sum + w + 3, 1) - 1;
    const r = await onTerminal(args, cols);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain("…");
    expect(r.stdout).not.toContain("EMPLOYEE");
    for (const row of rows.slice(1)) for (const cell of row.filter(Boolean)) expect(r.stdout).toContain(cell);
  });
});

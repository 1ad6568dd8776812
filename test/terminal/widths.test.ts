/**
 * What a terminal shows (progress, tables, help, completion), through the built CLI on a real pseudo-terminal of
 * 60, 80 and 120 columns (the screen read back through test/helpers/screen.ts), and what a pipe gets instead
 * (main, in-process, its streams not terminals).
 * One progress line, erased before anything else and at every exit; links and e-mails never cut in tables;
 * help wrapped to the terminal; completion in a real bash; --fields by header, units in tables.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, useTestEnv } from "../helpers/cli.js";
import { screenLines } from "../helpers/screen.js";
import { Terminal } from "../helpers/terminal.js";

const WIDTHS = [60, 80, 120] as const;
/** Wide enough that the emulator never wraps: the lines as the program wrote them. */
const UNWRAPPED = 100_000;
const ATTEMPTS = "POST /v3/candidates/testattempts";

const t = useTestEnv({ clearFaults: true });
const terminals: Terminal[] = [];
afterEach(() => Promise.all(terminals.splice(0).map((term) => term.close())));

/** The built CLI in a terminal of `cols` columns, run to its end. */
async function inTerminal(args: string[], cols: number) {
  const term = Terminal.start(args, t.env, cols);
  terminals.push(term);
  const code = await term.exited;
  return { code, raw: term.output, lines: screenLines(term.output, cols) };
}

/** stdout and stderr not terminals (main, in-process: what a pipe gets). */
const piped = (args: string[]) => t.run(args);

/** A path of the attempts listing slower than the first window, so that a bar is drawn before the rest. */
function slowAfterFirstWindow(delayMs: number): void {
  const [method, path] = ATTEMPTS.split(" ") as [string, string];
  t.sandbox.faults.add({ method, path, kind: "latency", delayMs, skip: 1, times: Number.POSITIVE_INFINITY });
}

const BAR = /windows\/s|employees\/s|rows\/s/;

/**
 * The lines as the program wrote them are no wider than the terminal, but for a link longer than the whole
 * terminal, alone on its line (the terminal folds it; copying it gives it back whole).
 */
function fitsWidth(raw: string, cols: number): string[] {
  return screenLines(raw, UNWRAPPED).filter(
    (line) => [...line].length > cols && !/^https?:\/\/\S+$/.test(line),
  );
}
const TABLE_LINE = /[┌│├└]/;

describe("one progress line, erased before anything else and at every exit", () => {
  it.each(WIDTHS)(
    "attempts list --limit 5 at %i columns: the bar, then the table from column 0",
    async (cols) => {
      const r = await inTerminal(["attempts", "list", "--from", "90d", "--to", "now", "--limit", "5"], cols);
      expect(r.code).toBe(0);
      expect(r.raw).toMatch(/\d+% \d+\/4 windows/); // drawn
      expect(r.lines.filter((line) => BAR.test(line))).toEqual([]); // and erased, nothing glued to it
      const table = r.lines.filter((line) => TABLE_LINE.test(line));
      expect(table.length, r.lines.join("\n")).toBe(5 + 4); // 5 rows, 3 rules and the header
      for (const line of table) expect(line).toMatch(/^[┌│├└]/);
      expect(table.at(-1)).toMatch(/^└─+.*┘$/);
      // The bar never wraps (a wrapped line could not be erased by its carriage return).
      for (const frame of r.raw.split("\r").filter((f) => f.startsWith("[█") || f.startsWith("[░"))) {
        expect([...frame.slice(0, frame.indexOf("\u001b[K"))].length).toBeLessThan(cols);
      }
    },
  );

  it.each(WIDTHS)(
    "the tour's reports stats --pass-mark 60 at %i columns: the bar erased, every line within the width",
    async (cols) => {
      const args = "reports stats --from 90d --to now --pass-mark 60".split(" ");
      const r = await inTerminal(args, cols);
      expect(r.code).toBe(0);
      expect(r.raw).toMatch(/\d+% \d+\/\d+ reports/);
      expect(r.lines.filter((line) => BAR.test(line) || /reports\/s/.test(line))).toEqual([]);
      const shown = r.lines.filter(Boolean);
      // Five tests' blocks (~5 KB), the first and the last whole.
      expect(shown.filter((line) => /^Test \d+ · /.test(line))).toHaveLength(5);
      expect(shown[0]).toMatch(/^Test \d+ · /);
      expect(shown.at(-1)).toMatch(/busiest day \d+/);
      expect(fitsWidth(r.raw, cols)).toEqual([]);
      // The statistics, each whole, however they are folded: a line goes on under the first item.
      const text = shown.join("\n");
      for (const name of ["mean", "median", "p10", "p90", "min", "max"])
        expect(text).toMatch(new RegExp(`(Score % {4}|· | {13})${name} [\\d.]+( ·|\n)`));
    },
  );

  it.each(WIDTHS)(
    "employees list --all -o tsv at %i columns: every line of the list whole, no bar left",
    async (cols) => {
      const args = ["employees", "list", "--all", "--page-size", "2", "-o", "tsv"];
      const r = await inTerminal(args, cols);
      expect(r.code).toBe(0);
      expect(r.raw).toMatch(/employees · [\d,]+ employees\/s|\d+% .*employees/);
      expect(r.lines.filter((line) => BAR.test(line))).toEqual([]);
      const expected = (await piped(args)).stdout.trimEnd().split("\n");
      expect(expected[0]).toMatch(/^ID\tNAME\t/);
      expect(screenLines(r.raw, UNWRAPPED).filter((line) => line.includes("\t"))).toEqual(expected);
    },
  );

  it("an error in the middle of a run is printed from column 0, the bar gone", async () => {
    slowAfterFirstWindow(300);
    const [method, path] = ATTEMPTS.split(" ") as [string, string];
    t.sandbox.faults.add({
      method,
      path,
      kind: "status",
      status: 500,
      skip: 1,
      times: Number.POSITIVE_INFINITY,
    });
    const r = await inTerminal(["attempts", "list", "--from", "90d", "--to", "now", "--retries", "0"], 80);
    expect(r.code).toBe(1);
    expect(r.raw).toMatch(/\d+% 1\/4 windows/);
    expect(r.lines.filter((line) => BAR.test(line))).toEqual([]);
    expect(r.lines.some((line) => line.startsWith("error: "))).toBe(true);
  });

  it("Ctrl-C while the bar is drawn: exit 130, the bar gone", async () => {
    slowAfterFirstWindow(5_000);
    const term = Terminal.start(["attempts", "list", "--from", "90d", "--to", "now"], t.env, 80);
    terminals.push(term);
    await term.waitFor(/1\/4 windows/);
    term.type("\u0003");
    expect(await term.exited).toBe(130);
    expect(screenLines(term.output, 80).filter((line) => BAR.test(line))).toEqual([]);
  });

  it("piped: no bar and no escape on stderr, the list as tsv on stdout", async () => {
    const r = await piped(["attempts", "list", "--from", "90d", "--to", "now", "--limit", "5"]);
    expect(r.code).toBe(0);
    expect(r.stderr.includes("\r") || r.stderr.includes("\u001b")).toBe(false);
    expect(r.stdout.split("\n")[0]).toBe("INVITATION\tTEST\tNAME\tEMAIL\tSTATUS\tTYPE\tEMPLOYEE");
    expect(r.stdout.trimEnd().split("\n")).toHaveLength(6);
  });
});

/** Every value of `key` in the records a command prints with --json. */
async function truth(args: string[], key: string): Promise<string[]> {
  const r = await t.run([...args, "--json"]);
  expect(r.code, r.stderr).toBe(0);
  const values = r.json<Array<Record<string, string>>>().map((row) => row[key] ?? "");
  expect(values.length).toBeGreaterThan(0);
  return values;
}

describe("links and e-mail addresses are never cut in tables", () => {
  it.each(WIDTHS)("links list at %i columns shows every link whole, within the width", async (cols) => {
    const links = await truth(["links", "list", "--test", "1001"], "testLink");
    const r = await inTerminal(["links", "list", "--test", "1001"], cols);
    expect(r.code).toBe(0);
    const written = screenLines(r.raw, UNWRAPPED);
    for (const link of links) expect(written.some((line) => line.includes(link))).toBe(true);
    expect(r.lines.filter((line) => /https?:\/\/\S*…/.test(line))).toEqual([]);
    expect(fitsWidth(r.raw, cols)).toEqual([]);
  });

  it.each(WIDTHS)("attempts list at %i columns shows every e-mail whole, within the width", async (cols) => {
    const args = ["attempts", "list", "--from", "90d", "--to", "now", "--limit", "5"];
    const emails = await truth(args, "email");
    const r = await inTerminal(args, cols);
    expect(r.code).toBe(0);
    for (const email of emails) expect(r.lines.some((line) => line.includes(email))).toBe(true);
    expect(r.lines.filter((line) => /@\S*…/.test(line))).toEqual([]);
    expect(fitsWidth(r.raw, cols)).toEqual([]);
  });

  it.each(WIDTHS)("invite send at %i columns shows the test URL whole", async (cols) => {
    const email = `whole-${cols}@example.com`;
    const r = await inTerminal(["invite", "send", "--test", "1001", "--email", email, "--name", "Ada"], cols);
    expect(r.code).toBe(0);
    // The sandbox's test URLs end in 32 hex digits: all of them, and no ellipsis.
    expect(screenLines(r.raw, UNWRAPPED).join("\n")).toMatch(/https:\/\/\S+\/t\/[0-9a-f]{32}(?![0-9a-f…])/);
    expect(r.lines.filter((line) => /https?:\/\/\S*…/.test(line))).toEqual([]);
    // The table and the link (the ✓ message before them is a message on stderr, not a table).
    expect(fitsWidth(r.raw, cols).filter((line) => !line.startsWith("✓ "))).toEqual([]);
  });

  it("piped: links and e-mails go out whole, as tsv", async () => {
    const r = await piped(["links", "list", "--test", "1001"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\thttps:\/\/\S+\/l\/\w+\n/);
    expect(r.stdout).not.toContain("…");
  });
});

describe("--fields by header, units in tables", () => {
  it("tests list shows DURATION in minutes on a terminal, the number alone when piped", async () => {
    const r = await inTerminal(["tests", "list"], 80);
    expect(r.lines.some((line) => /│ DURATION\s+│/.test(line))).toBe(true);
    expect(r.lines.some((line) => /│ 60 min\s+│/.test(line))).toBe(true);
    const tsv = await piped(["tests", "list", "--fields", "id,duration"]);
    expect(tsv.stdout.split("\n").slice(0, 2)).toEqual(["id\tduration", "1001\t60"]);
  });

  it("--fields takes a column's header, and heads the column with the name asked for", async () => {
    const args = ["attempts", "list", "--from", "90d", "--to", "now", "--limit", "2"];
    const tsv = await piped([...args, "--fields", "invitation,status"]);
    expect(tsv.code, tsv.stderr).toBe(0);
    const [header, ...rows] = tsv.stdout.trimEnd().split("\n");
    expect(header).toBe("invitation\tstatus");
    const byField = await piped([...args, "--fields", "testInvitationId,teststatus"]);
    expect(rows).toEqual(byField.stdout.trimEnd().split("\n").slice(1));
    expect(rows.join("\n")).toMatch(/^\d+\t(Completed|Terminated|\w+)$/m);
    const keyed = await t.run(["tests", "list", "--fields", "id,name", "--json"]);
    expect(Object.keys(keyed.json<object[]>()[0] ?? {})).toEqual(["id", "name"]);
    const table = await inTerminal(["tests", "list", "--fields", "ID,Name"], 80);
    expect(table.lines.some((line) => /^│ ID\s+│ Name\s+│$/.test(line))).toBe(true);
  });
});

/** The words of a help text, continuation backslashes aside: what wrapping must keep. */
const words = (text: string) => text.replace(/ \\\n/g, " ").split(/\s+/).filter(Boolean);

describe("help wraps to the terminal, 80 columns when unknown", () => {
  const HELP = [
    ["help", "exit-codes"],
    ["help", "formatting"],
    ["reports", "stats", "--help"],
    ["employees", "--help"],
  ];

  it.each(WIDTHS)(
    "at %i columns no line of help is wider than the terminal, and no word is lost",
    async (cols) => {
      for (const args of HELP) {
        const r = await inTerminal(args, cols);
        expect(r.code).toBe(0);
        const lines = screenLines(r.raw, UNWRAPPED);
        const wide = lines.filter((line) => [...line].length > cols);
        expect(wide, args.join(" ")).toEqual([]);
        expect(words(lines.join("\n")), args.join(" ")).toEqual(words((await piped(args)).stdout));
      }
    },
  );

  it("piped, help is 80 columns wide, items hang under their text", async () => {
    for (const args of HELP) {
      const r = await piped(args);
      expect(r.code).toBe(0);
      expect(r.stdout.split("\n").filter((line) => [...line].length > 80)).toEqual([]);
    }
    const codes = (await piped(["help", "exit-codes"])).stdout.split("\n");
    const one = codes.findIndex((line) => line.startsWith("  1    the service"));
    expect(codes[one + 1]).toMatch(/^ {7}\S/);
  });
});

describe("completion in a real bash", () => {
  it.each(WIDTHS)(
    "at %i columns: shells for completion, subcommands before flags, file names",
    async (cols) => {
      const dir = mkdtempSync(join(tmpdir(), "assess-complete-"));
      const script = join(dir, "assess.bash");
      writeFileSync(script, (await piped(["completion", "bash"])).stdout);
      writeFileSync(join(dir, "assess"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, {
        mode: 0o755,
      });
      const term = Terminal.spawn(
        "bash",
        ["--norc", "--noprofile", "-i"],
        { ...t.env, PATH: `${dir}:${process.env.PATH}`, PS1: "$ ", INPUTRC: "/dev/null" },
        cols,
      );
      terminals.push(term);
      term.type(`source ${script}; echo sourced\r`);
      await term.waitFor("sourced\r\n");

      /** What bash lists for the line typed (two TABs), then the line cleared (Ctrl-U). */
      const listed = async (line: string, last: string) => {
        term.type(`${line}\t\t`);
        const shown = await term.waitFor(new RegExp(`[\\s\\S]*${last}[\\s\\S]*?\\$ `));
        term.type("\u0015");
        return shown;
      };
      const shells = await listed("assess completion ", "fish");
      expect(words(shells)).toEqual(expect.arrayContaining(["bash", "zsh", "fish"]));
      expect(shells).not.toContain("--");
      const verbs = await listed("assess tests ", "settings");
      expect(words(verbs)).toEqual(expect.arrayContaining(["get", "list", "settings"]));
      expect(verbs).not.toContain("--");
      const flags = await listed("assess tests -", "--sandbox");
      expect(flags).toContain("--json");

      /** The word bash completes `line` to (one TAB), then the line cleared. */
      const completed = async (line: string, expected: string) => {
        term.type(`${line}\t`);
        await term.waitFor(expected);
        term.type("\u0015");
      };
      await completed("assess invite bulk fixt", "assess invite bulk fixtures/");
      await completed("assess invite bulk fixtures/candidates.c", "fixtures/candidates.csv");
      await completed("assess employees upsert fixtures/employees.c", "fixtures/employees.csv");
      await completed("assess invite bulk x.csv --rejects fixtures/bad/utf", "fixtures/bad/utf16.csv");
      await completed("assess reports export --out fixtures/bad/zip", "fixtures/bad/zip-renamed.csv");
    },
  );

  it("fish: the shells for completion, file names for file arguments", async () => {
    const fish = (await piped(["completion", "fish"])).stdout;
    expect(fish).toContain("complete -c assess -n '__assess_at completion' -a 'bash zsh fish'");
    expect(fish).toContain("complete -c assess -n '__assess_at invite bulk' -F");
    expect(fish).toContain("complete -c assess -n '__assess_at employees upsert' -F");
  });
});

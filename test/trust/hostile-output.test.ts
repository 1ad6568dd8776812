/**
 * Hostile answers reaching the terminal: a small server on 127.0.0.1 answers with
 * test names, error messages and notifications full of escape sequences; `--fields` names Object.prototype's
 * keys; a period of two centuries would fan out to thousands of calls. Each ends in the wanted behaviour with
 * the documented exit codes, no stack trace, and the key in no output.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_WINDOWS_UNASKED } from "../../src/core/periods.js";
import { escapeControls, jsonText } from "../../src/escape.js";
import { eventually, startLiveCli } from "../callbacks/live.js";
import { ndjson, type RunOptions, type RunResult, runBin, runCli, useTestEnv } from "../helpers/cli.js";
import { Terminal } from "../helpers/terminal.js";

/** Clears the screen, retitles the window, rings the bell. */
const CLEAR_AND_RETITLE = "\u001b[2J\u001b]0;pwned\u0007";
/** An OSC 8 hyperlink around text long enough for a table to cut it with `…` before it is closed. */
const OPEN_LINK = `\u001b]8;;https://evil.example/\u0007${"click here ".repeat(20)}\u001b]8;;\u0007`;
/** U+009B: a one-character CSI to terminals that honour C1 controls. */
const C1_CSI = "\u009b31m";

/** The C0, DEL and C1 controls of `text`, but those in `keep`. */
function rawControls(text: string, keep = "\t\n"): string[] {
  return [...text].filter((c) => {
    const code = c.charCodeAt(0);
    return (code < 0x20 || (code >= 0x7f && code <= 0x9f)) && !keep.includes(c);
  });
}
const CANARY = "canary-key-9f3e1d7c5b";

const TESTS = [
  { testId: 1001, testName: `Evil ${CLEAR_AND_RETITLE} name`, status: "Active\tnow\nreally\r", duration: 60 },
  { testId: 1002, testName: OPEN_LINK, status: `Active ${C1_CSI}`, duration: 75 },
];
const ERROR_MESSAGE = `No test here ${CLEAR_AND_RETITLE}${C1_CSI}`;

interface Hostile {
  url: string;
  close(): Promise<void>;
}

/** The service as an attacker runs it: every string it answers carries control characters. */
async function startHostile(): Promise<Hostile> {
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    const data = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(data) });
    res.end(data);
  };
  const server = http.createServer((req, res) => {
    req.resume();
    const path = new URL(req.url ?? "/", "http://hostile").pathname;
    if (req.method === "GET" && path === "/v3/tests") return send(res, 200, { tests: TESTS, count: 2 });
    if (req.method === "POST" && path === "/v3/candidates/testattempts") {
      const attempt = {
        testInvitationId: 5001,
        testId: 1001,
        name: `Eve ${CLEAR_AND_RETITLE}`,
        email: "e@x.co",
      };
      return send(res, 200, { result: { testAttempts: [attempt] }, errors: null });
    }
    return send(res, 404, { statusCode: 404, message: ERROR_MESSAGE });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

let hostile: Hostile;
beforeAll(async () => {
  hostile = await startHostile();
});
afterAll(async () => {
  await hostile.close();
});
const t = useTestEnv();

function runHostile(argv: string[], options: RunOptions = {}): Promise<RunResult> {
  return runCli(argv, {
    ...options,
    env: {
      ASSESS_BASE_URL: hostile.url,
      ASSESS_API_KEY: CANARY,
      ASSESS_CONFIG_DIR: t.configDir,
      ...options.env,
    },
  });
}

/** Nothing a terminal would obey, no stack trace, no key. */
function expectClean(r: { stdout: string; stderr: string }): void {
  for (const text of [r.stdout, r.stderr]) {
    expect(rawControls(text)).toEqual([]);
    expect(text).not.toMatch(/\n\s+at /);
    expect(text).not.toContain(CANARY);
  }
}

describe("escapeControls and jsonText", () => {
  it("escape C0, DEL and C1 visibly (\\t \\n \\r by name, others as \\xHH), keeping what is asked for", () => {
    expect(escapeControls(CLEAR_AND_RETITLE)).toBe("\\x1b[2J\\x1b]0;pwned\\x07");
    expect(escapeControls(`a\tb\nc\rd\u0000\u007f${C1_CSI}`)).toBe("a\\tb\\nc\\rd\\x00\\x7f\\x9b31m");
    expect(escapeControls("a\tb\nc\rd", "\t\n")).toBe("a\tb\nc\\rd");
    expect(escapeControls("plain, accented é and 😀")).toBe("plain, accented é and 😀");
    // Invisible operators (U+2061–2064) and deprecated format controls (U+206A–206F) hide or reorder text too.
    expect(escapeControls("a\u2062b\u2064c\u206ad\u206fe")).toBe("a\\u2062b\\u2064c\\u206ad\\u206fe");
    expect(escapeControls("zw\u200djoin\u200cer")).toBe("zw\u200djoin\u200cer");
    const value = { name: `${CLEAR_AND_RETITLE}${C1_CSI}\u007f` };
    const text = jsonText(value, 2);
    expect(rawControls(text)).toEqual([]);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe("the service's control characters reach no terminal", () => {
  it("table: escapes shown, a cell cut by … leaves no hyperlink open", async () => {
    const r = await runHostile(["tests", "list"], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    expectClean(r);
    expect(r.stdout).toContain("Evil \\x1b[2J\\x1b]0;pwned\\x07 name");
    expect(r.stdout).toContain("\\x1b]8;;https://evil.example/\\x07click here");
    expect(r.stdout).toContain("…");
    expect(r.stdout).toContain("Active \\x9b31m");
    expect(r.stdout).toContain("Active\\tnow really\\r");
  });

  it("tsv: tab and line breaks inside a value are escaped too, so each record is one line of equal cells", async () => {
    const r = await runHostile(["tests", "list", "-o", "tsv"]);
    expect(r.code, r.stderr).toBe(0);
    expectClean(r);
    const lines = r.stdout.split("\n").slice(0, -1);
    expect(lines).toHaveLength(3);
    const [header, ...rows] = lines.map((line) => line.split("\t"));
    expect(header).toEqual(["ID", "NAME", "STATUS", "DURATION", "LABELS"]);
    for (const row of rows) expect(row).toHaveLength(header!.length);
    expect(rows[0]!.slice(1, 3)).toEqual([
      "Evil \\x1b[2J\\x1b]0;pwned\\x07 name",
      "Active\\tnow\\nreally\\r",
    ]);
    expect(rows[1]![1]).toBe(escapeControls(OPEN_LINK));
  });

  it("csv: no raw escapes; tab and line breaks stay inside quoted cells (RFC 4180)", async () => {
    const r = await runHostile(["tests", "list", "-o", "csv"]);
    expect(r.code, r.stderr).toBe(0);
    for (const text of [r.stdout, r.stderr]) expect(rawControls(text, "\t\r\n")).toEqual([]);
    const rows = parse(r.stdout, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((row) => row.NAME)).toEqual([
      "Evil \\x1b[2J\\x1b]0;pwned\\x07 name",
      escapeControls(OPEN_LINK),
    ]);
    expect(rows[0]!.STATUS).toBe("Active\tnow\nreally\r");
    expect(rows[1]!.STATUS).toBe("Active \\x9b31m");
  });

  it("--json and ndjson keep the exact values, escaped as JSON (C1 included)", async () => {
    for (const format of ["json", "ndjson"]) {
      const r = await runHostile(["tests", "list", "-o", format]);
      expect(r.code, r.stderr).toBe(0);
      expectClean(r);
      expect(r.stdout).toContain("\\u001b[2J\\u001b]0;pwned\\u0007");
      expect(r.stdout).toContain("\\u009b31m");
      const values =
        format === "json"
          ? r.json<Array<{ testName: string; status: string }>>()
          : ndjson<{ testName: string; status: string }>(r.stdout);
      expect(values.map((v) => [v.testName, v.status])).toEqual(TESTS.map((v) => [v.testName, v.status]));
    }
  });

  it("an error message quoting the service is escaped on stderr (and exact in the --json error object)", async () => {
    const r = await runHostile(["tests", "get", "666"]);
    expect(r.code).toBe(1);
    expectClean(r);
    expect(r.stderr).toContain("error: No test here \\x1b[2J\\x1b]0;pwned\\x07\\x9b31m");
    expect(r.stderr).toContain("hint: ");

    const json = await runHostile(["tests", "get", "666", "--json"]);
    expect(json.code).toBe(1);
    expectClean(json);
    const line = json.stderr.trim().split("\n").at(-1)!;
    expect(JSON.parse(line)).toEqual({ error: { status: 404, messages: [ERROR_MESSAGE] } });
  });

  it("the built CLI prints the same escaped error (launcher included)", async () => {
    const result = await runBin(["tests", "get", "666"], {
      env: {
        ASSESS_BASE_URL: hostile.url,
        ASSESS_API_KEY: CANARY,
        ASSESS_CONFIG_DIR: t.configDir,
      },
    });
    expect(result.code).toBe(1);
    expectClean(result);
    expect(result.stderr).toContain("\\x1b[2J\\x1b]0;pwned\\x07");
  });

  it("notices on stderr (a report that could not be fetched, its message from the service) are escaped", async () => {
    const r = await runHostile(["reports", "export", "--from", "2d", "--to", "now", "--retries", "0"]);
    expect(r.code, r.stderr).toBe(3);
    expectClean(r);
    expect(r.stderr).toContain("5001: No test here \\x1b[2J\\x1b]0;pwned\\x07\\x9b31m");
  });

  it("callbacks listen: a notification's Status and a malformed body are shown escaped", async () => {
    const human = startLiveCli(["callbacks", "listen", "--port", "0"], t.env, { tty: true });
    const piped = startLiveCli(["callbacks", "listen", "--port", "0"], t.env);
    try {
      const notification = {
        TestInvitationId: 50123,
        Status: `${CLEAR_AND_RETITLE}Complete`,
        CandidateEmailId: `eve${C1_CSI}@example.com`,
        PerformanceCategory: OPEN_LINK,
      };
      for (const cli of [human, piped]) {
        const [, url] = await cli.waitFor("stderr", /Callback URL to use: (\S+)/);
        const post = (body: string) =>
          fetch(url!, { method: "POST", headers: { "content-type": "application/json" }, body });
        expect((await post(JSON.stringify(notification))).status).toBe(200);
        expect((await post(`${CLEAR_AND_RETITLE}not json`)).status).toBe(400);
        await eventually(() => /warning: .*malformed JSON/.test(cli.stderr()), "the rejected request");
        await eventually(() => cli.stdout().includes("50123"), "the notification line");
      }
      expect(await human.stop()).toBe(0);
      expect(await piped.stop()).toBe(0);
      for (const cli of [human, piped]) {
        expect(rawControls(cli.stdout())).toEqual([]);
        expect(rawControls(cli.stderr())).toEqual([]);
      }
      expect(human.stdout()).toContain("\\x1b[2J\\x1b]0;pwned\\x07Complete");
      expect(human.stdout()).toContain("eve\\x9b31m@example.com");
      expect(human.stderr()).toContain("\\x1b[2J");
      const event = JSON.parse(piped.stdout().trim()) as { status: string; notification: unknown };
      expect(event.status).toBe(notification.Status);
      expect(event.notification).toEqual(notification);
    } finally {
      await human.stop();
      await piped.stop();
    }
  });
});

describe("--fields looks up own keys only", () => {
  it.each(
    [
      ["tests", "list"],
      ["tests", "list", "-o", "json"],
      ["tests", "get", "1001"],
      ["attempts", "list", "--from", "90d", "--to", "now"],
    ].map((argv) => [argv.join(" "), argv]),
  )(
    "%s --fields constructor,__proto__,toString: unknown fields (exit 2, the available ones listed)",
    async (_name, argv) => {
      const r = await t.run([...argv, "--fields", "constructor,__proto__,toString"]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).not.toContain("function");
      expect(r.stderr).toContain("error: Unknown fields: constructor, __proto__, toString");
      expect(r.stderr).toMatch(/hint: Available fields: \w+/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    },
  );

  it("own fields, nested paths included, still work", async () => {
    const r = await t.run(["tests", "list", "-o", "tsv", "--fields", "testId,testName"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe("testId\ttestName");
    const path = "invitationSchedule.scheduleDetails.timeZoneId";
    const links = await t.run([
      "links",
      "list",
      "--test",
      "1001",
      "-o",
      "tsv",
      "--fields",
      `testLinkId,${path}`,
    ]);
    expect(links.code, links.stderr).toBe(0);
    expect(links.stdout.split("\n")[0]).toBe(`testLinkId\t${path}`);
    expect(links.stdout.split("\n")[1]).toMatch(/^\d+\t\d+$/);
    const nested = await t.run([
      "links",
      "list",
      "--test",
      "1001",
      "--fields",
      "invitationSchedule.constructor",
    ]);
    expect(nested.code).toBe(2);
    expect(nested.stderr).toContain("Unknown field: invitationSchedule.constructor");
  });
});

describe("a period of many windows needs confirmation", () => {
  const ATTEMPTS_PATH = "/v3/candidates/testattempts";
  const DAY = 86_400_000;
  const dayOf = (offset: number) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);
  const listings = (before: number) =>
    t.sandbox.requests.slice(before).filter((q) => q.path === ATTEMPTS_PATH).length;

  it.each([[["attempts", "list"]], [["reports", "export"]], [["callbacks", "resend"]]])(
    "%j --from 1970-01-01 --to 2200-01-01 without prompts: exit 2 naming --yes and 2,801 calls, nothing sent",
    async (command) => {
      const before = t.sandbox.requests.length;
      const r = await t.run([...command, "--from", "1970-01-01", "--to", "2200-01-01"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("takes 2,801 calls to the service");
      expect(r.stderr).toContain(`more than ${MAX_WINDOWS_UNASKED} need confirmation`);
      expect(r.stderr).toContain("hint: Pass --yes to make the 2,801 calls");
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(t.sandbox.requests.length).toBe(before);
    },
  );

  it(`${MAX_WINDOWS_UNASKED} windows go without asking; one more needs --yes, which makes them all`, async () => {
    let before = t.sandbox.requests.length;
    const at = await t.run(["attempts", "list", "--from", dayOf(-719), "--to", dayOf(0), "--json"]);
    expect(at.code, at.stderr).toBe(0);
    expect(listings(before)).toBe(MAX_WINDOWS_UNASKED);

    before = t.sandbox.requests.length;
    const over = await t.run(["attempts", "list", "--from", dayOf(-720), "--to", dayOf(0), "--json"]);
    expect(over.code).toBe(2);
    expect(over.stderr).toContain(`takes ${MAX_WINDOWS_UNASKED + 1} calls`);
    expect(listings(before)).toBe(0);

    const yes = await t.run(["attempts", "list", "--from", dayOf(-720), "--to", dayOf(0), "--json", "--yes"]);
    expect(yes.code, yes.stderr).toBe(0);
    expect(listings(before)).toBe(MAX_WINDOWS_UNASKED + 1);
    expect(yes.json<unknown[]>().length).toBe(at.json<unknown[]>().length);
  });

  it("--yes also lets reports export and callbacks resend --from/--to through, with progress on a terminal's stderr", async () => {
    const period = ["--from", dayOf(-800), "--to", dayOf(0), "--yes"];
    const calls = Math.ceil((800 * DAY + DAY) / (30 * DAY));
    for (const command of [
      ["reports", "export", "-o", "json"],
      ["callbacks", "resend", "--dry-run"],
      ["attempts", "list"],
    ]) {
      const before = t.sandbox.requests.length;
      const r = await t.run([...command, ...period], { tty: true, env: { CI: undefined } });
      expect(r.code, r.stderr).toBe(0);
      expect(listings(before)).toBe(calls);
      expect(r.stderr).toMatch(new RegExp(`\\d+/${calls} windows`));
    }
  });

  it("on a terminal it asks: No sends nothing (exit 0), Yes lists the period", async () => {
    let before = t.sandbox.requests.length;
    const no = Terminal.start(["attempts", "list", "--from", "1970-01-01", "--to", "2200-01-01"], t.env);
    try {
      await no.answer("Make them?", "n");
      expect(await no.exited).toBe(0);
      const screen = no.screen.replace(/\s+/g, " ");
      expect(screen).toContain("takes 2,801 calls to the service");
      expect(screen).toContain("Nothing was read: you answered no");
    } finally {
      await no.close();
    }
    expect(listings(before)).toBe(0);

    before = t.sandbox.requests.length;
    const yes = Terminal.start(["attempts", "list", "--from", dayOf(-720), "--to", dayOf(0)], t.env);
    try {
      await yes.answer("Make them?", "y");
      expect(await yes.exited).toBe(0);
      expect(yes.screen.replace(/\s+/g, " ")).toContain(`takes ${MAX_WINDOWS_UNASKED + 1} calls`);
    } finally {
      await yes.close();
    }
    expect(listings(before)).toBe(MAX_WINDOWS_UNASKED + 1);
  });
});

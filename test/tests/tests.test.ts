import { describe, expect, it } from "vitest";
import { SANDBOX_KEYS, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();

describe("tests list", () => {
  it("prints JSON that parses, with the sandbox's tests", async () => {
    const r = await t.run(["tests", "list", "--json"]);
    expect(r.code).toBe(0);
    const tests = r.json<Array<{ testId: number; testName: string }>>();
    expect(tests.map((x) => x.testId)).toContain(1001);
  });

  it("sends pageNo and pageSize with the key header, under the base URL's prefix", async () => {
    const before = t.sandbox.requests.length;
    await t.run(["tests", "list", "--page", "2", "--page-size", "2", "--json"]);
    const sent = t.sandbox.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      method: "GET",
      path: "/v3/tests",
      query: { pageNo: "2", pageSize: "2" },
    });
    expect(sent[0]?.headers["x-api-key"]).toBe(SANDBOX_KEYS.acme);
    expect(sent[0]?.rawUrl.startsWith("/api/v3/tests")).toBe(true);
  });

  it("defaults to tab-separated values with a header when piped", async () => {
    const r = await t.run(["tests", "list"]);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toBe("ID\tNAME\tSTATUS\tDURATION\tLABELS");
    expect(lines[1]?.split("\t")[0]).toMatch(/^\d+$/);
  });

  it("draws a table on a terminal", async () => {
    const r = await t.run(["tests", "list"], { tty: true });
    expect(r.stdout).toContain("┌");
    expect(r.stdout).toContain("JavaScript Fundamentals");
  });

  it("--all follows every page and --limit stops early", async () => {
    const all = await t.run(["tests", "list", "--all", "--page-size", "2", "--json"]);
    expect(all.json<unknown[]>()).toHaveLength(5);
    const before = t.sandbox.requests.length;
    const limited = await t.run(["tests", "list", "--limit", "3", "--page-size", "2", "-o", "ndjson"]);
    expect(limited.stdout.trim().split("\n")).toHaveLength(3);
    expect(t.sandbox.requests.length - before).toBe(2);
  });

  it("--fields picks columns by field or by header, headed as asked, and an unknown field lists the available ones", async () => {
    const r = await t.run(["tests", "list", "--fields", "testId,testName", "-o", "csv"]);
    expect(r.stdout.split("\r\n")[0]).toBe("testId,testName");
    const byHeader = await t.run(["tests", "list", "--fields", "id,Name", "-o", "csv"]);
    expect(byHeader.stdout.split("\r\n").slice(0, 2)).toEqual(["id,Name", r.stdout.split("\r\n")[1]]);
    const bad = await t.run(["tests", "list", "--fields", "nope"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Unknown field: nope[\s\S]*Available fields: .*testId/);
  });

  it("refuses a page size out of range before sending anything", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["tests", "list", "--page-size", "-5"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--page-size");
    expect(t.sandbox.requests.length).toBe(before);
  });
});

describe("tests get", () => {
  it("shows a test with its sections", async () => {
    const r = await t.run(["tests", "get", "1001", "--json"]);
    expect(r.code).toBe(0);
    expect(r.json<{ testId: number; sections: unknown[] }>()).toMatchObject({ testId: 1001 });
  });

  it("another account's test → exit 4 with the service's message", async () => {
    const r = await t.run(["tests", "get", "2001"]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("You do not have permission to access resource");
  });

  it("prints the error as JSON on stderr with --json", async () => {
    const r = await t.run(["tests", "get", "2001", "--json"]);
    const last = r.stderr.trim().split("\n").at(-1)!;
    expect(JSON.parse(last)).toEqual({
      error: { status: 403, messages: ["You do not have permission to access resource"] },
    });
  });

  it("a test id that is not a number is a usage error", async () => {
    const r = await t.run(["tests", "get", "abc"]);
    expect(r.code).toBe(2);
  });
});

describe("tests settings", () => {
  it("get prints the settings as sent (--json) and the documented flat fields in a table", async () => {
    const r = await t.run(["tests", "settings", "get", "1002", "--json"]);
    expect(r.code).toBe(0);
    expect(r.json()).toHaveProperty("questionSettings.randomQuestions");
    const table = await t.run(["tests", "settings", "get", "1002", "-o", "tsv"]);
    expect(table.stdout.split("\n")[0]?.split("\t")).toContain("randomQuestions");
    expect(table.stdout).not.toContain("questionSettings");
  });

  it("set with flags reads, changes and writes back the whole object", async () => {
    const before = (await t.run(["tests", "settings", "get", "1002", "--json"])).json<
      Record<string, unknown>
    >();
    const r = await t.run([
      "tests",
      "settings",
      "set",
      "1002",
      "--random-questions",
      "yes",
      "--copy-paste",
      "no",
    ]);
    expect(r.code).toBe(0);
    const post = t.sandbox.requests
      .filter((q) => q.method === "POST" && q.path === "/v3/tests/1002/settings")
      .at(-1);
    // The grouped answer is written back as the documented flat fields.
    const flat = Object.assign({}, ...Object.values(before));
    expect(Object.keys(flat)).toHaveLength(16);
    expect(post?.body).toEqual({ ...flat, randomQuestions: 1, copyPaste: 0 });
    const after = (await t.run(["tests", "settings", "get", "1002", "--json"])).json<
      Record<string, unknown>
    >();
    expect(Object.assign({}, ...Object.values(after))).toMatchObject({
      randomQuestions: 1,
      copyPaste: 0,
      candidateFeedback: flat.candidateFeedback,
    });
  });

  it("set --file sends the file as is", async () => {
    const { writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const file = join(t.configDir, "settings.json");
    const settings = { testName: "SQL for Analysts", typeOfTest: 1, practiceTest: 1, randomQuestions: 0 };
    writeFileSync(file, JSON.stringify(settings));
    const r = await t.run(["tests", "settings", "set", "1003", "--file", file]);
    expect(r.code).toBe(0);
    expect(t.sandbox.requests.at(-1)).toMatchObject({
      method: "POST",
      path: "/v3/tests/1003/settings",
      body: settings,
    });
  });

  it("set --file of a pulled file with a bad value names the field; nothing sent", async () => {
    const { join } = await import("node:path");
    const { readFileSync, writeFileSync } = await import("node:fs");
    const file = join(t.configDir, "pulled.json");
    expect((await t.run(["tests", "settings", "pull", "1003", "--out", file])).code).toBe(0);
    const pulled = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...pulled, practiceTest: "maybe" }));
    const before = t.sandbox.requests.length;
    const r = await t.run(["tests", "settings", "set", "1003", "--file", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: --file ${file}: 1 invalid setting; nothing was sent`);
    expect(r.stderr).toContain('practiceTest: must be yes or no, got "maybe"');
    expect(t.sandbox.requests.length).toBe(before);
  });

  it("a flag value that is not yes/no is refused before sending", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["tests", "settings", "set", "1002", "--copy-paste", "maybe"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--copy-paste must be yes or no");
    expect(t.sandbox.requests.length).toBe(before);
  });
});

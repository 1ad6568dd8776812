/**
 * The audit log (src/config/audit.ts): a line for each write, from the CLI (in-process), the SDK and the MCP
 * server (the built CLI driven by the MCP SDK's own client over stdio), all against the sandbox; never the key,
 * an e-mail or a name; private, rotated at its size, refused in a link's place; `assess audit` reads it
 * bounded.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  AUDIT_FILE,
  type AuditEntry,
  actorOf,
  assistantOf,
  MAX_AUDIT_BYTES,
  plainName,
} from "../../src/config/audit.js";
import { SANDBOX_KEYS } from "../../src/sandbox/index.js";
import { createClient } from "../../src/sdk/index.js";
import { useTempDir, useTestEnv } from "../helpers/cli.js";
import { callTool, connectMcp } from "../mcp/helpers.js";

const t = useTestEnv();
const tmp = useTempDir("assess-audit-");
const KEY = SANDBOX_KEYS.acme;

/** A fresh config folder, and the environment of a command run with it (no CI, no assistant). */
function fresh() {
  const dir = tmp.fresh();
  return {
    dir,
    env: { ...t.env, ASSESS_CONFIG_DIR: dir, CI: undefined } as Record<string, string | undefined>,
  };
}

function lines(dir: string, name = AUDIT_FILE): AuditEntry[] {
  return readFileSync(join(dir, name), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as AuditEntry);
}

const invite = (email: string, name: string) => [
  "invite",
  "send",
  "--test",
  "1001",
  "--email",
  email,
  "--name",
  name,
];

const invitesSent = (email: string) =>
  t.sandbox.requests.filter((r) => r.method === "POST" && JSON.stringify(r.body ?? "").includes(email));

describe("the audit log", () => {
  it("a CLI invite, an SDK upsert and an MCP write: three lines, their surfaces and actors, no key, no e-mail, no name", async () => {
    const { dir, env } = fresh();
    const cli = await t.run(invite("audit.cli@example.com", "Audrey Cli"), { env });
    expect(cli.code, cli.stderr).toBe(0);

    const sdk = createClient({
      apiKey: KEY,
      baseUrl: t.sandbox.url,
      skillsBaseUrl: t.sandbox.skillsUrl,
      env: { ASSESS_CONFIG_DIR: dir, CI: "true" },
    });
    try {
      const upserted = await sdk.employees.upsert([
        { email: "audit.sdk@example.com", firstName: "Sadie", lastName: "Sdkson" },
      ]);
      expect(upserted.counts.sent).toBe(1);
    } finally {
      await sdk.close();
    }

    const mcpEnv = { ...env, CLAUDECODE: "1" } as Record<string, string>;
    delete mcpEnv.CI;
    const mcp = await connectMcp(mcpEnv, ["--allow-writes", "invite"]);
    try {
      const invited = await callTool(mcp, "invite_candidate", {
        testId: 1002,
        emailId: "audit.mcp@example.com",
        fullName: "Mona Mcp",
      });
      expect(invited.result.isError, invited.text).toBeFalsy();
    } finally {
      await mcp.close();
    }

    const [fromCli, fromSdk, fromMcp, ...more] = lines(dir);
    expect(more).toEqual([]);
    expect(fromCli).toMatchObject({
      surface: "cli",
      actor: userInfo().username,
      profile: "default",
      operation: "invite",
      method: "POST",
      target: { testId: 1001 },
      outcome: "ok",
    });
    expect(fromCli).not.toHaveProperty("assistant");
    expect(fromSdk).toMatchObject({
      surface: "sdk",
      actor: "ci",
      operation: "upsertEmployees",
      count: 1,
      outcome: "ok",
    });
    expect(fromMcp).toMatchObject({
      surface: "mcp",
      actor: "assess-test/1.0.0",
      assistant: "claude-code",
      operation: "invite",
      target: { testId: 1002 },
      outcome: "ok",
    });
    for (const entry of [fromCli, fromSdk, fromMcp]) expect(Date.parse(entry!.time)).not.toBeNaN();

    const text = readFileSync(join(dir, AUDIT_FILE), "utf8");
    for (const secret of [
      KEY,
      "@example.com",
      "audit.cli",
      "audit.sdk",
      "audit.mcp",
      "Audrey",
      "Sadie",
      "Mona",
    ])
      expect(text).not.toContain(secret);
    expect(statSync(join(dir, AUDIT_FILE)).mode & 0o777).toBe(0o600);

    // `assess audit`: a table by default, JSON with --json, filtered by surface and time.
    const table = await t.run(["audit"], { env });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split("\n")[0]).toMatch(
      /^TIME\tSURFACE\tACTOR\tASSISTANT\tPROFILE\tOPERATION\tTARGET\tOUTCOME$/,
    );
    expect(table.stdout).toContain("\tupsertEmployees\tcount=1\tok");
    const onlyMcp = await t.run(["audit", "--surface", "mcp", "--json"], { env });
    expect(onlyMcp.json<AuditEntry[]>().map((e) => [e.surface, e.actor])).toEqual([
      ["mcp", "assess-test/1.0.0"],
    ]);
    const future = await t.run(["audit", "--since", "+1d", "--json"], { env });
    expect(future.json()).toEqual([]);
  });

  it("a write to the embedded sandbox (--sandbox) is recorded as the sandbox's, not as the profile's account", async () => {
    const { dir, env } = fresh();
    const sent = await t.run(["--sandbox", ...invite("audit.sandbox@example.com", "Sandy Box")], { env });
    expect(sent.code, sent.stderr).toBe(0);
    expect(lines(dir)).toEqual([
      expect.objectContaining({ surface: "cli", operation: "invite", profile: "sandbox", outcome: "ok" }),
    ]);
  });

  it("a failed write is recorded with its status, a dry run records nothing, an existing log is made 0600", async () => {
    const { dir, env } = fresh();
    const dry = await t.run(["--dry-run", "invite", "cancel", "100"], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(existsSync(join(dir, AUDIT_FILE))).toBe(false);

    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, AUDIT_FILE), "", { mode: 0o644 });
    chmodSync(join(dir, AUDIT_FILE), 0o644);
    const refused = await t.run(["invite", "cancel", "999999"], { env });
    expect(refused.code).toBe(1);
    expect(lines(dir)).toEqual([
      expect.objectContaining({
        operation: "cancelInvitation",
        target: { testInvitationId: 999999 },
        outcome: "error",
        status: 404,
      }),
    ]);
    expect(statSync(join(dir, AUDIT_FILE)).mode & 0o777).toBe(0o600);
  });

  it("assess api's writes: as the operation whose route they are, or as `api` with an e-mail in the path hidden", async () => {
    const { dir, env } = fresh();
    const gdpr = await t.run(
      ["api", "POST", "/v3/gdpr/requests", "--data", '{"CandidateEmail":"raw.api@example.com"}'],
      { env },
    );
    expect(gdpr.stderr).toContain("No records found");
    const other = await t.run(["api", "POST", "/v3/unknown/raw.api@example.com?x=1"], { env });
    expect(other.code).toBe(1);
    const read = await t.run(["api", "GET", "/v3/tests"], { env });
    expect(read.code, read.stderr).toBe(0);
    expect(lines(dir)).toEqual([
      expect.objectContaining({ operation: "maskCandidate", method: "POST", outcome: "error", status: 400 }),
      expect.objectContaining({
        operation: "api",
        target: { path: "/v3/unknown/…" },
        outcome: "error",
        status: 404,
      }),
    ]);
    expect(readFileSync(join(dir, AUDIT_FILE), "utf8")).not.toContain("raw.api");
  });

  it(`rotates at ${MAX_AUDIT_BYTES / 1024 / 1024} MiB: the full log becomes ${AUDIT_FILE}.1, the next line starts a new one`, async () => {
    const { dir, env } = fresh();
    mkdirSync(dir, { mode: 0o700 });
    const old = JSON.stringify({
      time: "2026-01-01T00:00:00.000Z",
      surface: "cli",
      actor: "earlier",
      profile: "default",
      operation: "invite",
      method: "POST",
      outcome: "ok",
    });
    const count = Math.ceil(MAX_AUDIT_BYTES / (old.length + 1));
    writeFileSync(join(dir, AUDIT_FILE), `${old}\n`.repeat(count), { mode: 0o600 });
    writeFileSync(join(dir, `${AUDIT_FILE}.1`), "the oldest, replaced\n", { mode: 0o600 });

    const r = await t.run(invite("rotate@example.com", "Ro Tate"), { env });
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(join(dir, `${AUDIT_FILE}.1`)).size).toBe(count * (old.length + 1));
    expect(lines(dir).map((e) => e.operation)).toEqual(["invite"]);
    expect(statSync(join(dir, AUDIT_FILE)).mode & 0o777).toBe(0o600);

    // Below the size, nothing rotates.
    const again = await t.run(invite("rotate2@example.com", "Ro Tate"), { env });
    expect(again.code, again.stderr).toBe(0);
    expect(lines(dir)).toHaveLength(2);

    const shown = await t.run(["audit", "--since", "2026-01-01", "--json"], { env });
    expect(shown.json<AuditEntry[]>()).toHaveLength(count + 2);
  });

  it("a link in the log's place refuses the write: exit 2, nothing sent, the link's target untouched", async () => {
    const { dir, env } = fresh();
    mkdirSync(dir, { mode: 0o700 });
    const elsewhere = tmp.file("elsewhere.log");
    writeFileSync(elsewhere, "");
    symlinkSync(elsewhere, join(dir, AUDIT_FILE));
    const r = await t.run(invite("linked@example.com", "Lin Ked"), { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("symbolic link");
    expect(r.stderr).toContain("nothing was sent");
    expect(invitesSent("linked@example.com")).toEqual([]);
    expect(readFileSync(elsewhere, "utf8")).toBe("");
    expect(lstatSync(join(dir, AUDIT_FILE)).isSymbolicLink()).toBe(true);

    const sdk = createClient({
      apiKey: KEY,
      baseUrl: t.sandbox.url,
      skillsBaseUrl: t.sandbox.skillsUrl,
      env: { ASSESS_CONFIG_DIR: dir },
    });
    try {
      await expect(
        sdk.invitations.create(1001, { emailId: "linked.sdk@example.com", fullName: "Lin Ked" }),
      ).rejects.toMatchObject({ name: "AssessUsageError" });
      expect(invitesSent("linked.sdk@example.com")).toEqual([]);
    } finally {
      await sdk.close();
    }
    const read = await t.run(["audit"], { env });
    expect(read.code).toBe(2);
    expect(read.stderr).toContain("symbolic link");
  });

  it("assess audit skips torn and oversized lines with a warning, and shows the rest", async () => {
    const { dir, env } = fresh();
    mkdirSync(dir, { mode: 0o700 });
    const good = (actor: string) =>
      JSON.stringify({
        time: "2026-11-01T10:00:00.000Z",
        surface: "sdk",
        actor,
        profile: "default",
        operation: "invite",
        method: "POST",
        outcome: "ok",
      });
    const huge = `{"time":"${"x".repeat(200 * 1024)}"}`;
    writeFileSync(
      join(dir, AUDIT_FILE),
      [good("first"), huge, "not json", good("second"), '{"time":"2026-11-01T1'].join("\n"),
      { mode: 0o600 },
    );
    const r = await t.run(["audit", "--json"], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json<AuditEntry[]>().map((e) => e.actor)).toEqual(["first", "second"]);
    expect(r.stderr).toContain("Skipped 3 lines");
  });

  it("a line cut short by a crash is left on its own: the next write starts a line of its own", async () => {
    const { dir, env } = fresh();
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(join(dir, AUDIT_FILE), '{"time":"2026-11-01T10:00:00.000Z","surf', { mode: 0o600 });
    const r = await t.run(invite("torn@example.com", "Tor N"), { env });
    expect(r.code, r.stderr).toBe(0);
    const shown = await t.run(["audit", "--json"], { env });
    expect(shown.json<AuditEntry[]>().map((e) => e.operation)).toEqual(["invite"]);
    expect(shown.stderr).toContain("Skipped 1 line ");
  });

  it("an SDK client with audit: false records nothing", async () => {
    const { dir } = fresh();
    const sdk = createClient({
      apiKey: KEY,
      baseUrl: t.sandbox.url,
      skillsBaseUrl: t.sandbox.skillsUrl,
      env: { ASSESS_CONFIG_DIR: dir },
      audit: false,
    });
    try {
      await sdk.invitations.create(1001, { emailId: "unaudited@example.com", fullName: "Un Audited" });
    } finally {
      await sdk.close();
    }
    expect(existsSync(join(dir, AUDIT_FILE))).toBe(false);
  });
});

describe("who acts", () => {
  it("an assistant is named by the variable it sets for its commands; a Cursor terminal alone is a person's", () => {
    expect(assistantOf({})).toBeUndefined();
    expect(assistantOf({ CLAUDECODE: "1" })).toBe("claude-code");
    expect(assistantOf({ CURSOR_AGENT: "1" })).toBe("cursor");
    expect(assistantOf({ CURSOR_TRACE_ID: "0f3c" })).toBeUndefined();
    expect(assistantOf({ GEMINI_CLI: "1" })).toBe("gemini-cli");
    expect(assistantOf({ CODEX_THREAD_ID: "t-1" })).toBe("codex");
    expect(assistantOf({ CLAUDECODE: "" })).toBeUndefined();
    expect(assistantOf({ AI_AGENT: "my-bot\u001b[31m", CLAUDECODE: "1" })).toBe("my-bot?[31m");
  });

  it("the actor is ci under CI (not CI=false), else the OS user; outside names are one printable line, bounded", () => {
    expect(actorOf({ CI: "true" })).toBe("ci");
    expect(actorOf({ CI: "false" })).toBe(userInfo().username);
    expect(plainName("evil\nclient\u202e")).toBe("evil?client?");
    expect(plainName("x".repeat(500))).toHaveLength(100);
  });
});

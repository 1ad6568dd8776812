/**
 * Two branches of src/cli.ts's one error handler (`report()`) that only particular answers or input reach,
 * through `main(argv)` against the sandbox:
 * - the 401 of `callbacks/process` that names ids (reached by `assess api POST /v3/callbacks/process`; `callbacks
 *   resend` turns the same answer into per-id failures instead): exit 1, not 4, the ids listed, the hint to find
 *   real ones, no key hint, and with --json (or -o ndjson) the error object carrying `ids`;
 * - a request body that the operation's own schema refuses (zod), reached by user input that the flags' checks
 *   let through (`invite send --redirect-url notaurl`, `--callback-url http://`): "Invalid request: …", exit 2,
 *   nothing sent.
 */
import { describe, expect, it } from "vitest";
import { useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();

const IDS_HINT =
  "hint: These ids are not attempts of this account, or do not exist; `assess attempts list --from 30d --to now` shows recent ones.";

describe("the 401 that names ids", () => {
  const process401 = (...more: string[]) =>
    t.run([
      "api",
      "POST",
      "/v3/callbacks/process",
      "--data",
      JSON.stringify({ testinvitationIds: [987654321, 987654322] }),
      ...more,
    ]);

  it("exit 1 (not 4), the message with the ids, the hint to find real ones; no key hint, no JSON without --json", async () => {
    const r = await process401();
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: Invalid testinvitationIds \(POST \S*\/v3\/callbacks\/process\): 987654321, 987654322\n/m,
    );
    expect(r.stderr).toContain(`${IDS_HINT}\n`);
    expect(r.stderr).not.toMatch(/API key|auth login|auth status|The key sent/);
    expect(r.stderr).not.toContain("{");
    expect(r.stdout).toBe("");
  });

  it("--json and -o ndjson: the error object carries the status, the service's message and the ids", async () => {
    for (const flags of [["--json"], ["-o", "ndjson"]]) {
      const r = await process401(...flags);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${IDS_HINT}\n`);
      const last = r.stderr.trim().split("\n").at(-1)!;
      expect(JSON.parse(last)).toEqual({
        error: { status: 401, messages: ["Invalid testinvitationIds"], ids: [987654321, 987654322] },
      });
    }
  });

  it("`callbacks resend` of such an id is a per-id failure of the bulk run (exit 3 listing it), not a key error", async () => {
    const r = await t.run(["callbacks", "resend", "987654321"]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/987654321: not found in this account \(the service answered 401 naming it\)/);
    expect(r.stderr).not.toMatch(/The key sent|auth login/);
  });
});

describe("a request body the operation's schema refuses", () => {
  const isInvite = (r: { method: string; path: string }) =>
    r.method === "POST" && /^\/v3\/tests\/\d+\/invite$/.test(r.path);
  const send = (...more: string[]) =>
    t.run([
      "invite",
      "send",
      "--test",
      "1001",
      "--email",
      "zod@example.com",
      "--name",
      "Zod",
      "--no-input",
      ...more,
    ]);

  it("invite send --redirect-url notaurl / --callback-url http://: 'Invalid request: …', exit 2, nothing sent", async () => {
    const mark = t.sandbox.requests.length;
    const cases = [
      [["--redirect-url", "notaurl"], "redirectURL: Invalid URL"],
      [["--callback-url", "http://"], "callbackURL: Invalid URL"],
    ] as const;
    for (const [flags, issue] of cases) {
      const r = await send(...flags);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`error: Invalid request: ${issue}\n`);
      expect(r.stderr).not.toMatch(/looks like a bug|hint:/);

      const json = await send(...flags, "--json");
      expect(json.code).toBe(2);
      expect(JSON.parse(json.stderr.trim().split("\n").at(-1)!)).toEqual({
        error: { status: null, messages: [issue] },
      });
    }
    expect(t.sandbox.requests.slice(mark).filter(isInvite)).toEqual([]);
  });
});

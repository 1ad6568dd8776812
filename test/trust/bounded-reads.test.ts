/**
 * Whole reads of standard input and of files the user names are bounded: more than the limit is a usage error
 * naming the source and the limit (exit 2), nothing is sent, and no more than the limit is read (memory stays
 * small, a stream that never ends ends the run at once). An API key: 4 KiB; a request body (`api --data`, a
 * command's `--file` JSON): 8 MiB; a workbook, and an id list on stdin: 64 MiB.
 */
import { existsSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { runBin, useTempDir, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();
const tmp = useTempDir("assess-bounded-reads-");

const MiB = 1024 * 1024;

/** `bytes` of `yes` (lines of "y", or of `line`), made as they are read. */
function yes(bytes: number, line = "y"): Readable {
  const chunk = Buffer.from(`${line}\n`.repeat(Math.ceil((64 * 1024) / (line.length + 1))));
  return Readable.from(
    (function* () {
      for (let sent = 0; sent < bytes; sent += chunk.length) yield chunk;
    })(),
  );
}

/** A JSON object body of more than `bytes`. */
const bodyOver = (bytes: number) => JSON.stringify({ email: "big@example.com", fullName: "x".repeat(bytes) });

/** Runs `argv` in-process and tells how many requests reached the sandbox. */
async function sent(argv: string[], stdin?: string) {
  const before = t.sandbox.requests.length;
  const r = await t.run(argv, { stdin });
  return { r, sent: t.sandbox.requests.length - before };
}

describe("auth login --with-key reads at most 4 KiB of stdin", () => {
  it("200 MB of yes piped in: exit 2 at once naming stdin and the limit, small memory, nothing sent or stored", async () => {
    const source = yes(200 * MiB);
    const configDir = tmp.file("login-config");
    const before = t.sandbox.requests.length;
    const r = await runBin(["auth", "login", "--with-key"], {
      env: { ...t.env, ASSESS_API_KEY: undefined, ASSESS_CONFIG_DIR: configDir },
      stdin: source,
      peakMemory: true,
      timeoutMs: 60_000,
    });
    source.destroy();
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("stdin holds more than 4 KiB, more than an API key can be; nothing was sent");
    expect(r.ms).toBeLessThan(10_000);
    expect(r.peakMiB).toBeLessThan(150);
    expect(t.sandbox.requests.length).toBe(before);
    expect(existsSync(join(configDir, "config.json"))).toBe(false);
  });
});

describe("callbacks resend --file - keeps at most 64 MiB of stdin", () => {
  it("200 MB of lines piped in: exit 2 naming stdin and the limit, small memory, nothing sent", async () => {
    const source = yes(200 * MiB, "1".repeat(999));
    const before = t.sandbox.requests.length;
    const r = await runBin(["callbacks", "resend", "--file", "-"], {
      env: t.env,
      stdin: source,
      peakMemory: true,
      timeoutMs: 60_000,
    });
    source.destroy();
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("stdin holds more than 64 MiB, more than an id list can be; nothing was sent");
    expect(r.peakMiB).toBeLessThan(300);
    expect(t.sandbox.requests.length).toBe(before);
  });
});

describe("a request body is at most 8 MiB", () => {
  it("api POST --data - (and @-): more on stdin is exit 2 naming stdin and the limit, nothing sent", async () => {
    for (const data of ["-", "@-"]) {
      const { r, sent: count } = await sent(
        ["api", "POST", "/v3/accounts/user/create", "--data", data],
        bodyOver(8 * MiB),
      );
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(
        `--data ${data}: stdin holds more than 8 MiB, more than a request body can be`,
      );
      expect(count).toBe(0);
    }
  });

  it("api POST --data @file: a file of more is exit 2 naming the file, nothing sent; one of 8 MiB is sent", async () => {
    const over = tmp.file("over.json");
    writeFileSync(over, bodyOver(8 * MiB));
    const refused = await sent(["api", "POST", "/v3/accounts/user/create", "--data", `@${over}`]);
    expect(refused.r.code, refused.r.stderr).toBe(2);
    expect(refused.r.stderr).toContain(`--data @${over}: ${over} holds more than 8 MiB`);
    expect(refused.sent).toBe(0);

    const exact = tmp.file("exact.json");
    const body = bodyOver(0);
    writeFileSync(exact, body.replace('""', `"${"x".repeat(8 * MiB - body.length)}"`));
    const accepted = await sent(["api", "POST", "/v3/accounts/user/create", "--data", `@${exact}`]);
    expect(accepted.r.stderr).not.toContain("holds more than");
    expect(accepted.sent).toBe(1);
  });

  it("employees add-certificate --file - (a command's JSON body): more is exit 2 naming stdin, nothing sent", async () => {
    const body = JSON.stringify({ title: "Big", issuer: "x".repeat(8 * MiB) });
    const { r, sent: count } = await sent(["employees", "add-certificate", "501", "--file", "-"], body);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("--file: stdin holds more than 8 MiB, more than a request body can be");
    expect(count).toBe(0);
  });
});

describe("a workbook is read up to 64 MiB", () => {
  it("invite bulk of a 3 GiB .xlsx: exit 2 naming the file and the limit, small memory, nothing sent", async () => {
    const huge = tmp.file("huge.xlsx");
    writeFileSync(huge, "");
    truncateSync(huge, 3 * 1024 * MiB); // sparse: no disk used
    const before = t.sandbox.requests.length;
    const r = await runBin(["invite", "bulk", huge, "--test", "1001"], {
      env: t.env,
      peakMemory: true,
      timeoutMs: 60_000,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${huge}: the workbook is larger than 64 MiB`);
    expect(r.peakMiB).toBeLessThan(300);
    expect(t.sandbox.requests.length).toBe(before);
  });
});

import { readFileSync } from "node:fs";
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { ndjson, useTempDir, useTestEnv } from "../helpers/cli.js";
import { eventually, startLiveCli, startRecorder } from "./live.js";

const t = useTestEnv();
const tmp = useTempDir("assess-listen-");

/** A line the listener prints (and logs). */
type Printed = Record<string, unknown> & { notification: Record<string, unknown> };

async function invite(callbackUrl: string, email: string, name = "Ada Lovelace"): Promise<number> {
  const r = await t.run([
    "invite",
    "send",
    "--test",
    "1001",
    "--email",
    email,
    "--name",
    name,
    "--callback-url",
    callbackUrl,
    "--json",
  ]);
  expect(r.code, r.stderr).toBe(0);
  return r.json<{ testInvitationId: number }>().testInvitationId;
}

const post = (url: string, body: string | Buffer, contentType = "application/json") =>
  request(url, { method: "POST", headers: { "content-type": contentType }, body }).then(async (res) => ({
    status: res.statusCode,
    body: await res.body.text(),
  }));

describe("callbacks listen", () => {
  it("receives both notifications of a completed attempt, forwards them unchanged, logs them, marks resends as duplicates", async () => {
    const target = await startRecorder(202);
    const log = tmp.file("callbacks.ndjson");
    const cli = startLiveCli(
      ["callbacks", "listen", "--port", "0", "--forward-to", target.url, "--log", log],
      t.env,
    );
    try {
      const [, callbackUrl] = await cli.waitFor("stderr", /Callback URL to use: (\S+)/);
      const id = await invite(callbackUrl!, "listen.one@example.com");

      const started = performance.now();
      const { delivered } = await t.sandbox.completeAttempt(id, "Complete");
      const lines = await eventually(() => {
        const parsed = ndjson<Printed>(cli.stdout());
        return parsed.length >= 2 ? parsed : undefined;
      }, "two notification lines");
      const elapsed = performance.now() - started;
      console.log(`completion → listener printed both lines (forward included) in ${elapsed.toFixed(0)} ms`);

      expect(delivered.map((d) => d.status)).toEqual([200, 200]);
      expect(lines.map((l) => [l.testInvitationId, l.status, l.duplicate])).toEqual([
        [id, "In Progress", false],
        [id, "Complete", false],
      ]);
      expect(lines[1]!.notification).toMatchObject({
        TestInvitationId: id,
        CandidateEmailId: "listen.one@example.com",
      });
      expect(lines.map((l) => l.forward)).toEqual([
        { url: target.url, status: 202 },
        { url: target.url, status: 202 },
      ]);
      // Forwarded byte for byte, with the sender's content type.
      expect(target.received.map((r) => JSON.parse(r.body))).toEqual(delivered.map((d) => d.body));
      expect(target.received.every((r) => r.contentType === "application/json")).toBe(true);

      // `callbacks resend` has the service send it again: same (id, Status) → a duplicate.
      const resend = await t.run(["callbacks", "resend", String(id)]);
      expect(resend.code, resend.stderr).toBe(0);
      const third = await eventually(() => ndjson<Printed>(cli.stdout())[2], "the resent notification");
      expect([third.testInvitationId, third.status, third.duplicate]).toEqual([id, "Complete", true]);

      expect(await cli.stop()).toBe(0);
      expect(cli.stderr()).toMatch(/Stopped: 3 notifications \(1 duplicate\), 0 rejected/);
      expect(ndjson<Printed>(readFileSync(log, "utf8")).map((l) => l.status)).toEqual([
        "In Progress",
        "Complete",
        "Complete",
      ]);
      // Closed for real: the port no longer answers.
      await expect(post(callbackUrl!, "{}")).rejects.toThrow();
    } finally {
      await cli.stop();
      await target.close();
    }
  });

  it("`assess sandbox complete` against the running sandbox reaches the listener too", async () => {
    const cli = startLiveCli(["callbacks", "listen", "--port", "0"], t.env);
    try {
      const [, callbackUrl] = await cli.waitFor("stderr", /Callback URL to use: (\S+)/);
      const id = await invite(callbackUrl!, "listen.two@example.com");
      const r = await t.run(["sandbox", "complete", String(id), "--status", "TestLeft"]);
      expect(r.code, r.stderr).toBe(0);
      const lines = await eventually(() => {
        const parsed = ndjson<Printed>(cli.stdout());
        return parsed.length >= 2 ? parsed : undefined;
      }, "two notification lines");
      expect(lines.map((l) => l.status)).toEqual(["In Progress", "Test Left"]);
    } finally {
      await cli.stop();
    }
  });

  it("answers 413 to a 2 MiB body and 400 to malformed JSON, logs both, and keeps serving", async () => {
    const log = tmp.file("rejects.ndjson");
    const cli = startLiveCli(["callbacks", "listen", "--port", "0", "--log", log], t.env);
    try {
      const [, url] = await cli.waitFor("stderr", /Callback URL to use: (\S+)/);
      const huge = Buffer.alloc(2 * 1024 * 1024, "a");
      expect((await post(url!, huge)).status).toBe(413);
      expect((await post(url!, "{not json")).status).toBe(400);
      expect((await post(url!, "[1,2]")).status).toBe(400);
      const ok = await post(
        url!,
        JSON.stringify({ TestInvitationId: 42, Status: "Complete", CandidateEmailId: "a@b.co" }),
      );
      expect(ok.status).toBe(200);

      const line = await eventually(() => ndjson<Printed>(cli.stdout())[0], "the good notification");
      expect([line.testInvitationId, line.status]).toEqual([42, "Complete"]);
      await eventually(
        () => readFileSync(log, "utf8").split("\n").filter(Boolean).length === 4 || undefined,
        "four log lines",
      );
      expect(ndjson<Printed>(readFileSync(log, "utf8")).map((l) => l.answered)).toEqual([413, 400, 400, 200]);
      expect(cli.stderr()).toMatch(/answered 413 .*larger than 1048576 bytes/);
      expect(cli.stderr()).toMatch(/answered 400 .*malformed JSON/);
      expect(ndjson<Printed>(cli.stdout())).toHaveLength(1);
    } finally {
      expect(await cli.stop()).toBe(0);
    }
  });

  it("--secret-path accepts only its unguessable path; everything else gets 404", async () => {
    const cli = startLiveCli(["callbacks", "listen", "--port", "0", "--secret-path"], t.env);
    try {
      const [, url] = await cli.waitFor("stderr", /Callback URL to use: (\S+)/);
      const { origin, pathname } = new URL(url!);
      expect(pathname).toMatch(/^\/[A-Za-z0-9_-]{32}$/);
      const body = JSON.stringify({ TestInvitationId: 7, Status: "Complete" });
      expect((await post(`${origin}/`, body)).status).toBe(404);
      // One character off (a secret that ends in "x" must not be "changed" into itself: 1 run in 64 did).
      const other = pathname.endsWith("x") ? "y" : "x";
      expect((await post(`${origin}${pathname.slice(0, -1)}${other}`, body)).status).toBe(404);
      expect((await post(url!, body)).status).toBe(200);
      await eventually(() => ndjson<Printed>(cli.stdout())[0], "the notification");
      expect(ndjson<Printed>(cli.stdout())).toHaveLength(1);
    } finally {
      await cli.stop();
    }
  });

  it("prints a readable line on a terminal", async () => {
    const cli = startLiveCli(["callbacks", "listen", "--port", "0"], t.env, { tty: true });
    try {
      const [, url] = await cli.waitFor("stderr", /Callback URL to use: (\S+)/);
      const body = {
        TestInvitationId: 9,
        Status: "Complete",
        CandidateEmailId: "x@y.co",
        CandidateScore: 12,
        TotalScore: 20,
        PerformanceCategory: "Good",
      };
      await post(url!, JSON.stringify(body));
      await post(url!, JSON.stringify(body));
      const [line] = await cli.waitFor("stdout", /^.*9 .*Complete.*x@y\.co.*12\/20 Good.*duplicate$/m);
      expect(line).toMatch(/^\d\d:\d\d:\d\d {2}9 /);
    } finally {
      await cli.stop();
    }
  });

  it("refuses bad options before listening (exit 2)", async () => {
    const forward = await t.run(["callbacks", "listen", "--port", "0", "--forward-to", "ftp://example.com"]);
    expect(forward.code).toBe(2);
    expect(forward.stderr).toContain("--forward-to must be an http:// or https:// URL");
    const port = await t.run(["callbacks", "listen", "--port", "70000"]);
    expect(port.code).toBe(2);
    const log = await t.run(["callbacks", "listen", "--port", "0", "--log", tmp.file("missing", "x.ndjson")]);
    expect(log.code).toBe(2);
    expect(log.stderr).toContain("cannot open it for appending (ENOENT)");
  });
});

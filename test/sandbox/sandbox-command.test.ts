import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, runCli, startBin, useTempDir } from "../helpers/cli.js";

const tmp = useTempDir("assess-first-week-b-");

describe("a busy port is said as such (exit 2), never as a bug", () => {
  let busy: http.Server;
  let port: number;
  beforeAll(async () => {
    busy = http.createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    port = (busy.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it.each([
    ["sandbox", ["sandbox"]],
    ["callbacks listen", ["callbacks", "listen"]],
  ])("`assess %s --port <busy>`", async (_name, argv) => {
    const r = await runCli([...argv, "--port", String(port)], { env: { ASSESS_CONFIG_DIR: tmp.fresh() } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: Cannot listen on 127.0.0.1:${port}: port ${port} is in use`);
    expect(r.stderr).toMatch(/hint: Pick another --port \(--port 0 takes any free one\)/);
    expect(r.stderr).not.toMatch(/bug|EADDRINUSE/);
  });
});

describe("the one-command sandbox finishes attempts; the SDK works against `assess sandbox`", () => {
  it("`assess --sandbox auth status` shows the demo account's key (redacted) and the sandbox's URLs, accepted", async () => {
    const env = { ASSESS_CONFIG_DIR: tmp.fresh() };
    const r = await runCli(["--sandbox", "auth", "status", "--json"], { env });
    expect(r.stderr).not.toContain("No API key");
    expect(r.code).toBe(0);
    const status = r.json<Record<string, unknown>>();
    expect(status).toMatchObject({ profile: "default", keySource: "sandbox", valid: true });
    expect(status.key).toMatch(/^\*{4}[0-9a-z]{4}$/);
    expect(status.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(r.stderr).toContain(`is accepted by ${status.baseUrl}`);
    // Without --sandbox and no key anywhere: the same command is exit 4, as before.
    const plain = await runCli(["auth", "status"], { env });
    expect(plain.code).toBe(4);
    expect(plain.stderr).toContain('No API key for profile "default"');
  });

  it("`assess --sandbox sandbox complete <id>` completes an attempt of the embedded sandbox", async () => {
    const env = { ASSESS_CONFIG_DIR: tmp.fresh() };
    const send = await runCli(
      [
        "--sandbox",
        "invite",
        "send",
        "--test",
        "1001",
        "--email",
        "seven@example.com",
        "--name",
        "Seven",
        "--json",
      ],
      { env },
    );
    expect(send.code).toBe(0);
    const id = String(send.json<{ testInvitationId: number }>().testInvitationId);
    const before = await runCli(["--sandbox", "reports", "get", id, "--json"], { env });
    expect(before.code).not.toBe(0);
    const done = await runCli(["--sandbox", "sandbox", "complete", id, "--status", "TestLeft"], { env });
    expect(done.stderr).not.toMatch(/Cannot reach/);
    expect(done.stderr).toContain(`✓ Attempt ${id} finished with status TestLeft`);
    expect(done.code).toBe(0);
    const report = await runCli(["--sandbox", "reports", "get", id, "--json"], { env });
    expect(report.code).toBe(0);
    expect(report.json<{ candidateEmail: string }>().candidateEmail).toBe("seven@example.com");
  });

  it("createClient of the built SDK against `assess sandbox --port 0 --json`, as the SDK guide says", async () => {
    const live = startBin(["sandbox", "--port", "0", "--json"], {
      env: { ASSESS_CONFIG_DIR: tmp.fresh() },
    });
    const { child } = live;
    try {
      let text = "";
      const started = await new Promise<{ url: string; skillsUrl: string; keys: { acme: string } }>(
        (resolve, reject) => {
          child.stdout.on("data", (chunk: Buffer) => {
            text += chunk.toString();
            try {
              resolve(JSON.parse(text));
            } catch {
              // not whole yet
            }
          });
          child.on("exit", (code) => reject(new Error(`assess sandbox exited with ${code}`)));
        },
      );
      const sdk = (await import(
        pathToFileURL(join(ROOT, "dist", "sdk.mjs")).href
      )) as typeof import("../../src/sdk/index.js");
      const client = sdk.createClient({
        apiKey: started.keys.acme,
        baseUrl: started.url,
        skillsBaseUrl: started.skillsUrl,
        // Its writes are recorded in the config folder's audit log: one of the test's, not this machine's.
        env: { ASSESS_CONFIG_DIR: tmp.fresh() },
      });
      const invitation = await client.invitations.create(1002, {
        emailId: "sdk.seven@example.com",
        fullName: "Sdk Seven",
      });
      const done = await runCli(
        ["sandbox", "complete", String(invitation.testInvitationId), "--url", started.url],
        { env: { ASSESS_CONFIG_DIR: tmp.fresh() } },
      );
      expect(done.code).toBe(0);
      const report = await client.reports.get(invitation.testInvitationId);
      expect(report.candidateEmail).toBe("sdk.seven@example.com");
      await client.close();
    } finally {
      child.kill("SIGINT");
      // Gone before the folders it writes to are removed.
      await live.exit;
    }
    const guide = readFileSync(join(ROOT, "docs", "sdk.md"), "utf8");
    expect(guide).toContain("assess sandbox --port 4010 &");
    expect(guide).toMatch(/createClient\(\{\n {2}apiKey: "sbx-acme-/);
  });
});

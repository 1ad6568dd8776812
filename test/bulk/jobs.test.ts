/**
 * The bulk jobs (src/bulk/jobs/) as every front door uses them: where a run's ledger says its requests went.
 * The embedded sandbox (`--sandbox`) listens on a new port at each run and keeps its account between runs: its
 * ledgers name it, not its port, so a rerun sends nothing an earlier run got confirmed. The SDK's own copy of
 * this rule named the port, the CLI's did not; there is one now.
 */
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Api } from "../../src/api/endpoints.js";
import { Transport } from "../../src/api/transport.js";
import { ledgerTarget } from "../../src/bulk/jobs/index.js";
import { runCli, useTempDir } from "../helpers/cli.js";
import { callTool, connectMcp } from "../mcp/helpers.js";

const api = (port: number) =>
  new Api(
    new Transport({
      baseUrl: `http://127.0.0.1:${port}`,
      skillsBaseUrl: `http://127.0.0.1:${port}/skills`,
      apiKey: "sk_test_jobs",
      timeoutMs: 1000,
      retries: 0,
      userAgent: "test",
      warn: () => undefined,
    }),
  );

describe("a bulk job's ledger target", () => {
  it("names the embedded sandbox whatever its port, and any other service by its URL", () => {
    const [a, b] = [api(4101), api(4102)];
    expect(ledgerTarget({ api: a, embeddedSandbox: true }, "assess")).toEqual(
      ledgerTarget({ api: b, embeddedSandbox: true }, "assess"),
    );
    expect(ledgerTarget({ api: a, embeddedSandbox: true }, "skills").baseUrl).toBe("sandbox:embedded/skills");
    expect(ledgerTarget({ api: a }, "assess").baseUrl).toBe("http://127.0.0.1:4101");
    expect(ledgerTarget({ api: a }, "skills").baseUrl).toBe("http://127.0.0.1:4101/skills");
    expect(ledgerTarget({ api: a }, "assess")).not.toEqual(ledgerTarget({ api: b }, "assess"));
    // The key's fingerprint, never the key.
    expect(JSON.stringify(ledgerTarget({ api: a }, "assess"))).not.toContain("sk_test_jobs");
  });

  const tmp = useTempDir("assess-jobs-");

  it("--sandbox: a rerun, on the embedded sandbox's new port, sends nothing the first run got confirmed", async () => {
    const env = { ASSESS_CONFIG_DIR: tmp.file("config") };
    const csv = tmp.file("people.csv");
    writeFileSync(csv, "email,name\njobs.a@example.com,Jobs A\njobs.b@example.com,Jobs B\n");
    const args = ["--sandbox", "invite", "bulk", csv, "--test", "1001", "--json", "--lookback", "0"];
    const first = await runCli(args, { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.json()).toMatchObject({ sent: 2, alreadyDone: 0 });
    const again = await runCli(args, { env });
    expect(again.code, again.stderr).toBe(0);
    expect(again.json()).toMatchObject({ sent: 0, alreadyDone: 2 });
  });

  it("assess --sandbox mcp plans from the ledger the CLI's --sandbox runs wrote: what they invited is already done", async () => {
    const env = { PATH: process.env.PATH ?? "", ASSESS_CONFIG_DIR: tmp.file("config-mcp") };
    const csv = tmp.file("mcp.csv");
    writeFileSync(csv, "email,name\nmcp.a@example.com,Mcp A\nmcp.b@example.com,Mcp B\n");
    const cli = await runCli(
      ["--sandbox", "invite", "bulk", csv, "--test", "1001", "--json", "--lookback", "0"],
      {
        env,
      },
    );
    expect(cli.code, cli.stderr).toBe(0);
    const client = await connectMcp(env, ["--sandbox", "--allow-writes"]);
    try {
      const plan = await callTool(client, "invite_candidates", {
        testId: 1001,
        candidates: [
          { email: "mcp.a@example.com", name: "Mcp A" },
          { email: "mcp.b@example.com", name: "Mcp B" },
        ],
      });
      expect(plan.result.isError, plan.text).toBeFalsy();
      expect(plan.data).toMatchObject({ plan: true, rows: 2, toSend: 0, alreadyDone: 2 });
    } finally {
      await client.close();
    }
  });
});

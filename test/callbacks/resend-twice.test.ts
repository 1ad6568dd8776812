/**
 * `callbacks resend` run twice: the second says why nothing went and names --restart.
 */
import { describe, expect, it } from "vitest";
import { useTempDir, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();
const tmp = useTempDir("assess-first-hour-b-");

describe("callbacks resend twice", () => {
  it("the rerun sends nothing (the ledger), says so and names --restart, which sends again", async () => {
    const invited = await t.run([
      "invite",
      "send",
      "--test",
      "1001",
      "--email",
      "webhook.tester@example.com",
      "--name",
      "Webhook Tester",
      "--callback-url",
      "http://127.0.0.1:9/hook",
      "--json",
    ]);
    expect(invited.code, invited.stderr).toBe(0);
    const id = String(invited.json<{ testInvitationId: number }>().testInvitationId);
    await t.sandbox.completeAttempt(Number(id), "Complete");
    const env = { ASSESS_CONFIG_DIR: tmp.file("resend-twice") };
    const processed = () => t.sandbox.requests.filter((q) => q.path.endsWith("/v3/callbacks/process")).length;

    const first = await t.run(["callbacks", "resend", id], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain("--restart");

    const before = processed();
    const second = await t.run(["callbacks", "resend", id], { env });
    expect(second.code, second.stderr).toBe(0);
    expect(processed()).toBe(before);
    expect(second.stderr).toContain("1 already done");
    expect(second.stderr).toMatch(/1 id was not resent: an earlier run already got its notification queued/);
    expect(second.stderr).toContain("Pass --restart to send it again");

    const third = await t.run(["callbacks", "resend", id, "--restart"], { env });
    expect(third.code, third.stderr).toBe(0);
    expect(processed()).toBe(before + 1);
    expect(third.stderr).toContain("Queued 1 id for re-delivery");
  });
});

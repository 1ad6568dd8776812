/**
 * CLI.md: any 2xx is success. A `callbacks/process` answered 200 with text that is no result was taken by the
 * service: its ids are of unknown outcome (exit 3, listed), and a rerun does not queue them again.
 */
import { describe, expect, it } from "vitest";
import { useTempDir, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();
const tmp = useTempDir("assess-resend-unreadable-");

describe("callbacks resend answered 200 with an answer it cannot read", () => {
  it("marks the ids uncertain (exit 3), and a plain rerun does not queue them again", async () => {
    const env = { ASSESS_CONFIG_DIR: tmp.file("config") };
    const processed = () => t.sandbox.requests.filter((q) => q.path.endsWith("/v3/callbacks/process")).length;
    t.sandbox.faults.add({
      method: "POST",
      path: "/v3/callbacks/process",
      kind: "status",
      status: 200,
      body: "Accepted",
      contentType: "text/plain",
      times: Number.POSITIVE_INFINITY,
    });
    const before = processed();
    const first = await t.run(["callbacks", "resend", "100001", "100002"], { env });
    expect(first.code, first.stderr).toBe(3);
    expect(first.stderr).toMatch(
      /taken \(HTTP 200\), but the service.s answer \(callbacks result\) is not JSON/,
    );
    expect(processed()).toBe(before + 1);
    // What can be done about them: the receiver shows what came; a resend would deliver twice.
    expect(first.stderr.replace(/\s+/g, " ")).toContain(
      "your receiver shows which of their notifications came (`assess callbacks listen --log` keeps a log); --retry-uncertain queues them again, and a notification that was queued is then delivered twice.",
    );

    const again = await t.run(["callbacks", "resend", "100001", "100002"], { env });
    expect(again.code, again.stderr).toBe(3);
    expect(processed()).toBe(before + 1);
  });
});

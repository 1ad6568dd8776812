/**
 * The 401 of callbacks/process that names ids is the service's refusal of those ids (exit 1), not a key
 * problem; a real key's 401 keeps its hint.
 */
import { describe, expect, it } from "vitest";
import { useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();

describe("the 401 of callbacks/process that names ids", () => {
  it("exits 1 with the message and the ids and no key hint; a real key 401 keeps its hint", async () => {
    const body = JSON.stringify({ testinvitationIds: [987654321, 987654322] });
    const r = await t.run(["api", "POST", "/v3/callbacks/process", "--data", body, "--json"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("987654321, 987654322");
    expect(r.stderr).not.toMatch(/API key|auth login/);
    const json = JSON.parse(r.stderr.trim().split("\n").at(-1)!) as {
      error: { status: number; ids: number[] };
    };
    expect(json.error).toMatchObject({ status: 401, ids: [987654321, 987654322] });

    const wrongKey = await t.run(["tests", "list"], { env: { ASSESS_API_KEY: "sbx-nobody-0000000000" } });
    expect(wrongKey.code).toBe(4);
    expect(wrongKey.stderr).toContain("The key sent comes from ASSESS_API_KEY");
  });
});

/**
 * Output consistency, through main(argv) against the sandbox: upper-case headers in tables, the record
 * unchanged in --json, the same fields in TSV.
 */
import { describe, expect, it } from "vitest";
import { useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();

describe("output consistency", () => {
  const table = (argv: string[]) => t.run([...argv, "-o", "table"]);

  it("reports get and auth status: upper-case headers in tables, the record unchanged in --json", async () => {
    const id = String(
      t.sandbox.state.invitations.find((i) => i.accountId === "acme" && i.status === "Complete")!
        .testInvitationId,
    );
    const report = await table(["reports", "get", id]);
    expect(report.code, report.stderr).toBe(0);
    for (const header of ["INVITATION", "CANDIDATE", "STATUS", "SCORE %", "PERFORMANCE", "SECTION"])
      expect(report.stdout).toContain(header);
    for (const raw of ["candidateName", "PerformanceCategory", "Status ", "scorePercentage", "sections"])
      expect(report.stdout).not.toContain(raw);
    const json = (await t.run(["reports", "get", id, "--json"])).json<Record<string, unknown>>();
    const served = await fetch(`${t.sandbox.url}/v3/reports/${id}`, {
      headers: { "x-api-key": t.env.ASSESS_API_KEY! },
    });
    expect(json).toEqual(await served.json());
    expect(Object.keys(json)).toEqual(expect.arrayContaining(["Status", "PerformanceCategory", "sections"]));

    const auth = await table(["auth", "status"]);
    expect(auth.code, auth.stderr).toBe(0);
    for (const header of ["PROFILE", "KEY", "BASE URL", "SKILLS BASE URL", "VALID"])
      expect(auth.stdout).toContain(header);
    expect(auth.stdout).not.toMatch(/keySource|baseUrl|skillsBaseUrl/);
    expect(Object.keys((await t.run(["auth", "status", "--json"])).json<object>())).toEqual([
      "profile",
      "key",
      "keySource",
      "baseUrl",
      "skillsBaseUrl",
      "valid",
    ]);
  });

  it("invite send shows a new invitation as Pending in a table, and in --json and TSV too", async () => {
    const send = (email: string, format: string[]) =>
      t.run(["invite", "send", "--test", "1001", "--email", email, "--name", "Pat Pending", ...format]);
    const shown = await send("pat.table@example.com", ["-o", "table"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/STATUS\s*│\s*Pending/);
    const json = (await send("pat.json@example.com", ["--json"])).json<Record<string, unknown>>();
    expect(json).toHaveProperty("status", "Pending");
    const tsv = (await send("pat.tsv@example.com", ["-o", "tsv"])).stdout.split("\n");
    expect(tsv[0]).toBe("INVITATION\tTEST URL\tSTATUS");
    expect(tsv[1]).toMatch(/\tPending$/);
  });

  it("links deactivate twice says 'already inactive' and sends nothing the second time; the same for activate", async () => {
    const writes = () => t.sandbox.requests.filter((q) => q.method !== "GET").length;
    const first = await t.run(["links", "deactivate", "3001", "--test", "1001"]);
    expect(first.stderr).toContain("Test link 3001 of test 1001 is now inactive");
    const before = writes();
    const again = await t.run(["links", "deactivate", "3001", "--test", "1001"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain("Test link 3001 of test 1001 is already inactive; nothing was sent.");
    expect(again.stderr).not.toContain("is now");
    expect(writes()).toBe(before);
    expect((await t.run(["links", "activate", "3001", "--test", "1001"])).stderr).toContain("is now active");
    const on = await t.run(["links", "activate", "3001", "--test", "1001"]);
    expect(on.stderr).toContain("is already active; nothing was sent.");
    expect(writes()).toBe(before + 1);
  });

  it("hints fill in what they know: the test of a missing link, the e-mail of a missing user; --limit in plain words", async () => {
    const link = await t.run(["links", "get", "99", "--test", "1001"]);
    expect(link.code).toBe(1);
    expect(link.stderr).toContain("Run `assess links list --test 1001` to see the test's links.");
    expect(link.stderr).not.toContain("<testId>");

    const user = await t.run(["users", "activate", "--email", "nobody.here@example.com"]);
    expect(user.code).toBe(1);
    expect(user.stderr).toContain("Check the e-mail");
    expect(user.stderr).not.toContain("Check the id");

    for (const argv of [
      ["links", "list", "--test", "1001", "--limit", "abc"],
      ["attempts", "list", "--from", "7d", "--to", "now", "--limit", "0"],
      ["tests", "list", "--limit", "1.5"],
    ]) {
      const r = await t.run(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr).toContain("--limit must be a positive whole number");
      expect(r.stderr).not.toContain("9007199254740991");
    }
  });

  it("assign-learning sends a resource or skill given twice once", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run([
      "employees",
      "assign-learning",
      "501",
      "--resource",
      "lr-104,lr-104",
      "--skill",
      "SQL",
      "--skill",
      "sql",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const sent = t.sandbox.requests.slice(before).find((q) => q.method === "POST");
    expect(sent?.body).toMatchObject({ learningResourceIds: ["lr-104"], skills: ["SQL"] });
  });
});

/**
 * A bulk run's summary never counts a row twice ("1 row: 1 refused", not "1 sent, 1 refused"), through main(argv)
 * against the sandbox in the scenario's folder (test/helpers/shell.ts); a terminal's prompt through a pseudo-terminal.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SANDBOX_KEYS, useScenarios } from "../helpers/cli.js";
import { runIn } from "../helpers/shell.js";
import { KEY, Terminal } from "../helpers/terminal.js";

const t = useScenarios();
const { scenario } = t;

const invited = (email: string) => t.sandbox.state.invitations.filter((i) => i.email === email).length;

describe("the summary of a bulk run", () => {
  it('the summary never counts a row twice: "1 row: 1 refused", not "1 sent, 1 refused"', async () => {
    const { cwd, env } = scenario();
    writeFileSync(join(cwd, "one.csv"), "email,name\nrefused.once@example.com,Refused Once\n");
    t.sandbox.faults.add({ method: "POST", path: "/v3/tests/*/invite/bulk", kind: "status", status: 400 });
    const r = await runIn(cwd, ["invite", "bulk", "one.csv", "--test", "1001"], { env });
    expect(r.stderr).toContain("one.csv: 1 row: 1 refused\n");
    expect(r.stderr).not.toMatch(/1 sent/);
    expect(r.json<{ rows: number; sent: number; failed: number }>()).toMatchObject({
      rows: 1,
      sent: 1,
      failed: 1,
    });
  });

  it("`invite send` keeps STATUS (Pending) in TSV and JSON", async () => {
    const { env } = scenario();
    const argv = ["invite", "send", "--test", "1001", "--name", "Status Kept"];
    const tsv = await t.run([...argv, "--email", "status.tsv@example.com"], { env });
    const [header, row] = tsv.stdout.trim().split("\n");
    expect(header).toBe("INVITATION\tTEST URL\tSTATUS");
    expect(row).toMatch(/^\d+\thttps?:\/\/\S+\tPending$/);
    const json = await t.run([...argv, "--email", "status.json@example.com", "--json"], { env });
    expect(json.json<{ status: string }>().status).toBe("Pending");
  });

  it("reruns with the same invalid rows write no -2 copy and never say ✓ Nothing to send", async () => {
    const { cwd, env } = scenario();
    const file = join(cwd, "round.csv");
    writeFileSync(
      file,
      "email,name\nround.valid@example.com,Valid\nnot-an-email,Bad One\nalso bad,Bad Two\n",
    );
    const argv = ["invite", "bulk", "round.csv", "--test", "1001", "--skip-invalid"];
    const first = await runIn(cwd, argv, { env });
    expect(first.code).toBe(0);
    const rejects = readFileSync(join(cwd, "round.rejects.csv"), "utf8");
    for (const _ of [1, 2]) {
      const again = await runIn(cwd, argv, { env });
      expect(again.code).toBe(0);
      expect(again.stderr).not.toContain("Nothing to send");
      expect(again.stderr).not.toContain("✓");
      expect(again.stderr).toContain(
        "warning: Nothing sent: earlier runs already got every valid row confirmed; 2 invalid rows still to fix (in round.rejects.csv), then run the same command again.",
      );
    }
    expect(
      readdirSync(cwd)
        .filter((f) => f !== ".config")
        .sort(),
    ).toEqual(["round.csv", "round.rejects.csv"]);
    expect(readFileSync(join(cwd, "round.rejects.csv"), "utf8")).toBe(rejects);
    // Other rejected rows are another file: the earlier one may be being fixed.
    writeFileSync(file, "email,name\nround.valid@example.com,Valid\nstill bad,Bad Three\n");
    const other = await runIn(cwd, argv, { env });
    expect(other.stderr).toContain("(in round.rejects-2.csv)");
    expect(readFileSync(join(cwd, "round.rejects-2.csv"), "utf8")).toContain("still bad");
    expect(invited("round.valid@example.com")).toBe(1);
  });

  it("an empty file suggests the header of its kind: employees for upsert, candidates for invite bulk", async () => {
    const { cwd, env } = scenario();
    writeFileSync(join(cwd, "empty.csv"), "");
    const upsert = await runIn(cwd, ["employees", "upsert", "empty.csv"], { env });
    expect(upsert.code).toBe(2);
    expect(upsert.stderr).toContain("empty.csv:1: the file is empty: nothing to send");
    expect(upsert.stderr).toContain("(for example: email,firstName,lastName,externalEmployeeId,department)");
    const invite = await runIn(cwd, ["invite", "bulk", "empty.csv", "--test", "1001"], { env });
    expect(invite.code).toBe(2);
    expect(invite.stderr).toContain("(for example: email,name)");
  });

  it("`auth login` echoes nothing for the key it reads, not a * per character", async () => {
    const { env } = scenario();
    const { ASSESS_API_KEY: _key, ...rest } = env;
    const term = Terminal.start(["auth", "login"], rest);
    try {
      await term.waitFor("API key");
      term.type(`${SANDBOX_KEYS.acme}${KEY.enter}`);
      expect(await term.exited).toBe(0);
      // What the prompt drew while the key was typed: no character of it, no mask (the stored key is
      // named redacted afterwards, `****1b3d`).
      const [prompt, after] = term.screen.split("✓ Key ");
      expect(after).toMatch(/^\*{4}\w{4} verified and stored/);
      expect(prompt).toContain("API key");
      expect(prompt).not.toContain("*");
      expect(prompt).not.toContain(SANDBOX_KEYS.acme.slice(0, 8));
    } finally {
      await term.close();
    }
  });

  it.each([
    ["invite", "send"],
    ["invite", "bulk"],
    ["invite", "reattempt"],
    ["links", "create"],
    ["links", "update"],
  ])(
    "`%s %s --help`: --timezone says where ids come from and which the sandbox knows",
    async (...command) => {
      const r = await t.run([...command, "--help"], { env: { COLUMNS: "200" } });
      expect(r.code).toBe(0);
      const help = r.stdout.replace(/\s+/g, " ");
      expect(help).toContain("--timezone <id>");
      expect(help).toContain(
        "an integer id of the service's List timezones operation (its path is not published",
      );
      expect(help).toContain("the sandbox takes any integer, its demo links use 1720");
    },
  );
});

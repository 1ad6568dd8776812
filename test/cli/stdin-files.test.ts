/**
 * `-` is standard input; a missing file says so. Through main(argv, io) against the sandbox, run in the
 * scenario's folder as a shell's current folder (a relative path, stdin.rejects.csv: test/helpers/shell.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useScenarios } from "../helpers/cli.js";
import { runIn } from "../helpers/shell.js";

const t = useScenarios();
const { scenario } = t;

const invited = (email: string) => t.sandbox.state.invitations.filter((i) => i.email === email).length;
describe("- is standard input; a missing file says so", () => {
  it("`invite bulk - --test 1001` reads CSV from stdin", async () => {
    const { cwd, env } = scenario();
    const r = await runIn(cwd, ["invite", "bulk", "-", "--test", "1001"], {
      env,
      stdin: "email,name\nstdin.one@example.com,Stdin One\nstdin.two@example.com,Stdin Two\n",
    });
    expect(r.stderr).not.toMatch(/ENOENT|error:/);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("stdin: 2 rows: 2 sent");
    expect([invited("stdin.one@example.com"), invited("stdin.two@example.com")]).toEqual([1, 1]);
  });

  it("`employees upsert -` reads a JSON array or CSV from stdin; invalid rows name stdin and go to stdin.rejects.*", async () => {
    const { cwd, env } = scenario();
    const json = await runIn(cwd, ["employees", "upsert", "-", "--json"], {
      env,
      stdin: JSON.stringify([{ email: "json.stdin@example.com", firstName: "Json", lastName: "Stdin" }]),
    });
    expect(json.code).toBe(0);
    expect(json.json<{ sent: number }>().sent).toBe(1);
    const csv = await runIn(cwd, ["employees", "upsert", "-", "--skip-invalid"], {
      env,
      stdin: "email,firstName,lastName\ncsv.stdin@example.com,Csv,Stdin\nnot-an-email,Bad,Row\n",
    });
    expect(csv.code).toBe(0);
    expect(csv.stderr).toMatch(/stdin:3 {2}not-an-email/);
    expect(readdirSync(cwd).filter((f) => f !== ".config")).toEqual(["stdin.rejects.csv"]);
    expect(readFileSync(join(cwd, "stdin.rejects.csv"), "utf8")).toContain("not-an-email,Bad,Row,");
  });

  it("`--file -` of the JSON-body commands reads stdin too (tests settings set, employees add-certificate)", async () => {
    const { cwd, env } = scenario();
    const got = await runIn(cwd, ["tests", "settings", "get", "1003", "--json"], { env });
    const settings = got.json<Record<string, unknown>>();
    const mark = t.sandbox.requests.length;
    const set = await runIn(cwd, ["tests", "settings", "set", "1003", "--file", "-"], {
      env,
      stdin: JSON.stringify({ ...settings, randomQuestions: 1 }),
    });
    expect(set.stderr).not.toMatch(/error:/);
    expect(set.code).toBe(0);
    const posted = t.sandbox.requests.slice(mark).find((r) => r.method === "POST");
    expect(posted?.body).toMatchObject({ randomQuestions: 1 });
    const cert = await runIn(cwd, ["employees", "add-certificate", "541", "--file", "-"], {
      env,
      stdin: JSON.stringify({ title: "Stdin Certificate", issuer: "Pipes Inc" }),
    });
    expect(cert.stderr).not.toMatch(/error:/);
    expect(cert.code).toBe(0);
    const missing = await runIn(cwd, ["tests", "settings", "set", "1003", "--file", "nope.json"], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("error: --file: nope.json does not exist");
  });

  it.each([
    ["invite bulk", ["invite", "bulk", "nope.csv", "--test", "1001"], "nope.csv"],
    ["employees upsert", ["employees", "upsert", "nope.json"], "nope.json"],
    ["employees upsert (CSV)", ["employees", "upsert", "nope.csv"], "nope.csv"],
  ])("%s of a file that does not exist: exit 2, said in words, nothing sent", async (_name, argv, file) => {
    const { cwd, env } = scenario();
    const mark = t.sandbox.requests.length;
    const r = await runIn(cwd, argv, { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: ${file} does not exist`);
    expect(r.stderr).toMatch(/hint: Check the file's name and folder .*, or give - to read standard input\./);
    expect(r.stderr).not.toContain("ENOENT");
    expect(t.sandbox.requests.slice(mark)).toEqual([]);
  });
});

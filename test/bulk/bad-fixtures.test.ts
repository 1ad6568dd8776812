/** Every file of fixtures/bad/, with the outcome its README table promises. */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useTempDir, useTestEnv } from "../helpers/cli.js";
import { ROOT } from "./helpers.js";

const BAD = join(ROOT, "fixtures", "bad");

interface Case {
  file: string;
  generated: boolean;
  exit: number;
  message: string;
}

/** The README's table: | `file` | what | exit | `message` | */
function cases(): Case[] {
  const out: Case[] = [];
  for (const line of readFileSync(join(BAD, "README.md"), "utf8").split("\n")) {
    const m = /^\| `([^`]+)`( \*\(generated[^|]*)? \|[^|]*\| (\d+) \| `(.*)` \|$/.exec(line);
    if (m) out.push({ file: m[1]!, generated: m[2] !== undefined, exit: Number(m[3]), message: m[4]! });
  }
  return out;
}

const env = useTestEnv();
const tmp = useTempDir();
beforeAll(async () => {
  // Generated here rather than committed: 10 MB each.
  writeFileSync(tmp.file("long-line.csv"), "x".repeat(10 * 1024 * 1024));
  writeFileSync(
    tmp.file("long-record.csv"),
    `email,name\nada@example.com,"${"y".repeat(10 * 1024 * 1024)}\n`,
  );
});

describe("fixtures/bad", () => {
  const table = cases();

  it("the README documents every file in the folder, and there are at least 20", () => {
    const files = readdirSync(BAD).filter((f) => f !== "README.md");
    expect(files.length).toBeGreaterThanOrEqual(20);
    expect(
      table
        .filter((c) => !c.generated)
        .map((c) => c.file)
        .sort(),
    ).toEqual(files.sort());
  });

  for (const c of table) {
    it(`${c.file} → exit ${c.exit}`, async () => {
      const path = c.generated ? tmp.file(c.file) : join(BAD, c.file);
      const argv = c.file.startsWith("employees-")
        ? ["employees", "upsert", path]
        : c.file === "bad-testid.csv"
          ? ["invite", "bulk", path]
          : ["invite", "bulk", path, "--test", "1001"];
      const mark = env.sandbox.requests.length;
      // A ledger of its own: the tolerable files share e-mails.
      const run = await env.run(argv, { env: { ASSESS_CONFIG_DIR: tmp.file(`config-${c.file}`) } });
      expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: c.exit });
      expect(run.stderr).toContain(c.message);
      if (c.exit === 2) {
        expect(run.stderr).toMatch(new RegExp(`${c.file.replace(".", "\\.")}:\\d+:`));
        expect(env.sandbox.requests.length - mark).toBe(0);
      }
    });
  }
});

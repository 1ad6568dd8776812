/**
 * CLI.md: "With `-o json` an error is also printed to stderr as one JSON object
 * `{"error":{"status":N,"messages":[...]}}`", whatever the error and wherever the output setting comes from:
 * the usage errors commander raises (an unknown option, a missing argument, an unknown command) and a profile
 * whose `output` is json.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();

/** The last line of stderr, the JSON error object. */
function jsonError(stderr: string): unknown {
  return JSON.parse(stderr.trim().split("\n").at(-1)!);
}

describe("errors as JSON", () => {
  it("a usage error found while parsing (unknown option, missing argument, unknown command) with --json or -o ndjson", async () => {
    const cases: Array<[string[], string]> = [
      [["tests", "list", "--bogus", "--json"], "unknown option '--bogus'"],
      [["--json", "tests", "get"], "missing required argument 'testId'"],
      [["-o", "ndjson", "nosuch"], "unknown command 'nosuch'"],
    ];
    for (const [argv, message] of cases) {
      const r = await t.run(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toContain(`error: ${message}`);
      expect(jsonError(r.stderr), argv.join(" ")).toEqual({ error: { status: null, messages: [message] } });
    }
  });

  it("no JSON object without a JSON output", async () => {
    const r = await t.run(["tests", "list", "--bogus"]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain("{");
  });

  it("the profile's output setting json makes errors JSON too, as it makes the data JSON", async () => {
    const configDir = mkdtempSync(join(tmpdir(), "assess-json-errors-"));
    try {
      const env = { ASSESS_CONFIG_DIR: configDir };
      expect((await t.run(["config", "set", "output", "json"], { env })).code).toBe(0);
      const r = await t.run(["tests", "get", "987654"], { env });
      expect(r.code).toBe(1);
      expect(jsonError(r.stderr)).toEqual({ error: { status: 404, messages: ["Test not found"] } });
    } finally {
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});

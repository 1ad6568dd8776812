/**
 * A --json error carries the sentence stderr shows, through the built CLI against the sandbox. And CLI.md's "With
 * `-o json` an error is also printed to stderr as one JSON object" holds for every error, through `main(argv)`:
 * the usage errors commander raises (unknown option, missing argument, unknown command) and any error under a
 * profile whose `output` is json.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runBin, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();

describe("a --json error carries the sentence stderr shows", () => {
  it("`links create --no-input --json` missing values: the JSON message is the whole sentence", async () => {
    const r = await runBin(["links", "create", "--test", "1001", "--no-input", "--json"], { env: t.env });
    expect(r.code).toBe(2);
    const sentence = /^error: (.*)$/m.exec(r.stderr)?.[1];
    expect(sentence).toMatch(/^Missing --name <name>, .*--timezone <id>$/);
    const json = JSON.parse(r.stderr.split("\n").find((line) => line.startsWith("{"))!) as {
      error: { messages: string[] };
    };
    expect(json.error.messages).toEqual([sentence]);
  });
});

/** The last line of stderr, the JSON error object. */
function jsonError(stderr: string): unknown {
  return JSON.parse(stderr.trim().split("\n").at(-1)!);
}

describe("every error is one JSON object on stderr with JSON output, wherever that output is chosen", () => {
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

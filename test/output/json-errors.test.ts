/**
 * A --json error carries the sentence stderr shows, through the built CLI against the sandbox.
 */
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

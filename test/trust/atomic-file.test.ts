/**
 * AtomicFile (src/files.ts), the writer of `reports pdf --out`, `tests settings pull --out` and the rejects file:
 * when a file appears at the target while it writes, the refusal says where what it wrote was left, and the
 * callers' discard() after the failed commit must leave it there.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CliError } from "../../src/errors.js";
import { AtomicFile } from "../../src/files.js";
import { useTempDir } from "../helpers/cli.js";

const tmp = useTempDir("assess-trust-atomic-file-");

describe("a file that appears at the target while AtomicFile writes", () => {
  it("is left as it is, and what was written stays where the error says, discard() or not", () => {
    const target = tmp.fresh("settings.json");
    const file = new AtomicFile(target, false);
    file.write("what assess wrote\n");
    writeFileSync(target, "theirs\n");
    let error: unknown;
    try {
      file.commit();
    } catch (caught) {
      error = caught;
      // What every caller does with a failed commit.
      file.discard();
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toBe(
      `${target} appeared while assess was writing it; it was left as it is`,
    );
    const kept = /What assess wrote is in (.+): move it where you want it\.$/.exec(
      (error as CliError).suggestion ?? "",
    )?.[1];
    expect(kept).toBeDefined();
    expect(readFileSync(target, "utf8")).toBe("theirs\n");
    expect(existsSync(kept!)).toBe(true);
    expect(readFileSync(kept!, "utf8")).toBe("what assess wrote\n");
  });
});

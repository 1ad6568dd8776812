/**
 * AtomicFile (src/files.ts), the writer of `reports pdf --out`, `tests settings pull --out` and the rejects file:
 * when a file appears at the target while it writes, the refusal says where what it wrote was left, and the
 * callers' discard() after the failed commit must leave it there.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { CliError } from "../../src/errors.js";
import { AtomicFile } from "../../src/files.js";
import { useTempDir } from "../helpers/cli.js";

/**
 * Every descriptor node:fs's closeSync is asked to close, in order. Counted rather than shown by a file opened on
 * the freed number: descriptors are the process's, and a test file in a worker thread shares them with others.
 */
const closed = vi.hoisted(() => [] as number[]);

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const closeSync = (fd: number) => {
    closed.push(fd);
    actual.closeSync(fd);
  };
  return { ...actual, default: { ...actual, closeSync }, closeSync };
});

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

describe("a commit that fails for another reason (the rename)", () => {
  it("closes its descriptor once (commit, then discard), and removes what was written", () => {
    const target = tmp.fresh("report.pdf");
    // A folder with something in it at the target: the rename of --force fails (EISDIR).
    mkdirSync(target);
    writeFileSync(`${target}/inside`, "");
    const file = new AtomicFile(target, true);
    file.write("what assess wrote\n");
    closed.length = 0;
    expect(() => file.commit()).toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    file.discard();
    // Closed once: a second close could close another file opened on the freed number in between.
    expect(closed.filter((fd) => fd === file.fd)).toEqual([file.fd]);
    expect(readdirSync(dirname(target)).filter((name) => name.startsWith(`.${basename(target)}.`))).toEqual(
      [],
    );
  });
});

/**
 * A closed pipe stops the writing, not the command: the built CLI with a reader that leaves early
 * (`attempts list | head -2`), against the sandbox.
 */
import { writeFileSync } from "node:fs";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { isClosed, quietWhenClosed } from "../../src/output/pipe.js";
import { startBin, useTempDir, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();
const tmp = useTempDir("assess-first-hour-");

/**
 * Runs the built CLI with stdout on a real pipe whose read side this process closes: at once
 * (`closeAfter: 0`, as `| true` does) or after that many lines (`| head -n`).
 */
function runPiped(args: string[], env: Record<string, string>, closeAfter: number) {
  const live = startBin(args, { env });
  const pipe = live.child.stdout;
  if (closeAfter === 0) pipe.destroy();
  else
    pipe.on("data", () => {
      if (live.stdout().split("\n").length - 1 >= closeAfter) pipe.destroy();
    });
  return live.exit;
}

function expectNoCrash(stderr: string): void {
  expect(stderr).not.toMatch(/EPIPE|Unhandled 'error'|^\s+at /m);
  expect(stderr).not.toContain("error:");
}

describe("a closed pipe stops the writing, not the command", () => {
  it("attempts list | head -2 and -o ndjson | head -1: no stack trace, exit 0", async () => {
    // Every window after the first answers late, so rows are still being written after the reader left.
    t.sandbox.faults.add({
      method: "POST",
      path: "/v3/candidates/testattempts",
      kind: "latency",
      delayMs: 300,
      skip: 1,
      times: Number.POSITIVE_INFINITY,
    });
    try {
      const tsv = await runPiped(["attempts", "list", "--from", "90d", "--to", "now"], t.env, 2);
      expectNoCrash(tsv.stderr);
      expect(tsv.code).toBe(0);
      expect(tsv.stdout.split("\n")[0]).toMatch(/^INVITATION\t/);
      const ndjson = await runPiped(
        ["attempts", "list", "--from", "90d", "--to", "now", "-o", "ndjson"],
        t.env,
        1,
      );
      expectNoCrash(ndjson.stderr);
      expect(ndjson.code).toBe(0);
      expect(JSON.parse(ndjson.stdout.split("\n")[0]!)).toHaveProperty("testInvitationId");
    } finally {
      t.sandbox.faults.clear();
    }
  });

  it("invite bulk --json with stdout closed: every chunk is sent and in the ledger, exit 0", async () => {
    const csv = tmp.file("big.csv");
    const rows = Array.from({ length: 2500 }, (_, i) => `pipe.${i}@example.com,Pipe ${i}`);
    writeFileSync(csv, `email,name\n${rows.join("\n")}\n`);
    const before = t.sandbox.requests.length;
    const run = await runPiped(["invite", "bulk", csv, "--test", "1002", "--json"], t.env, 0);
    expectNoCrash(run.stderr);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("Invited 2,500 candidates to test 1002");
    const bulkPosts = t.sandbox.requests
      .slice(before)
      .filter((r) => r.method === "POST" && r.path.endsWith("/invite/bulk"));
    expect(bulkPosts).toHaveLength(3);
    // The ledger recorded all three chunks: a rerun has every row already done and sends nothing.
    const again = await t.run(["invite", "bulk", csv, "--test", "1002", "--json"]);
    expect(again.code).toBe(0);
    expect(again.json()).toMatchObject({ rows: 2500, alreadyDone: 2500, sent: 0 });
  });
});

describe("the guard on stdout", () => {
  /** A stream guarded as stdout is, then failing one write with `code`. */
  function failedWith(code: string) {
    const stream = new Writable({ write: (_chunk, _encoding, done) => done() });
    quietWhenClosed(stream);
    const error = Object.assign(new Error(`write ${code}`), { code });
    return { stream, emit: () => stream.emit("error", error) };
  }

  it.each(["EPIPE", "ECONNRESET", "ERR_STREAM_DESTROYED"])(
    "%s (the reader left; a socket's reader with rows unread resets) closes it quietly",
    (code) => {
      const { stream, emit } = failedWith(code);
      expect(emit).not.toThrow();
      expect(isClosed(stream)).toBe(true);
    },
  );

  it("any other write error is not hidden", () => {
    const { stream, emit } = failedWith("ENOSPC");
    expect(emit).toThrow("write ENOSPC");
    expect(isClosed(stream)).toBe(false);
  });
});

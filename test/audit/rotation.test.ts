/**
 * The audit log's rotation between writers (src/config/audit.ts): of writers that find the log full at once,
 * one renames it; a writer whose file was renamed away since it opened it writes its line in the log as it is
 * now. Every line is kept once, and the full log becomes audit.log.1 whole. The size is the test's (small).
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildSync } from "esbuild";
import { describe, expect, it } from "vitest";
import { AUDIT_FILE, type AuditedWrite, AuditLog } from "../../src/config/audit.js";
import { stopWhenTestEnds, useTempDir } from "../helpers/cli.js";

const tmp = useTempDir("assess-audit-rotation-");

const entries = (dir: string, name: string) =>
  readFileSync(join(dir, name), "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { operation: string; actor: string });
const operations = (dir: string, name: string) => entries(dir, name).map((entry) => entry.operation);

describe("the audit log rotated by writers at once", () => {
  it("a line whose file was renamed away twice since it was opened is written in the log as it is now", () => {
    const dir = tmp.fresh();
    // At one byte: the log rotates before every line but the first.
    const log = new AuditLog(dir, { surface: "mcp", profile: "default", env: {} }, 1);
    const warnings: string[] = [];
    const open = (operation: string) =>
      log.open({ operation, method: "POST" } satisfies AuditedWrite, (line) => warnings.push(line));
    const a = open("a"); // a's request is in flight…
    open("b").done(); // …while b's, c's and d's are sent and answered
    open("c").done(); // audit.log (b's line) becomes audit.log.1
    const d = open("d"); // audit.log (c's) becomes audit.log.1, the file a opened (b's) is gone
    a.done();
    d.done();
    expect(warnings).toEqual([]);
    expect(operations(dir, `${AUDIT_FILE}.1`)).toEqual(["c"]);
    // Before: ["d"], a's line written into the removed file.
    expect(operations(dir, AUDIT_FILE)).toEqual(["a", "d"]);
  });

  it("two processes find the log full at once, 30 times: each line is kept once, the full log becomes audit.log.1 whole", async () => {
    const writer = tmp.file("writer.mjs");
    buildSync({
      entryPoints: [join(import.meta.dirname, "rotating-writer.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile: writer,
      logLevel: "error",
    });
    const rounds = 30;
    const maxBytes = 1000;
    const root = tmp.fresh("rounds");
    mkdirSync(root);
    const line = (n: number) =>
      JSON.stringify({
        time: "2026-01-01T00:00:00.000Z",
        surface: "cli",
        actor: "earlier",
        profile: "default",
        operation: `full${n}`,
        method: "POST",
        outcome: "ok",
      });
    const full = Array.from({ length: 10 }, (_, n) => `${line(n)}\n`).join("");
    expect(full.length).toBeGreaterThan(maxBytes);
    for (let round = 0; round < rounds; round++) {
      const dir = join(root, `round${round}`);
      mkdirSync(dir, { mode: 0o700 });
      writeFileSync(join(dir, AUDIT_FILE), full, { mode: 0o600 });
      writeFileSync(join(dir, `${AUDIT_FILE}.1`), `${line(-1)}\n`, { mode: 0o600 });
    }
    const run = (name: string, other: string) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        // Killed when the test ends: a writer whose other never comes spins for ever.
        const child = stopWhenTestEnds(
          spawn(process.execPath, [writer, root, name, other, String(rounds), String(maxBytes)], {
            stdio: ["ignore", "ignore", "pipe"],
          }),
        );
        let stderr = "";
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk;
        });
        child.on("exit", (code) => resolve({ code, stderr }));
      });
    const both = await Promise.all([run("left", "right"), run("right", "left")]);
    const wrong: string[] = [];
    for (let round = 0; round < rounds; round++) {
      const dir = join(root, `round${round}`);
      // The full log, whole, is the one previous file kept (not the new log renamed over it).
      if (readFileSync(join(dir, `${AUDIT_FILE}.1`), "utf8") !== full)
        wrong.push(`round ${round}: audit.log.1`);
      // Each writer's line, once.
      const kept = entries(dir, AUDIT_FILE)
        .map(({ operation, actor }) => `${operation} ${actor}`)
        .sort();
      if (JSON.stringify(kept) !== JSON.stringify([`round${round} left`, `round${round} right`]))
        wrong.push(`round ${round}: audit.log holds ${JSON.stringify(kept)}`);
    }
    // Before: writes refused (ENOENT on the second rename), and rounds whose audit.log.1 was the new log.
    expect({ both, wrong }).toEqual({
      both: [
        { code: 0, stderr: "" },
        { code: 0, stderr: "" },
      ],
      wrong: [],
    });
  }, 30_000);
});

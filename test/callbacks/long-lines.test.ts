/**
 * A line of 9 MiB without a newline, where `callbacks resend --file` (a file or stdin) and `callbacks reconcile
 * --log` read lines, through the built CLI: a usage error naming the file and the line (exit 2) once 8 MiB are
 * read, and nothing sent.
 */
import { writeFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { boundedLines } from "../../src/parse/lines.js";
import { runBin, useTempDir, useTestEnv } from "../helpers/cli.js";
import { startRecorder } from "./live.js";

const t = useTestEnv();
const tmp = useTempDir("assess-long-lines-");

/** A good first line, then 9 MiB of digits without a newline: what readline would hold whole. */
const NINE_MIB = Buffer.concat([Buffer.from("50123\n"), Buffer.alloc(9 * 1024 * 1024, "7")]);

async function run(argv: string[], stdin?: Buffer) {
  const before = t.sandbox.requests.length;
  const r = await runBin(argv, {
    env: { ...t.env, ASSESS_CONFIG_DIR: tmp.file(`config-${before}`) },
    stdin,
    peakMemory: true,
  });
  console.log(
    `${argv.slice(0, 2).join(" ")} ${stdin ? "(stdin)" : ""}: peak RSS ${r.peakMiB?.toFixed(0)} MiB`,
  );
  return { r, sent: t.sandbox.requests.length - before };
}

describe("a 9 MiB line", () => {
  it("callbacks resend --file: usage error naming the file and line 2, exit 2, nothing sent", async () => {
    const file = tmp.file("ids.txt");
    writeFileSync(file, NINE_MIB);
    const { r, sent } = await run(["callbacks", "resend", "--file", file]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`--file ${file}:2: a line longer than 8 MiB`);
    expect(r.stderr).toContain("one testInvitationId per line");
    // The line is not echoed back (readline's whole line ended up in the invalid-id message).
    expect(r.stderr.length).toBeLessThan(2000);
    expect(sent).toBe(0);
  });

  it("callbacks resend --file - (stdin): the same, naming stdin", async () => {
    const { r, sent } = await run(["callbacks", "resend", "--file", "-"], NINE_MIB);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("stdin:2: a line longer than 8 MiB");
    expect(r.stderr.length).toBeLessThan(2000);
    expect(sent).toBe(0);
  });

  it("callbacks reconcile --log (the same reader): usage error naming the log and line 2, nothing sent", async () => {
    const log = tmp.file("listen.ndjson");
    writeFileSync(
      log,
      Buffer.concat([Buffer.from('{"TestInvitationId":50123,"Status":"Complete"}\n'), NINE_MIB.subarray(6)]),
    );
    const { r, sent } = await run(["callbacks", "reconcile", "--from", "7d", "--log", log]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`--log ${log}:2: a line longer than 8 MiB`);
    expect(sent).toBe(0);
  });

  it("a line of exactly 8 MiB (a comment) is read; CRLF, a trailing comment and no final newline too; ids sent", async () => {
    const file = tmp.file("crlf.txt");
    const hooks = await startRecorder(200);
    const ids: number[] = [];
    try {
      for (const i of [1, 2, 3]) {
        const invite = await t.run([
          "invite",
          "send",
          "--test",
          "1001",
          "--email",
          `long${i}@example.com`,
          "--name",
          `Long ${i}`,
          "--callback-url",
          hooks.url,
          "--json",
        ]);
        expect(invite.code, invite.stderr).toBe(0);
        ids.push(invite.json<{ testInvitationId: number }>().testInvitationId);
        await t.sandbox.completeAttempt(ids.at(-1)!, "Complete");
      }
    } finally {
      await hooks.close();
    }
    const comment = `# ${"x".repeat(8 * 1024 * 1024 - 3)}\r\n`;
    writeFileSync(file, `${comment}${ids[0]}\r\n${ids[1]} # trailing\r\n${ids[2]}`);
    const { r, sent } = await run(["callbacks", "resend", "--file", file, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json<{ rows: number; sent: number }>()).toMatchObject({ rows: 3, sent: 3 });
    const calls = t.sandbox.requests.filter((q) => q.path === "/v3/callbacks/process");
    expect(calls.map((q) => (q.body as { testinvitationIds: number[] }).testinvitationIds)).toEqual([ids]);
    expect(sent).toBe(1);

    // One byte more is refused.
    writeFileSync(file, `# ${"x".repeat(8 * 1024 * 1024 - 2)}\r\n${ids[0]}\n`);
    const over = await run(["callbacks", "resend", "--file", file]);
    expect(over.r.code, over.r.stderr).toBe(2);
    expect(over.r.stderr).toContain(`--file ${file}:1: a line longer than 8 MiB`);
    expect(over.sent).toBe(0);
  });

  it("a lone CR ends a line too (old Mac files), as readline read them: each id sent, a bad one named by its line", async () => {
    const file = tmp.file("cr.txt");
    writeFileSync(file, "100314\r100334 # trailing\r\r100335");
    const { r, sent } = await run(["callbacks", "resend", "--file", file, "--dry-run"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("would send 3 ids in 1 request");
    expect(JSON.parse(r.stdout.slice(r.stdout.indexOf("{")))).toMatchObject({
      body: { testinvitationIds: [100314, 100334, 100335] },
    });
    expect(sent).toBe(0);

    writeFileSync(file, "100314\rabc\r100335\r");
    const bad = await run(["callbacks", "resend", "--file", file]);
    expect(bad.r.code, bad.r.stderr).toBe(2);
    expect(bad.r.stderr).toContain(`${file}:2: "abc" is not a testInvitationId`);
    expect(bad.sent).toBe(0);
  });
});

describe("the bounded line reader", () => {
  /** What readline makes of `text`: lines ended by LF, CRLF or a lone CR; the last one if the text does not end. */
  function reference(text: string): string[] {
    const lines = text.split(/\r\n|\r|\n/);
    if (lines.at(-1) === "") lines.pop();
    return lines;
  }

  async function* streamOf(chunks: Buffer[]) {
    yield* chunks;
  }

  it("gives readline's lines whatever the chunks: CRLF or CR split across them, empty lines, no final end", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: fc.constantFrom("a", "7", " ", "\r", "\n", "é"), maxLength: 60 }),
        fc.array(fc.nat(60), { maxLength: 30 }),
        async (text, cuts) => {
          const bytes = Buffer.from(text);
          const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks = [0, ...at].map((from, i) => bytes.subarray(from, at[i] ?? bytes.length));
          const lines: string[] = [];
          for await (const { text: line, line: n } of boundedLines(streamOf(chunks), "test", "")) {
            expect(n).toBe(lines.length + 1);
            lines.push(line);
          }
          expect(lines).toEqual(reference(text));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("with skipLonger, drops a longer line as it comes (whatever the chunks) and tells it in its place", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: fc.constantFrom("a", "b", "\n"), maxLength: 60 }),
        fc.array(fc.nat(60), { maxLength: 30 }),
        async (text, cuts) => {
          const bytes = Buffer.from(text);
          const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks = [0, ...at].map((from, i) => bytes.subarray(from, at[i] ?? bytes.length));
          const seen: string[] = [];
          for await (const { text: line, tooLong } of boundedLines(streamOf(chunks), "test", "", 4))
            seen.push(tooLong ? "<long>" : line);
          expect(seen).toEqual(reference(text).map((line) => (line.length > 4 ? "<long>" : line)));
        },
      ),
      { numRuns: 500 },
    );
  });
});

/**
 * `reports pdf` writes to a redirected or piped stdout: the built CLI (`node bin/assess.js`), a real stdout
 * being the point, against the sandbox.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { PassThrough, Readable, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli.js";
import type { Io } from "../../src/context.js";
import { BIN, SANDBOX_KEYS, sleep, stopWhenTestEnds, useTempDir, useTestEnv } from "../helpers/cli.js";
import { Terminal } from "../helpers/terminal.js";

const t = useTestEnv({ clearFaults: true });
const tmp = useTempDir("assess-first-hour-c-");

describe("reports pdf writes to a redirected or piped stdout", () => {
  /** A finished attempt of the sandbox, with a report and a PDF. */
  async function finishedAttempt(email: string): Promise<number> {
    const sent = await t.run([
      "invite",
      "send",
      "--test",
      "1003",
      "--email",
      email,
      "--name",
      "Pdf Reader",
      "--json",
    ]);
    const id = sent.json<{ testInvitationId: number }>().testInvitationId;
    await t.sandbox.completeAttempt(id, "Complete");
    return id;
  }

  const cliEnv = (extra: Record<string, string> = {}) => ({
    PATH: process.env.PATH ?? "",
    NO_COLOR: "1",
    ...t.env,
    ...extra,
  });

  /** Runs the built CLI in `cwd` with stdout on the given descriptor (a file); resolves with its exit and stderr. */
  function runToFd(
    args: string[],
    cwd: string,
    fd: number,
  ): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = stopWhenTestEnds(
        spawn(process.execPath, [BIN, ...args], { cwd, env: cliEnv(), stdio: ["ignore", fd, "pipe"] }),
      );
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stderr }));
    });
  }

  it("`reports pdf <id> > r.pdf`: the PDF is in r.pdf, nothing is written to the working folder", async () => {
    const id = await finishedAttempt("pdf.redirect@example.com");
    const cwd = mkdtempSync(tmp.file("cwd-"));
    const target = tmp.file(`r-${id}.pdf`);
    const fd = openSync(target, "w");
    let run: { code: number | null; stderr: string };
    try {
      run = await runToFd(["reports", "pdf", String(id)], cwd, fd);
    } finally {
      closeSync(fd);
    }
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const pdf = readFileSync(target);
    expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(pdf.subarray(-6).toString("latin1")).toBe("%%EOF\n");
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("on a terminal it still saves report-<id>.pdf (and writes no PDF bytes to the screen)", async () => {
    const id = await finishedAttempt("pdf.terminal@example.com");
    const cwd = mkdtempSync(tmp.file("cwd-tty-"));
    const term = Terminal.start(["reports", "pdf", String(id)], cliEnv({ TERM: "xterm-256color" }), 120, cwd);
    expect(await term.exited).toBe(0);
    expect(term.output).toContain(`report-${id}.pdf`);
    expect(term.output).not.toContain("%PDF");
    expect(
      readFileSync(join(cwd, `report-${id}.pdf`))
        .subarray(0, 5)
        .toString("latin1"),
    ).toBe("%PDF-");
  });

  it("--json without --out still saves the file and describes it on stdout", async () => {
    const id = await finishedAttempt("pdf.json@example.com");
    const cwd = mkdtempSync(tmp.file("cwd-json-"));
    const out = tmp.file(`json-${id}.out`);
    const fd = openSync(out, "w");
    try {
      expect((await runToFd(["reports", "pdf", String(id), "--json"], cwd, fd)).code).toBe(0);
    } finally {
      closeSync(fd);
    }
    expect(JSON.parse(readFileSync(out, "utf8"))).toMatchObject({
      testInvitationId: id,
      file: `report-${id}.pdf`,
    });
    expect(existsSync(join(cwd, `report-${id}.pdf`))).toBe(true);
  });

  /**
   * The built CLI with stdout on a pipe whose read side this process closes once `after` bytes came; resolves
   * with its exit code (null if it was still running `limitMs` later: it hung, and was killed) and stderr.
   */
  function runClosingPipe(
    args: string[],
    env: Record<string, string>,
    after: number,
    limitMs: number,
  ): Promise<{ code: number | null; stderr: string; received: Buffer; hung: boolean }> {
    return new Promise((resolve, reject) => {
      const child = stopWhenTestEnds(
        spawn(process.execPath, [BIN, ...args], {
          cwd: mkdtempSync(tmp.file("cwd-pipe-")),
          env: cliEnv(env),
          stdio: ["ignore", "pipe", "pipe"],
        }),
      );
      const chunks: Buffer[] = [];
      let got = 0;
      let stderr = "";
      let hung = false;
      const timer = setTimeout(() => {
        hung = true;
        child.kill("SIGKILL");
      }, limitMs);
      child.stdout.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        got += chunk.length;
        if (got >= after) child.stdout.destroy();
      });
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      child.on("error", reject);
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({ code, stderr, received: Buffer.concat(chunks), hung });
      });
    });
  }

  const expectQuiet = (stderr: string) => {
    expect(stderr).not.toMatch(/EPIPE|Unhandled|^\s+at |error:/m);
  };

  it("a pipe closed after the first bytes of the sandbox's PDF: the command ends, exit 0, no stack trace", async () => {
    const id = await finishedAttempt("pdf.pipe@example.com");
    const run = await runClosingPipe(["reports", "pdf", String(id)], {}, 1, 60_000);
    expect(run.hung).toBe(false);
    expect(run.code).toBe(0);
    expect(run.received.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expectQuiet(run.stderr);
  });

  describe("a PDF far larger than a pipe holds, its reader gone after the first bytes", () => {
    let server: Server;
    let url: string;
    /** Each PDF answer the server gave: the bytes it wrote, and whether it got to its end. */
    const served: Array<{ bytes: number; finished: boolean }> = [];
    const PIECES = 256; // of 64 KiB: 16 MiB after the sandbox's PDF
    beforeAll(async () => {
      // In front of the sandbox: its PDF, then 16 MiB more of PDF comment lines, a piece at a time.
      server = createServer((req, res) => {
        const answer = { bytes: 0, finished: false };
        served.push(answer);
        res.on("finish", () => {
          answer.finished = true;
        });
        const write = (bytes: Buffer) => {
          answer.bytes += bytes.length;
          return res.write(bytes);
        };
        void (async () => {
          const upstream = await fetch(`${t.sandbox.url}${req.url?.replace(/^\/api/, "") ?? ""}`, {
            headers: { "x-api-key": SANDBOX_KEYS.acme },
          });
          const head = Buffer.from(await upstream.arrayBuffer());
          res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "" });
          write(head);
          const filler = Buffer.from(`%${"x".repeat(1022)}\n`.repeat(64));
          for (let i = 0; i < PIECES && !res.destroyed; i++) {
            if (!write(filler)) await new Promise((r) => res.once("drain", r).once("close", r));
            await sleep(2);
          }
          res.end();
        })().catch(() => res.destroy());
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const address = server.address() as { port: number };
      url = `http://127.0.0.1:${address.port}/api`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it.each([
      ["without --out", []],
      ["--out -", ["--out", "-"]],
    ])("%s: the download stops, the command ends: exit 0, no stack trace", async (_, out) => {
      const id = await finishedAttempt("pdf.large@example.com");
      const run = await runClosingPipe(
        ["reports", "pdf", String(id), ...out, "--timeout", "60000"],
        { ASSESS_BASE_URL: url },
        4096,
        20_000,
      );
      expect(run.hung).toBe(false);
      expect(run.code).toBe(0);
      expect(run.received.subarray(0, 5).toString("latin1")).toBe("%PDF-");
      expectQuiet(run.stderr);
      // The CLI hung up: the server never got to the end of its 16 MiB.
      const answer = served.at(-1)!;
      expect(answer.finished).toBe(false);
      expect(answer.bytes).toBeLessThan(PIECES * 65_536);
    });

    it("in-process: a stdout destroyed mid-PDF, its 'close' long past, ends the command (no wait for 'drain')", async () => {
      const id = await finishedAttempt("pdf.destroyed@example.com");
      let got = 0;
      // A reader that takes the first piece and goes away without acknowledging it: 'drain' never comes.
      const stdout = new Writable({
        highWaterMark: 1024,
        write(chunk: Buffer, _encoding, _callback) {
          got += chunk.length;
          setTimeout(() => this.destroy(), 5);
        },
      });
      const stderr = new PassThrough();
      let errText = "";
      stderr.on("data", (chunk: Buffer) => {
        errText += chunk.toString();
      });
      const io = {
        stdout,
        stderr,
        stdin: Readable.from([]),
        env: { ...cliEnv({ ASSESS_BASE_URL: url }) },
      } as unknown as Io;
      const ran = main(["reports", "pdf", String(id), "--out", "-", "--timeout", "60000"], io, {});
      const limit = new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 60_000).unref());
      expect(await Promise.race([ran, limit])).toBe(0);
      expect(got).toBeGreaterThan(0);
      expectQuiet(errText);
      expect(served.at(-1)!.finished).toBe(false);
    });
  });
});

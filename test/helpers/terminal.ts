import { readSync } from "node:fs";
import { resolve } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { stripVTControlCharacters } from "node:util";
import { type IPty, spawn } from "@lydell/node-pty";
import { onTestFinished, TestRunner } from "vitest";
import { untilFileEnds } from "./stops.js";

export const KEY = {
  enter: "\r",
  down: "\u001b[B",
  up: "\u001b[A",
  backspace: "\u007f",
  ctrlC: "\u0003",
} as const;

/** A bound against a hang that a loaded machine never comes near (a screen shows in well under a second). */
const WAIT_LIMIT_MS = 120_000;
const CLOSE_LIMIT_MS = 10_000;

/**
 * Every terminal not yet seen to exit. node-pty reports a child's exit from a thread of its own: if the test
 * file's worker is torn down while a child still runs, that report aborts the whole test run (`Napi::Error`,
 * exit 134). So no file ends with one open: each is closed, and awaited, as the file ends (test/setup.ts: files
 * share this module in a worker, so a hook registered here as it is first imported would serve the first only).
 */
const open = new Set<Terminal>();
const closeAll = async () => {
  await Promise.all([...open].map((term) => term.close()));
};

/** What node-pty's UnixTerminal has beside IPty, which its typings leave out: the master's fd, its stream's events. */
type UnixPty = IPty & { readonly fd: number; on(event: "end", listener: () => void): void };
const ROOT = resolve(import.meta.dirname, "../..");

/**
 * The built CLI in a pseudo-terminal, driven like a person would: wait until a question shows on the
 * screen, type the answer. `screen` is everything drawn so far with the escape codes removed; `waitFor`
 * looks only at what was drawn since the previous match, so an old frame never answers a new question.
 */
export class Terminal {
  private raw = "";
  private seen = 0;
  readonly exited: Promise<number>;

  private constructor(private readonly pty: IPty) {
    // Bytes (the pty has no encoding): a character cut between two reads is decoded whole.
    const decoder = new StringDecoder("utf8");
    pty.onData((data: Buffer | string) => {
      this.raw += decoder.write(data);
    });
    // libuv ends the stream at the first short read once the child has hung up, though the kernel may still hold
    // kilobytes of its output (a test process busy when the child exited lost the end of long outputs). The rest
    // is read here, before the stream closes: node-pty reports the exit only after that.
    (pty as UnixPty).on("end", () => {
      this.raw += decoder.write(unread((pty as UnixPty).fd));
      this.raw += decoder.end();
    });
    this.exited = new Promise((done) =>
      pty.onExit(({ exitCode }) => {
        open.delete(this);
        done(exitCode);
      }),
    );
    open.add(this);
    untilFileEnds.add(closeAll);
    // A test that timed out leaves its terminal running: it is closed when that test ends (test/helpers/cli.ts
    // says why), or, started outside a test or in a concurrent one, with the file.
    if (!TestRunner.getCurrentTest()?.concurrent)
      try {
        onTestFinished(() => this.close());
      } catch {
        // not inside a test: closed as the file ends (closeAll)
      }
  }

  /** The built CLI with `args`, in a terminal of `cols` columns (120 unless given), run in `cwd`. */
  static start(args: string[], env: Record<string, string>, cols = 120, cwd = ROOT): Terminal {
    return Terminal.spawn(process.execPath, [resolve(ROOT, "bin/assess.js"), ...args], env, cols, cwd);
  }

  /** Any program in the terminal (a shell, say), run from the repository's root unless `cwd` is given. */
  static spawn(file: string, args: string[], env: Record<string, string>, cols = 120, cwd = ROOT): Terminal {
    const pty = spawn(file, args, {
      name: "xterm-256color",
      cols,
      rows: 40,
      cwd,
      encoding: null,
      env: { PATH: process.env.PATH ?? "", TERM: "xterm-256color", NO_COLOR: "1", ...env },
    });
    return new Terminal(pty);
  }

  get screen(): string {
    return stripVTControlCharacters(this.raw);
  }

  /** Everything written so far, escape codes included. */
  get output(): string {
    return this.raw;
  }

  /** Resolves once `text` appears on the screen after the previous match. */
  async waitFor(text: string | RegExp): Promise<string> {
    const deadline = Date.now() + WAIT_LIMIT_MS;
    for (;;) {
      const rest = this.screen.slice(this.seen);
      const match =
        typeof text === "string" ? { index: rest.indexOf(text), length: text.length } : rest.match(text);
      if (match && match.index !== undefined && match.index >= 0) {
        const length = typeof text === "string" ? text.length : (match as RegExpMatchArray)[0].length;
        this.seen += match.index + length;
        return rest.slice(match.index, match.index + length);
      }
      if (Date.now() > deadline) {
        throw new Error(
          `"${String(text)}" never showed on the screen; it shows:\n${this.screen.slice(-2000)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  type(keys: string): void {
    this.pty.write(keys);
  }

  /** Waits for the question, then types the answer and Enter. */
  async answer(question: string | RegExp, keys: string): Promise<void> {
    await this.waitFor(question);
    this.type(`${keys}${KEY.enter}`);
  }

  /** Ends the program (SIGHUP, then SIGKILL if it lingers) and resolves once its exit is reported. */
  async close(): Promise<void> {
    if (!open.has(this)) return;
    const signal = (name: string) => {
      try {
        this.pty.kill(name);
      } catch {
        // already gone
      }
    };
    signal("SIGHUP");
    const lingering = setTimeout(() => signal("SIGKILL"), CLOSE_LIMIT_MS);
    await this.exited;
    clearTimeout(lingering);
  }
}

/** What the terminal still holds for its reader: read until the kernel says there is no more (EIO once the child is gone). */
function unread(fd: number): Buffer {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(64 * 1024);
  for (;;) {
    let bytes = 0;
    try {
      bytes = readSync(fd, buffer);
    } catch {
      // EIO: all of it was read; EAGAIN: another process still holds the terminal open.
    }
    if (bytes === 0) return Buffer.concat(chunks);
    chunks.push(Buffer.from(buffer.subarray(0, bytes)));
  }
}

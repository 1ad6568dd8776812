/**
 * main() run in a folder as a shell's current folder (`runIn`), and a shell's `assess` that is main(argv, io) of the
 * test's process: the `assess` on a PATH this makes is a bash
 * script that hands its process over loopback, and main() runs here with that process's arguments, environment,
 * folder and standard streams. bash runs a command line as written (pipes, redirections, variables, `&`), and
 * each `assess` in it costs no Node start and no load of the bundle. main() runs in the script's folder
 * (process.chdir, which a worker thread may not do: files that use this run in forked processes,
 * vitest.config.ts). The process's streams are opened again through /proc: a pipe, a file or /dev/null; not the
 * socket pairs Node gives a child's stdio (give it files instead).
 */
import {
  chmodSync,
  constants,
  createReadStream,
  createWriteStream,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer, Socket } from "node:net";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import { main } from "../../src/cli.js";
import { checkWorker, type RunOptions, type RunResult, runCli } from "./cli.js";

export interface Relay {
  /** The folder holding the `assess` script, to put first on the shell's PATH. */
  bin: string;
  /** Stops the runs still going (as Ctrl-C would) and the server. */
  close(): Promise<void>;
}

/** Writes the `assess` script into `bin` (made if missing) and serves it. */
export async function startRelay(bin: string): Promise<Relay> {
  const ended = new AbortController();
  const server = createServer((socket) => {
    let received = Buffer.alloc(0);
    // The script gone (killed: `kill %1` of a background job) stops its run, as Ctrl-C would.
    const gone = new AbortController();
    socket.on("error", () => undefined);
    socket.on("close", () => gone.abort());
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const fields = received.toString("utf8").split("\0");
      const count = Number(fields[1]);
      // pid, count, the arguments, and the empty field after the last separator.
      if (fields.length < 3 || fields.length < count + 3) return;
      socket.removeAllListeners("data");
      const pid = Number(fields[0]);
      const signal = AbortSignal.any([ended.signal, gone.signal]);
      runFor(pid, fields.slice(2, 2 + count), signal).then(
        (code) => socket.end(`${code}\n`),
        (error: Error) => {
          try {
            writeFileSync(`/proc/${pid}/fd/6`, `relay: ${error.stack}\n`, { flag: "a" });
          } catch {
            // the script is gone
          }
          socket.end("70\n");
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  mkdirSync(bin, { recursive: true });
  // Copies of 0-2 first: bash moves those about while its builtins read and write the socket (fd 3).
  writeFileSync(
    join(bin, "assess"),
    [
      "#!/bin/bash",
      `exec 4<&0 5>&1 6>&2 3<>/dev/tcp/127.0.0.1/${port} || exit 70`,
      `printf '%s\\0' "$$" "$#" "$@" >&3`,
      "read -r -u 3 code || exit 70",
      'exit "$code"',
      "",
    ].join("\n"),
  );
  chmodSync(join(bin, "assess"), 0o755);
  return {
    bin,
    close: async () => {
      ended.abort();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The runs under way, and the folder of the test process, where the last of them leaves it. */
let running = 0;
const testFolder = process.cwd();

/** Changes to `folder` for a run (one folder for the runs at once), and back once the last run ends. */
async function inFolder<T>(folder: string, run: () => Promise<T>): Promise<T> {
  if (running > 0 && process.cwd() !== folder)
    throw new Error(`assess runs at once in ${process.cwd()} and ${folder}: the process has one folder`);
  process.chdir(folder);
  running++;
  try {
    return await run();
  } finally {
    if (--running === 0) process.chdir(testFolder);
  }
}

/** runCli (main(argv) in-process) with `cwd` as the current folder: relative paths, a rejects file beside them. */
export function runIn(cwd: string, argv: string[], options: RunOptions = {}): Promise<RunResult> {
  return inFolder(cwd, () => runCli(argv, options));
}

/** main(argv, io) for the script `pid`, as the built CLI would run in its place (with its check worker). */
async function runFor(pid: number, argv: string[], signal: AbortSignal): Promise<number> {
  const env: NodeJS.ProcessEnv = {};
  for (const entry of readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")) {
    const at = entry.indexOf("=");
    if (at > 0) env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  const stdin = reopen(pid, 4, "read") as Readable;
  const stdout = reopen(pid, 5, "write") as Writable;
  const stderr = reopen(pid, 6, "write") as Writable;
  // Runs at once (a background job and the lines after it) share the process's one folder.
  try {
    return await inFolder(readlinkSync(`/proc/${pid}/cwd`), () =>
      main(argv, { stdin, stdout, stderr, env }, { signal, checkWorker }),
    );
  } finally {
    stdin.destroy();
    await Promise.all([stdout, stderr].map((stream) => new Promise((done) => stream.end(done))));
  }
}

/**
 * The process's descriptor `fd`, opened again: a pipe without blocking (as a socket, the way Node opens a pipe
 * for process.stdin; a pipe whose writer is gone reads as its end), a file for appending (the shell opened it
 * for > or >>, or the test for the script's output: open it for appending too).
 */
function reopen(pid: number, fd: number, mode: "read" | "write"): Readable | Writable {
  const path = `/proc/${pid}/fd/${fd}`;
  if (statSync(path).isFIFO()) {
    const flags = (mode === "read" ? constants.O_RDONLY : constants.O_WRONLY) | constants.O_NONBLOCK;
    return new Socket({ fd: openSync(path, flags), readable: mode === "read", writable: mode === "write" });
  }
  return mode === "read" ? createReadStream(path) : createWriteStream(path, { flags: "a" });
}

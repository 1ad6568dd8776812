import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { main } from "../../src/cli.js";
import type { Io } from "../../src/context.js";
import { capture, sleep } from "../helpers/cli.js";

/** A long-running command (`callbacks listen`) run in-process: output readable while it runs, stopped like Ctrl-C. */
export interface LiveCli {
  stdout(): string;
  stderr(): string;
  /** Resolves with the text once `pattern` appears on stdout or stderr. */
  waitFor(stream: "stdout" | "stderr", pattern: RegExp): Promise<RegExpExecArray>;
  /** Aborts the signal (Ctrl-C) and returns the exit code. */
  stop(): Promise<number>;
  done: Promise<number>;
}

export function startLiveCli(
  argv: string[],
  env: Record<string, string>,
  options: { tty?: boolean } = {},
): LiveCli {
  const out = capture(options.tty);
  const err = capture(options.tty);
  const stdin = Readable.from([]) as Io["stdin"];
  const controller = new AbortController();
  const done = main(
    argv,
    { stdout: out.stream, stderr: err.stream, stdin, env: { PATH: process.env.PATH, NO_COLOR: "1", ...env } },
    { signal: controller.signal },
  );
  const texts = { stdout: out.text, stderr: err.text };
  return {
    stdout: out.text,
    stderr: err.text,
    done,
    async waitFor(stream, pattern) {
      for (;;) {
        const match = pattern.exec(texts[stream]());
        if (match) return match;
        const finished = await Promise.race([done.then(() => true), sleep(5).then(() => false)]);
        if (finished) {
          const last = pattern.exec(texts[stream]());
          if (last) return last;
          throw new Error(`command ended before ${pattern} appeared:\n${err.text()}`);
        }
      }
    },
    async stop() {
      controller.abort();
      return done;
    },
  };
}

/** A second local server, standing for the user's own endpoint behind `--forward-to`. */
export interface Recorder {
  url: string;
  received: Array<{ body: string; contentType: string | undefined; path: string }>;
  close(): Promise<void>;
}

export async function startRecorder(status = 202): Promise<Recorder> {
  const received: Recorder["received"] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({
        body: Buffer.concat(chunks).toString("utf8"),
        contentType: req.headers["content-type"],
        path: req.url ?? "",
      });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/assess`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Polls until `check` passes (the notification is delivered asynchronously); fails after a generous bound. */
export async function eventually<T>(check: () => T | undefined, what: string, boundMs = 120_000): Promise<T> {
  const until = Date.now() + boundMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

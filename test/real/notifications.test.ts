/**
 * The real test-completion notifications (fixtures/real/notifications/: PascalCase fields, `AttemptedOn` as
 * "09-Oct-2020 06:51 PM", `AttemptedOnUtc` without a zone, "In Progress" then "Complete", an extra field, the
 * legacy body whose keys end in a space) posted to `callbacks listen` of the built CLI, as the service posts
 * them: each is shown (id, status, attempt time in UTC), passed on byte for byte by --forward-to, written whole
 * to the NDJSON output, and a repeated one is marked as a duplicate.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT } from "../bulk/helpers.js";
import { eventually } from "../callbacks/live.js";
import { startBin } from "../helpers/cli.js";

const NOTIFICATIONS = join(ROOT, "fixtures", "real", "notifications");
const bodyOf = (name: string) => readFileSync(join(NOTIFICATIONS, name));
/** In the order the service sends them: the attempt starts, then ends; then the start again (a retry). */
const SEQUENCE = ["in-progress.json", "complete.json", "in-progress-baseimgurl.json", "v2-legacy.json"];

let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill("SIGKILL");
  child = undefined;
});

function listen(args: string[]): {
  output: () => string;
  errors: () => string;
  exited: Promise<number>;
} {
  const live = startBin(["callbacks", "listen", "--port", "0", ...args]);
  child = live.child;
  return { output: live.stdout, errors: live.stderr, exited: live.exit.then((r) => r.code) };
}

async function post(url: string, body: Buffer): Promise<number> {
  const res = await request(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  await res.body.dump();
  return res.statusCode;
}

describe("callbacks listen receives the real notifications", () => {
  it("shows each one (table), marks the repeat as a duplicate, and forwards the exact bytes", async () => {
    const forwarded: Buffer[] = [];
    const target = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        forwarded.push(Buffer.concat(chunks));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    const forwardTo = `http://127.0.0.1:${(target.address() as AddressInfo).port}/hook`;
    try {
      const cli = listen(["-o", "table", "--forward-to", forwardTo]);
      const url = await eventually(
        () => /Callback URL to use: (\S+)/.exec(cli.errors())?.[1],
        "the callback URL",
      );
      for (const name of SEQUENCE) expect(await post(url, bodyOf(name))).toBe(200);
      const lines = await eventually(() => {
        const done = cli.output().trim().split("\n");
        return done.length >= SEQUENCE.length ? done : undefined;
      }, "a line per notification");

      const [started, completed, repeated, legacy] = lines as [string, string, string, string];
      expect(started).toMatch(/3314697\s+In Progress\s+2020-10-09 13:21Z/);
      expect(started).not.toContain("duplicate");
      expect(completed).toMatch(/331469\s+Complete\s+2020-10-09 13:21Z/);
      expect(completed).toContain("6/115 Beginner");
      // The same attempt and status again (here with an extra field): a retry, shown as such.
      expect(repeated).toMatch(/3314697\s+In Progress.*duplicate/);
      // The legacy body: keys with a trailing space ("TotalScore ") still read; no status, no UTC time.
      expect(legacy).toMatch(/2256212\s+\?\s+2015-06-26T21:31:03\.19\s+testemail@imocha\.io\s+34\/50/);
      for (const line of lines) expect(line).toContain("→ 204");

      expect(forwarded.map(String)).toEqual(SEQUENCE.map((name) => bodyOf(name).toString()));
      child?.kill("SIGINT");
      expect(await cli.exited).toBe(130);
      expect(cli.errors()).toMatch(/4 notifications \(1 duplicate\)/);
    } finally {
      target.closeAllConnections();
      await new Promise<void>((resolve) => target.close(() => resolve()));
    }
  });

  it("writes each one whole to NDJSON: every field as sent, plus the id, status and UTC attempt time", async () => {
    const cli = listen(["--json"]);
    const url = await eventually(
      () => /Callback URL to use: (\S+)/.exec(cli.errors())?.[1],
      "the callback URL",
    );
    for (const name of SEQUENCE) expect(await post(url, bodyOf(name))).toBe(200);
    const events = await eventually(() => {
      const done = cli.output().trim().split("\n").filter(Boolean);
      return done.length >= SEQUENCE.length ? done.map((line) => JSON.parse(line)) : undefined;
    }, "an event per notification");
    expect(events.map((event) => event.notification)).toEqual(
      SEQUENCE.map((name) => JSON.parse(bodyOf(name).toString())),
    );
    expect(
      events.map(({ testInvitationId, status, attemptedAt, duplicate }) => [
        testInvitationId,
        status,
        attemptedAt,
        duplicate,
      ]),
    ).toEqual([
      [3314697, "In Progress", "2020-10-09T13:21:53Z", false],
      [331469, "Complete", "2020-10-09T13:21:53Z", false],
      [3314697, "In Progress", "2020-10-09T13:21:53Z", true],
      [2256212, null, null, false],
    ]);
  });
});

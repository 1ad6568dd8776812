/**
 * `callbacks listen` under hostile or heavy senders: loopback by default, a body streamed past the limit
 * (no Content-Length) → 413, headers trickled in (slow-loris) → cut off, 1,000 notifications at once → each
 * printed and logged exactly once, more distinct notifications than it remembers → the oldest forgotten, recent
 * duplicates still marked. Extends test/callbacks/listen.test.ts (413 with Content-Length, 400, 404).
 */
import { readFileSync } from "node:fs";
import net from "node:net";
import { networkInterfaces } from "node:os";
import { Readable } from "node:stream";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startListener } from "../../src/commands/callbacks/listener.js";
import { eventually, startLiveCli } from "../callbacks/live.js";
import { ndjson, tempDir } from "../helpers/cli.js";
import { printTable, record } from "./table.js";

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir("assess-trust-listen-");
});
afterAll(() => {
  printTable("Listener");
  tmp.cleanup();
});

/** A line the listener prints (and logs). */
interface Printed {
  testInvitationId: number;
  status: string;
  duplicate: boolean;
  answered: number;
}

/** This machine's first address that is not loopback, if it has one. */
function outsideAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  }
  return undefined;
}

function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("callbacks listen", () => {
  it("binds 127.0.0.1 by default: reachable on loopback, not on the machine's other addresses", async () => {
    const cli = startLiveCli(["callbacks", "listen", "--port", "0"], {});
    try {
      const [, origin, port] = await cli.waitFor("stderr", /Listening .* on (http:\/\/127\.0\.0\.1:(\d+))/);
      expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:/);
      expect(await connects("127.0.0.1", Number(port))).toBe(true);
      const outside = outsideAddress();
      if (outside) expect(await connects(outside, Number(port))).toBe(false);
      expect(cli.stderr()).not.toContain("reachable from the network");
      record({
        input: "listen without --host",
        outcome: `bound 127.0.0.1 only${outside ? ` (${outside} refused)` : ""}`,
        lost: 0,
        duplicated: 0,
      });
    } finally {
      expect(await cli.stop()).toBe(0);
    }
  });

  it("a body streamed past 1 MiB without Content-Length → 413, logged; the listener keeps serving", async () => {
    const log = tmp.file("oversize.ndjson");
    const cli = startLiveCli(["callbacks", "listen", "--port", "0", "--log", log], {});
    try {
      const [, url] = await cli.waitFor("stderr", /Callback URL to use: (\S+)/);
      // A stream has no length known up front: undici sends it chunked, without Content-Length.
      const chunks = Readable.from(Array.from({ length: 40 }, () => Buffer.alloc(64 * 1024, "a")));
      const big = await request(url!, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: chunks,
      });
      await big.body.dump();
      expect(big.statusCode).toBe(413);
      const ok = await request(url!, {
        method: "POST",
        body: JSON.stringify({ TestInvitationId: 5, Status: "Complete" }),
      });
      await ok.body.dump();
      expect(ok.statusCode).toBe(200);
      await eventually(() => ndjson<Printed>(cli.stdout())[0], "the good notification");
      await eventually(
        () => (readFileSync(log, "utf8").trim().split("\n").length === 2 ? true : undefined),
        "2 log lines",
      );
      expect(ndjson<Printed>(readFileSync(log, "utf8")).map((l) => l.answered)).toEqual([413, 200]);
      record({
        input: "2.5 MiB chunked body",
        outcome: "413, logged, next notification 200",
        lost: 0,
        duplicated: 0,
      });
    } finally {
      await cli.stop();
    }
  });

  it("slow-loris: headers trickled in are cut off (408, socket closed) while others are served", async () => {
    const events: unknown[] = [];
    const listener = await startListener({
      host: "127.0.0.1",
      port: 0,
      headersTimeoutMs: 300,
      onEvent: (e) => {
        events.push(e);
      },
    });
    try {
      const { port } = new URL(listener.origin);
      const socket = net.connect(Number(port), "127.0.0.1");
      let answer = "";
      socket.on("data", (d: Buffer) => {
        answer += d.toString();
      });
      const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
      // A drip written as the listener closes the socket may be answered with a reset: closed all the same.
      socket.on("error", () => {});
      socket.write("POST / HTTP/1.1\r\nHost: x\r\n");
      const drip = setInterval(() => socket.writable && socket.write("X-Drip: 1\r\n"), 100);
      const ok = await request(listener.callbackUrl, {
        method: "POST",
        body: JSON.stringify({ TestInvitationId: 6, Status: "Complete" }),
      });
      await ok.body.dump();
      expect(ok.statusCode).toBe(200);
      // A bound, not a timing assertion: without connectionsCheckingInterval node would wait ~30 s.
      await Promise.race([
        closed,
        new Promise((_, reject) => setTimeout(() => reject(new Error("still open")), 25_000)),
      ]);
      clearInterval(drip);
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      record({
        input: "slow-loris headers (1 line / 100 ms)",
        outcome: "408 and closed; other senders served",
        lost: 0,
        duplicated: 0,
      });
    } finally {
      await listener.close();
    }
    expect(events).toHaveLength(1);
  });

  it("1,000 notifications posted concurrently: all answered 200, each printed and logged exactly once", async () => {
    const log = tmp.file("flood.ndjson");
    const cli = startLiveCli(["callbacks", "listen", "--port", "0", "--log", log], {});
    const agent = new Agent({ connections: 1000 });
    try {
      const [, url] = await cli.waitFor("stderr", /Callback URL to use: (\S+)/);
      const N = 1000;
      const statuses = await Promise.all(
        Array.from({ length: N }, async (_, i) => {
          const res = await request(url!, {
            method: "POST",
            dispatcher: agent,
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              TestInvitationId: 700_000 + i,
              Status: "Complete",
              CandidateEmailId: `f${i}@example.com`,
            }),
          });
          await res.body.dump();
          return res.statusCode;
        }),
      );
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      const lines = await eventually(() => {
        const parsed = ndjson<Printed>(cli.stdout());
        return parsed.length >= N ? parsed : undefined;
      }, "1,000 lines");
      expect(await cli.stop()).toBe(0);
      const printed = ndjson<Printed>(cli.stdout());
      const logged = ndjson<Printed>(readFileSync(log, "utf8"));
      for (const list of [printed, logged]) {
        expect(list).toHaveLength(N);
        expect(new Set(list.map((l) => l.testInvitationId)).size).toBe(N);
        expect(list.every((l) => !l.duplicate && l.status === "Complete")).toBe(true);
      }
      expect(lines.length).toBe(N);
      expect(cli.stderr()).toContain(`Stopped: ${N} notifications (0 duplicate), 0 rejected requests.`);
      record({
        input: "1,000 notifications posted at once",
        outcome: "1,000 × 200; 1,000 lines on stdout and in --log, each id once",
        lost: 0,
        duplicated: 0,
      });
    } finally {
      await cli.stop();
      await agent.close();
    }
  });

  it("remembers only the last `remember` (id, Status) pairs: the oldest are forgotten, recent duplicates still marked", async () => {
    const REMEMBER = 100;
    const events: Array<{ testInvitationId: number | null; status: string | null; duplicate: boolean }> = [];
    const listener = await startListener({
      host: "127.0.0.1",
      port: 0,
      remember: REMEMBER,
      onEvent: (e) => {
        events.push(e);
      },
    });
    const agent = new Agent({ connections: 1 });
    /** Posts one notification at a time and returns whether the listener marked it a duplicate. */
    const send = async (id: number, status = "Complete") => {
      const before = events.length;
      const res = await request(listener.callbackUrl, {
        method: "POST",
        dispatcher: agent,
        body: JSON.stringify({ TestInvitationId: id, Status: status }),
      });
      await res.body.dump();
      expect(res.statusCode).toBe(200);
      await eventually(() => events.length > before || undefined, `the event of ${id}`);
      const event = events.at(-1)!;
      expect([event.testInvitationId, event.status]).toEqual([id, status]);
      return event.duplicate;
    };
    try {
      const N = 1000;
      for (let id = 1; id <= N; id++) expect(await send(id)).toBe(false);
      // Another Status of a remembered id is another pair.
      expect(await send(N, "In Progress")).toBe(false);
      // The 100 remembered now: 902…1000 Complete and (1000, In Progress). Asking about each makes it the most
      // recent without changing which are remembered.
      for (let id = N - REMEMBER + 2; id <= N; id++) expect(await send(id)).toBe(true);
      expect(await send(N, "In Progress")).toBe(true);
      // One before them, and the very first, were forgotten: each comes back as new and pushes the oldest out.
      expect(await send(N - REMEMBER + 1)).toBe(false);
      expect(await send(1)).toBe(false);
      // The oldest were 902 and 903 (asked about first): forgotten too, while a recent one is still a duplicate.
      expect(await send(N)).toBe(true);
      expect(await send(N - REMEMBER + 2)).toBe(false);
      expect(await send(1)).toBe(true);
      record({
        input: `${N} distinct notifications, remember ${REMEMBER}`,
        outcome: `the last ${REMEMBER} pairs marked as duplicates, older ones forgotten`,
        lost: 0,
        duplicated: 0,
      });
    } finally {
      await listener.close();
      await agent.close();
    }
  });
});

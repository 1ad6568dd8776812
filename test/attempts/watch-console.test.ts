/**
 * The delivery console of `attempts watch`, in-process against the sandbox with receivers on loopback: dead
 * letters replayed once, two signing secrets (a rotation) verified by the test's own Standard Webhooks code, and
 * a destination answering 410 Gone stopped.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { appendFileSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadWatchState } from "../../src/commands/attempts/watch-state.js";
import { ndjson } from "../helpers/cli.js";
import { expectNoStack, type Receiver, startReceiver, useWatchEnv } from "./watch-helpers.js";

const { run, finishedAttempt: finished, stateFile, deadLetterFile } = useWatchEnv("assess-console-");
const deadLetters = () => ndjson(readFileSync(deadLetterFile(), "utf8"));
const posted = (receiver: Receiver) =>
  receiver.requests.map((r) => JSON.parse(r.body.toString()).testInvitationId as number);

describe("attempts watch: a destination answering 410 Gone", () => {
  it("is stopped: its pending deliveries are dead-lettered at once, warned once, and later ones never tried, also after a restart", async () => {
    const receiver = await startReceiver(() => 410);
    try {
      const a = await finished("gone.a@example.com");
      const b = await finished("gone.b@example.com");
      const args = ["attempts", "watch", "--once", "--forward", receiver.url];
      const first = await run(args);
      expect(first.code, first.stderr).toBe(1);
      expectNoStack(first.stderr);
      // One try reached it: the 410 stopped the destination, the other attempt was not tried.
      expect(receiver.requests).toHaveLength(1);
      expect(first.stderr.match(/answered 410 Gone/g)).toHaveLength(1);
      expect(first.stderr).toContain("2 deliveries written to");
      expect(first.stderr).not.toContain("pending");
      const dead = deadLetters();
      expect(dead.map((letter) => letter.testInvitationId).sort()).toEqual([a, b].sort());
      for (const letter of dead)
        expect(letter.error).toMatch(/^HTTP 410 Gone at .*: the destination is stopped$/);
      expect(loadWatchState(stateFile())!.pending).toEqual([]);

      // A restart: the stop is in the state, so the next attempt goes to the dead letters untried.
      const c = await finished("gone.c@example.com");
      const second = await run(args);
      expect(second.code, second.stderr).toBe(1);
      expect(second.stderr.match(/answered 410 Gone/g)).toHaveLength(1);
      expect(receiver.requests).toHaveLength(1);
      expect(deadLetters().map((letter) => letter.testInvitationId)).toContain(c);
    } finally {
      await receiver.close();
    }
  });
});

describe("attempts watch --replay-dead-letters", () => {
  it("puts each dead letter back once: a rerun replays nothing, one that dies again is written once more and replayed once", async () => {
    let answer = 410;
    const receiver = await startReceiver(() => answer);
    try {
      const a = await finished("replay.a@example.com");
      const b = await finished("replay.b@example.com");
      expect((await run(["attempts", "watch", "--once", "--forward", receiver.url])).code).toBe(1);
      expect(deadLetters()).toHaveLength(2);

      answer = 204;
      receiver.requests.length = 0;
      const replay = ["attempts", "watch", "--replay-dead-letters", "--forward", receiver.url, "--json"];
      const first = await run(replay);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toContain("Replayed 2 dead letters: 2 delivered, 0 pending");
      expect(first.json()).toMatchObject({ replayed: 2, delivered: 2, pending: 0, deadLettered: 0 });
      expect(posted(receiver).sort()).toEqual([a, b].sort());

      // A rerun: both are marked replayed in the state; nothing is sent again.
      const again = await run(replay);
      expect(again.code, again.stderr).toBe(0);
      expect(again.json()).toMatchObject({ replayed: 0, alreadyReplayed: 2, delivered: 0 });
      expect(receiver.requests).toHaveLength(2);

      // A third attempt dies (410 again); replayed while the receiver is still gone, it is dead-lettered once more.
      answer = 410;
      const c = await finished("replay.c@example.com");
      expect((await run(["attempts", "watch", "--once", "--forward", receiver.url])).code).toBe(1);
      const diesAgain = await run(replay);
      expect(diesAgain.code, diesAgain.stderr).toBe(1);
      expect(diesAgain.json()).toMatchObject({ replayed: 1, delivered: 0, deadLettered: 1 });
      expect(deadLetters().filter((letter) => letter.testInvitationId === c)).toHaveLength(2);

      // Its new letter is replayed once; its first one, and a and b's, are not.
      answer = 204;
      receiver.requests.length = 0;
      const last = await run(replay);
      expect(last.code, last.stderr).toBe(0);
      expect(last.json()).toMatchObject({ replayed: 1, alreadyReplayed: 3, delivered: 1 });
      expect(posted(receiver)).toEqual([c]);
      const quiet = await run(replay);
      expect(quiet.json()).toMatchObject({ replayed: 0, alreadyReplayed: 4 });
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it("--since leaves older letters alone (a later replay without it takes them); without --forward or --exec it is a usage error", async () => {
    const receiver = await startReceiver(() => 204);
    try {
      expect((await run(["attempts", "watch", "--once", "--forward", receiver.url])).code).toBe(0);
      const attempt = { testInvitationId: 777001, testId: 1001, email: "old@example.com" };
      appendFileSync(
        deadLetterFile(),
        `${JSON.stringify({ testInvitationId: 777001, givenUpAt: "2026-01-02T03:04:05.000Z", since: "2026-01-01T00:00:00Z", tries: 3, error: "HTTP 503", destination: "--forward to x", attempt })}\n`,
      );
      const replay = ["attempts", "watch", "--replay-dead-letters", "--forward", receiver.url, "--json"];
      const recent = await run([...replay, "--since", "2d"]);
      expect(recent.code, recent.stderr).toBe(0);
      expect(recent.json()).toMatchObject({ replayed: 0, beforeSince: 1 });
      expect(recent.stderr).toContain("left alone: 1 dead letter given up before --since");
      expect(receiver.requests).toHaveLength(0);

      const all = await run([...replay, "--since", "2025-12-31"]);
      expect(all.json()).toMatchObject({ replayed: 1, delivered: 1, beforeSince: 0 });
      expect(posted(receiver)).toEqual([777001]);

      const alone = await run(["attempts", "watch", "--replay-dead-letters"]);
      expect(alone.code).toBe(2);
      expect(alone.stderr).toContain("--replay-dead-letters sends the dead letters to --forward or --exec");
    } finally {
      await receiver.close();
    }
  });
});

describe("attempts watch: two signing secrets (a rotation)", () => {
  it("every forward carries one v1 signature per secret, each verified on its own by the test's implementation", async () => {
    const oldSecret = `whsec_${randomBytes(32).toString("base64")}`;
    const newSecret = `whsec_${randomBytes(24).toString("base64")}`;
    const receiver = await startReceiver(() => 204);
    try {
      await finished("rotate.a@example.com");
      const args = ["attempts", "watch", "--once", "--forward", receiver.url];
      const flags = await run([...args, "--signing-secret", oldSecret, "--signing-secret", newSecret]);
      expect(flags.code, flags.stderr).toBe(0);
      await finished("rotate.b@example.com");
      // The environment's form: several secrets, space-separated.
      const fromEnv = await run(args, { ASSESS_WEBHOOK_SECRET: `${oldSecret} ${newSecret}` });
      expect(fromEnv.code, fromEnv.stderr).toBe(0);
      for (const output of [flags, fromEnv]) expect(output.stderr).not.toContain(oldSecret.slice(6, 30));

      expect(receiver.requests).toHaveLength(2);
      for (const request of receiver.requests) {
        const signatures = String(request.headers["webhook-signature"]).split(" ");
        expect(signatures).toHaveLength(2);
        expect(signatures.every((s) => s.startsWith("v1,"))).toBe(true);
        expect(verify(oldSecret, request.headers, request.body)).toBe(true);
        expect(verify(newSecret, request.headers, request.body)).toBe(true);
        const other = `whsec_${randomBytes(32).toString("base64")}`;
        expect(verify(other, request.headers, request.body)).toBe(false);
      }
    } finally {
      await receiver.close();
    }
  });
});

/**
 * Standard Webhooks verification, from the specification (not the CLI's code): HMAC-SHA256 of
 * `id.timestamp.body` keyed with the base64 after `whsec_`; any of the space-separated `v1,` signatures.
 */
function verify(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
): boolean {
  const id = String(headers["webhook-id"]);
  const timestamp = String(headers["webhook-timestamp"]);
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const expected = createHmac("sha256", key)
    .update(`${id}.${timestamp}.${body.toString("utf8")}`)
    .digest();
  return String(headers["webhook-signature"])
    .split(" ")
    .some((part) => {
      const [version, signature] = part.split(",");
      const given = Buffer.from(signature ?? "", "base64");
      return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

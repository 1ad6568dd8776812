/**
 * `attempts watch` delivers at least once. In-process (`main`) on the sandbox, with real receivers on loopback
 * (through the built CLI where processes are the subject: two of them over one lock, Ctrl-C, a terminal): a receiver down then up, a dead-letter after
 * --give-up-after, an attempt that cannot be delivered at all, a trickling receiver, Slack's message shape, a
 * Standard Webhooks signature checked by the test's own implementation, two watches over a stale lock, a state
 * polled up to long ago, the restart message and the idle line on a terminal.
 */
import { spawnSync } from "node:child_process";
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadWatchState } from "../../src/commands/attempts/watch-state.js";
import { ndjson, sleep } from "../helpers/cli.js";
import { Terminal } from "../helpers/terminal.js";
import { expectNoStack, freePort, startReceiver, useWatchEnv } from "./watch-helpers.js";

const {
  t,
  tmp,
  env,
  run,
  start,
  runBuilt,
  finishedAttempt,
  listingCalls,
  watchFolder,
  stateFile,
  journalFile,
  deadLetterFile,
} = useWatchEnv("assess-deliver-");
// The snapshot with the journal's changes applied, as the next run reads it.
const state = () => loadWatchState(stateFile())!;
/** A state edited by hand (or restored from a backup): the snapshot, without the journal of later changes. */
const writeState = (value: unknown) => {
  writeFileSync(stateFile(), JSON.stringify(value));
  rmSync(journalFile(), { force: true });
};

describe("attempts watch: at-least-once delivery", () => {
  it("a receiver down then up: the attempt stays pending (exit 1), and the next run delivers it, once", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hooks/assess`;
    const id = await finishedAttempt("down.up@example.com");
    const down = await run(["attempts", "watch", "--once", "--forward", url]);
    expect(down.code, down.stderr).toBe(1);
    expect(down.stderr).toContain(`--forward to ${url} of attempt ${id} failed (ECONNREFUSED); pending`);
    expect(down.stderr).toMatch(
      new RegExp(`1 delivery is still pending .*attempt ${id} \\(ECONNREFUSED, 1 try\\)`),
    );
    expect(ndjson(down.stdout).map((a) => a.testInvitationId)).toEqual([id]);
    expect(state().pending).toEqual([expect.objectContaining({ tries: 1, lastError: "ECONNREFUSED" })]);
    expect(statSync(stateFile()).mode & 0o777).toBe(0o600);

    const receiver = await startReceiver(() => 200, port);
    try {
      const up = await run(["attempts", "watch", "--once", "--forward", url]);
      expect(up.code, up.stderr).toBe(0);
      // Shown by the first run, delivered by this one: stdout has nothing new.
      expect(up.stdout).toBe("");
      expect(receiver.requests.map((r) => JSON.parse(r.body.toString()).testInvitationId)).toEqual([id]);
      expect(state().pending).toEqual([]);
      const again = await run(["attempts", "watch", "--once", "--forward", url]);
      expect(again.code, again.stderr).toBe(0);
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it("a delivery failing past --give-up-after goes to the dead-letter file (0600), with a warning naming it", async () => {
    // A refusal is not tried again within a run (no quick tries): the test needs no long waits.
    const receiver = await startReceiver(() => 400);
    try {
      const id = await finishedAttempt("dead.letter@example.com");
      const watch = ["attempts", "watch", "--once", "--forward", receiver.url, "--give-up-after"];
      // The first run cannot give up however slow the machine; the second is past 1s whatever it does.
      const first = await run([...watch, "1h"]);
      expect(first.code, first.stderr).toBe(1);
      expect(first.stderr).toContain(`of attempt ${id} failed (HTTP 400); pending`);
      await sleep(1100);
      const args = [...watch, "1s"];
      const second = await run(args);
      expect(second.code, second.stderr).toBe(1);
      const file = deadLetterFile();
      expect(second.stderr).toContain(`1 delivery was given up: see ${file}`);
      expect(second.stderr).toMatch(/HTTP 400 \(given up after 2 tries over \d+s\); given up, written to /);
      const [dead, ...more] = ndjson(readFileSync(file, "utf8"));
      expect(more).toEqual([]);
      expect(dead).toMatchObject({
        testInvitationId: id,
        tries: 2,
        destination: `--forward to ${receiver.url}`,
        attempt: { testInvitationId: id, email: "dead.letter@example.com" },
      });
      expect(dead!.error).toMatch(/^HTTP 400/);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      // Given up: the next run neither tries it nor fails for it.
      const tries = receiver.requests.length;
      const third = await run(args);
      expect(third.code, third.stderr).toBe(0);
      expect(receiver.requests).toHaveLength(tries);
    } finally {
      await receiver.close();
    }
  });

  it("an attempt whose delivery cannot even start is dead-lettered with its reason; the others are delivered", async () => {
    const good = await finishedAttempt("good@example.com");
    const odd = { testInvitationId: 9_000_001, testId: 1.5, name: "Odd", email: "odd@example.com" };
    const listing = t.sandbox.requests.length;
    expect(listing).toBeGreaterThan(0);
    t.sandbox.faults.add({
      method: "POST",
      path: "/v3/candidates/testattempts",
      kind: "status",
      status: 200,
      body: JSON.stringify({
        result: { testAttempts: [odd, { testInvitationId: good, testId: 1001, email: "good@example.com" }] },
        errors: null,
      }),
      times: 1,
    });
    const file = tmp.file("delivered.ndjson");
    const r = await run(["attempts", "watch", "--once", "--exec", `cat >> '${file}'`]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      "--exec of attempt 9000001: ASSESS_TEST_ID cannot carry 1.5; given up, written to",
    );
    expectNoStack(r.stderr);
    expect(ndjson(readFileSync(file, "utf8")).map((a) => a.testInvitationId)).toEqual([good]);
    const dead = ndjson(readFileSync(deadLetterFile(), "utf8"));
    expect(dead).toEqual([expect.objectContaining({ testInvitationId: 9_000_001, tries: 1 })]);
  });

  it("a receiver that trickles its answer fails each try at the deadline: the run ends, the attempt pending", async () => {
    const receiver = await startReceiver((_request, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      const timer = setInterval(() => res.write("."), 100);
      res.on("close", () => clearInterval(timer));
      return undefined;
    });
    try {
      const id = await finishedAttempt("trickle@example.com");
      const args = ["attempts", "watch", "--once", "--forward", receiver.url, "--forward-timeout", "1s"];
      const r = await run(args);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`of attempt ${id}: no whole answer within 1s; trying again in`);
      expect(r.stderr).toContain(`of attempt ${id} failed (no whole answer within 1s); pending`);
      // Three quick tries, each cut at the deadline.
      expect(receiver.requests).toHaveLength(3);
    } finally {
      await receiver.close();
    }
  });

  it("slack: posts Slack's {text, blocks} with the candidate's text escaped; nothing else of the attempt", async () => {
    const receiver = await startReceiver(() => 200);
    try {
      const id = await finishedAttempt("slack@example.com", { name: "Ada <!channel> *Lovelace*" });
      const r = await run(["attempts", "watch", "--once", "--forward", `slack:${receiver.url}`]);
      expect(r.code, r.stderr).toBe(0);
      // A Slack webhook URL is a credential: only its host is named.
      expect(r.stderr).not.toContain(receiver.url);
      const [posted] = receiver.requests;
      expect(posted!.headers["content-type"]).toBe("application/json");
      const message = JSON.parse(posted!.body.toString());
      expectSlackMessage(message);
      // Bold made of the name is broken by zero-width spaces; `<!channel>` is text.
      const z = "\u200b";
      // The test's name and the score come from the attempt's report.
      expect(message.text).toMatch(
        new RegExp(
          `^Ada &lt;!channel&gt; ${z}\\*${z}Lovelace${z}\\*${z} \\(slack@example\\.com\\) finished JavaScript Fundamentals: Completed, \\d+/\\d+`,
        ),
      );
      expect(JSON.stringify(message)).not.toContain("<!channel>");
      expect(message.blocks[1].fields).toContainEqual({
        type: "mrkdwn",
        text: `*Invitation*\n${id}`,
        verbatim: true,
      });
    } finally {
      await receiver.close();
    }
  });

  it("a signing secret signs each forward (Standard Webhooks), verified here independently; the id is stable across tries and runs", async () => {
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    let fail = true;
    const receiver = await startReceiver(() => (fail ? 503 : 204));
    try {
      const id = await finishedAttempt("signed@example.com");
      const args = ["attempts", "watch", "--once", "--forward", receiver.url, "--debug"];
      const first = await run(args, { ASSESS_WEBHOOK_SECRET: secret });
      expect(first.code, first.stderr).toBe(1);
      fail = false;
      const second = await run(args, { ASSESS_WEBHOOK_SECRET: secret });
      expect(second.code, second.stderr).toBe(0);
      for (const run of [first, second]) {
        expect(run.stdout + run.stderr).not.toContain(secret);
        expect(run.stdout + run.stderr).not.toContain(secret.slice(6, 30));
      }
      expect(receiver.requests.length).toBeGreaterThanOrEqual(2);
      const ids = new Set(receiver.requests.map((r) => r.headers["webhook-id"]));
      expect(ids.size).toBe(1);
      for (const request of receiver.requests) {
        expect(verifyStandardWebhook(secret, request.headers, request.body)).toBe(true);
        expect(JSON.parse(request.body.toString()).testInvitationId).toBe(id);
      }
      // A body changed on the way, or another secret, fails the check.
      const last = receiver.requests.at(-1)!;
      expect(verifyStandardWebhook(secret, last.headers, Buffer.from(`${last.body} `))).toBe(false);
      expect(
        verifyStandardWebhook(`whsec_${randomBytes(32).toString("base64")}`, last.headers, last.body),
      ).toBe(false);
      // A bad secret is refused before any call, without being echoed.
      const bad = await run(["attempts", "watch", "--once", "--forward", receiver.url], {
        ASSESS_WEBHOOK_SECRET: "whsec_not base64!!",
      });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("ASSESS_WEBHOOK_SECRET is not a Standard Webhooks secret");
      expect(bad.stderr).not.toContain("not base64!!");
    } finally {
      await receiver.close();
    }
  });
});

describe("attempts watch: the lock, the state and the terminal", () => {
  it("two watches over a stale lock: one takes it over, --exec runs once per attempt", async () => {
    const dead = spawnSync(process.execPath, ["-e", "process.pid"]).pid!;
    const file = tmp.file("ran.txt");
    const exec = `cat >/dev/null; echo "$ASSESS_TEST_INVITATION_ID" >> '${file}'`;
    const args = ["attempts", "watch", "--once", "--exec", exec];
    // A first run makes the state; each trial plants a stale lock and starts two watches at once.
    expect((await runBuilt(args)).code).toBe(0);
    const ids: number[] = [];
    for (let trial = 0; trial < 4; trial++) {
      ids.push(await finishedAttempt(`lock${trial}@example.com`));
      writeFileSync(`${stateFile()}.lock`, String(dead));
      // Two processes (the built CLI): the lock is taken per process.
      const both = await Promise.all([runBuilt(args), runBuilt(args)]);
      for (const run of both) {
        expect([0, 2], run.stderr).toContain(run.code);
        if (run.code === 2) expect(run.stderr).toContain("Another `assess attempts watch` of the same tests");
        expectNoStack(run.stderr);
      }
    }
    const ran = readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number);
    expect(ran).toEqual(ids);
    expect(readdirSync(watchFolder()).filter((name) => name.includes(".lock"))).toEqual([]);
  });

  it("a state polled up to long ago needs --yes, as a long --since does; the restart names where it starts from", async () => {
    expect((await run(["attempts", "watch", "--once"])).code).toBe(0);
    const saved = state();
    writeState({ ...saved, polledUntil: "2000-01-01T00:00:00Z" });
    const calls = listingCalls();
    const r = await run(["attempts", "watch", "--once"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Listing the attempts of 1999-12-31T23:50:00Z … .* takes 3\d\d calls/);
    expect(r.stderr).toContain("Pass --yes");
    expect(listingCalls()).toBe(calls);

    // One polled up to a time still to come starts now.
    writeState({ ...saved, polledUntil: "2100-01-01T00:00:00Z" });
    const future = await run(["attempts", "watch", "--once"]);
    expect(future.code, future.stderr).toBe(0);
    expectNoStack(future.stderr);

    writeState(saved);
    const live = start(["attempts", "watch", "--interval", "5s"]);
    try {
      const from = new Date(Date.parse(saved.polledUntil) - 10 * 60_000).toISOString().slice(0, 19);
      await live.waitFor(
        "stderr",
        new RegExp(`from ${from}Z \\(10m before ${saved.polledUntil}, where the last run stopped\\)`),
      );
      live.child.kill("SIGINT");
      expect((await live.exit).code).toBe(130);
    } finally {
      live.child.kill("SIGKILL");
    }
  });

  it("an idle watch on a terminal shows it is still polling, and clears that line when it stops", async () => {
    mkdirSync(env.ASSESS_CONFIG_DIR!, { recursive: true });
    const terminal = Terminal.start(["attempts", "watch", "--interval", "5s"], env);
    await terminal.waitFor(
      /Watching all tests: last poll \d\d:\d\d:\d\dZ, next in 5s; 0 shown \(Ctrl-C stops\)/,
    );
    terminal.type("\u0003");
    expect(await terminal.exited).toBe(130);
    expect(terminal.screen).toMatch(/Stopped after \d+ polls?: 0 attempts shown/);
  });
});

/** Slack's incoming-webhook payload: `text`, and blocks of the kinds and sizes Block Kit accepts. */
function expectSlackMessage(message: Record<string, unknown>): void {
  expect(typeof message.text).toBe("string");
  // biome-ignore lint/suspicious/noExplicitAny: a parsed JSON body, checked field by field
  const blocks = message.blocks as Array<Record<string, any>>;
  expect(Array.isArray(blocks) && blocks.length > 0 && blocks.length <= 50).toBe(true);
  for (const block of blocks) {
    expect(["section", "actions", "context", "divider", "header"]).toContain(block.type);
    if (block.type === "section") {
      expect(block.text ?? block.fields).toBeDefined();
      if (block.text) {
        expect(["mrkdwn", "plain_text"]).toContain(block.text.type);
        expect(block.text.text.length).toBeLessThanOrEqual(3000);
      }
      for (const f of block.fields ?? []) {
        expect(f.type).toBe("mrkdwn");
        expect(f.text.length).toBeLessThanOrEqual(2000);
      }
      expect((block.fields ?? []).length).toBeLessThanOrEqual(10);
    }
  }
}

/** Standard Webhooks verification, written from the specification (not with the CLI's code). */
function verifyStandardWebhook(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
): boolean {
  const id = String(headers["webhook-id"]);
  const timestamp = String(headers["webhook-timestamp"]);
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.split("_")[1]!, "base64");
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

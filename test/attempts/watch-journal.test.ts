/**
 * `attempts watch` under load and with secrets about, in-process (`main`; the built CLI where the bytes the
 * process writes or its children's environment are checked) on the sandbox with receivers on loopback: a round
 * with hundreds of pending deliveries writes what changed (a journal), not the whole state once per delivery; the dead-letter file is rotated at its bound; a plain --forward URL's user info and query
 * reach no message, dead letter or state; --exec children get neither the API key nor the signing secret unless
 * asked; Slack text escapes mrkdwn; `--once --json` is one JSON document even when nothing is new.
 */
import { appendFileSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadWatchState, MAX_DEAD_LETTER_BYTES } from "../../src/commands/attempts/watch-state.js";
import { ndjson, sleep } from "../helpers/cli.js";
import { expectNoStack, freePort, startReceiver, useWatchEnv } from "./watch-helpers.js";

const { t, tmp, env, run, runBuilt, finishedAttempt, watchFolder, stateFile, journalFile, deadLetterFile } =
  useWatchEnv("assess-watch-journal-");
/** What the state's folder holds, every file's text together. */
const everythingKept = () =>
  readdirSync(watchFolder())
    .map((name) => readFileSync(join(watchFolder(), name), "utf8"))
    .join("\n");

/** A state of `n` pending deliveries that cannot even start (a testId --exec cannot carry): dead-lettered at once. */
function plantPending(n: number, pad = 1000): void {
  const saved = loadWatchState(stateFile())!;
  const since = new Date().toISOString();
  const pending = Array.from({ length: n }, (_, i) => ({
    attempt: {
      testInvitationId: 8_000_000 + i,
      testId: 1.5,
      name: "x".repeat(pad),
      email: `p${i}@example.com`,
    },
    since,
    tries: 0,
  }));
  // The journal beside is of the same generation: its changes (the first run's poll) apply again, harmlessly.
  writeFileSync(stateFile(), JSON.stringify({ ...saved, pending }));
}

/** A script the child loads first: it writes the bytes the process wrote (Linux's wchar) to $WCHAR_OUT at exit. */
function wcharHook(): string {
  const hook = tmp.file("wchar.cjs");
  writeFileSync(
    hook,
    [
      'const fs = require("node:fs");',
      'process.on("exit", () => {',
      '  const wchar = /wchar:\\s+(\\d+)/.exec(fs.readFileSync("/proc/self/io", "utf8"))[1];',
      "  fs.writeFileSync(process.env.WCHAR_OUT, wchar);",
      "});",
      "",
    ].join("\n"),
  );
  return hook;
}

describe("attempts watch: the state as a journal, bounded files", () => {
  it("a round with 600 pending deliveries (600 KB of state) writes what changed, not the state after each", async () => {
    expect((await run(["attempts", "watch", "--once"])).code).toBe(0);
    plantPending(600);
    const stateBytes = statSync(stateFile()).size;
    expect(stateBytes).toBeGreaterThan(600_000);
    const out = tmp.file("wchar");
    const r = await runBuilt(["attempts", "watch", "--once", "--exec", "cat > /dev/null"], {
      env: { WCHAR_OUT: out },
      preload: wcharHook(),
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain("600 deliveries were given up");
    // Every byte the process wrote, less what went to stdout and stderr: the state, its journal, the dead letters.
    const toFiles =
      Number(readFileSync(out, "utf8")) - Buffer.byteLength(r.stdout) - Buffer.byteLength(r.stderr);
    const dead = statSync(deadLetterFile()).size;
    // The state rewritten after each of the 600 outcomes was 180 MB; a line each is a few hundred KB.
    expect(toFiles).toBeLessThan(dead + 2 * stateBytes);
    expect(ndjson(readFileSync(deadLetterFile(), "utf8"))).toHaveLength(600);
    // Nothing lost and nothing twice: the next run reads no pending delivery.
    expect(loadWatchState(stateFile())!.pending).toEqual([]);
    const again = await run(["attempts", "watch", "--once", "--exec", "cat > /dev/null"]);
    expect(again.code, again.stderr).toBe(0);
    expectNoStack(r.stderr);
  });

  it("a journal cut mid-line by a crash: the next run reads the rest and delivers the pending attempt once", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hooks/assess`;
    const id = await finishedAttempt("cut.journal@example.com");
    const down = await run(["attempts", "watch", "--once", "--forward", url]);
    expect(down.code, down.stderr).toBe(1);
    appendFileSync(journalFile(), `{"op":"removed","id":${id},"si`);
    const receiver = await startReceiver(() => 204, port);
    try {
      const up = await run(["attempts", "watch", "--once", "--forward", url]);
      expect(up.code, up.stderr).toBe(0);
      const again = await run(["attempts", "watch", "--once", "--forward", url]);
      expect(again.code, again.stderr).toBe(0);
      expect(receiver.requests.map((r) => JSON.parse(r.body.toString()).testInvitationId)).toEqual([id]);
      expect(loadWatchState(stateFile())!.pending).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  it("the dead-letter file is rotated at its bound: the full one becomes .dead-letter.1.ndjson", async () => {
    expect((await run(["attempts", "watch", "--once"])).code).toBe(0);
    plantPending(1, 10);
    // Sparse: as large as the bound allows, less a few bytes.
    writeFileSync(deadLetterFile(), "");
    truncateSync(deadLetterFile(), MAX_DEAD_LETTER_BYTES - 10);
    const r = await run(["attempts", "watch", "--once", "--exec", "cat > /dev/null"]);
    expect(r.code, r.stderr).toBe(1);
    const rotated = deadLetterFile().replace(/\.ndjson$/, ".1.ndjson");
    expect(statSync(rotated).size).toBe(MAX_DEAD_LETTER_BYTES - 10);
    const [line, ...more] = ndjson(readFileSync(deadLetterFile(), "utf8"));
    expect(more).toEqual([]);
    expect(line).toMatchObject({ testInvitationId: 8_000_000 });
    expect(statSync(deadLetterFile()).mode & 0o777).toBe(0o600);
  });
});

describe("attempts watch: secrets stay out", () => {
  it("a --forward URL's user info and query reach no warning, dead letter or state", async () => {
    const receiver = await startReceiver(() => 400);
    try {
      await finishedAttempt("secret.url@example.com");
      const { port } = receiver;
      const url = `http://alice:hunter2@127.0.0.1:${port}/hooks/assess?code=s3cr3t`;
      const watch = ["attempts", "watch", "--once", "--forward", url, "--give-up-after"];
      // The first run cannot give up however slow the machine; the second is past 1s whatever it does.
      const first = await run([...watch, "1h"]);
      expect(first.code, first.stderr).toBe(1);
      expect(first.stderr).toContain(`--forward to http://****@127.0.0.1:${port}/hooks/assess?… of attempt`);
      await sleep(1100);
      const second = await run([...watch, "1s"]);
      expect(second.code, second.stderr).toBe(1);
      expect(second.stderr).toContain("given up, written to");
      expect(ndjson(readFileSync(deadLetterFile(), "utf8"))[0]!.destination).toBe(
        `--forward to http://****@127.0.0.1:${port}/hooks/assess?…`,
      );
      for (const text of [first.stderr, second.stderr, first.stdout, second.stdout, everythingKept()]) {
        expect(text).not.toContain("hunter2");
        expect(text).not.toContain("s3cr3t");
      }
      // The receiver itself got the URL as given.
      expect(receiver.requests.length).toBeGreaterThan(0);
    } finally {
      await receiver.close();
    }
  });

  it("--exec children get neither the API key nor ASSESS_WEBHOOK_SECRET, unless --exec-env-key / --exec-env-secret", async () => {
    const secret = "whsec_c2lnbmluZy1zZWNyZXQtZm9yLXRlc3Rz";
    const extra = { env: { ASSESS_WEBHOOK_SECRET: secret } };
    expect(env.ASSESS_API_KEY).toBeTruthy();
    await finishedAttempt("env.one@example.com");
    const plain = tmp.file("plain.env");
    const r = await runBuilt(["attempts", "watch", "--once", "--exec", `env >> '${plain}'`], extra);
    expect(r.code, r.stderr).toBe(0);
    const seen = readFileSync(plain, "utf8");
    expect(seen).toContain("ASSESS_TEST_INVITATION_ID=");
    expect(seen).not.toContain(secret);
    expect(seen).not.toContain(env.ASSESS_API_KEY!);

    await finishedAttempt("env.two@example.com");
    const asked = tmp.file("asked.env");
    const argv = ["attempts", "watch", "--once", "--exec", `env >> '${asked}'`, "--exec-env-secret"];
    const s = await runBuilt([...argv, "--exec-env-key"], extra);
    expect(s.code, s.stderr).toBe(0);
    expect(readFileSync(asked, "utf8")).toContain(`ASSESS_WEBHOOK_SECRET=${secret}`);
    expect(readFileSync(asked, "utf8")).toContain(`ASSESS_API_KEY=${env.ASSESS_API_KEY}`);
  });
});

describe("attempts watch: what it prints and posts", () => {
  it("--once --json with nothing new prints [] (one JSON document per command)", async () => {
    const r = await run(["attempts", "watch", "--once", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
    const id = await finishedAttempt("json.once@example.com");
    const next = await run(["attempts", "watch", "--once", "--json"]);
    expect(JSON.parse(next.stdout).map((a: { testInvitationId: number }) => a.testInvitationId)).toEqual([
      id,
    ]);
  });

  it.each(["slack", "teams"])(
    "%s: the message names the test and carries the score and the report link (from the attempt's report)",
    async (kind) => {
      const receiver = await startReceiver(() => 200);
      try {
        const id = await finishedAttempt(`${kind}.score@example.com`);
        const report = await t.run(["reports", "get", String(id), "--json"]);
        expect(report.code, report.stderr).toBe(0);
        const { testName, candidatePoints, totalTestPoints, pdfReportUrl } = JSON.parse(report.stdout);
        expect(testName).toBeTruthy();
        const r = await run(["attempts", "watch", "--once", "--forward", `${kind}:${receiver.url}`]);
        expect(r.code, r.stderr).toBe(0);
        const message = receiver.requests[0]!.body.toString();
        expect(message).toContain(testName);
        expect(message).toContain(`${candidatePoints}/${totalTestPoints}`);
        expect(message).toContain(JSON.stringify(pdfReportUrl));
        expect(message).toContain("Open report");
      } finally {
        await receiver.close();
      }
    },
  );

  it("slack: mentions, emphasis, code, links and entities in a name are shown as text, and every mrkdwn text is verbatim", async () => {
    const receiver = await startReceiver(() => 200);
    try {
      const name = "Eve @channel @here *bold* _it_ ~gone~ `code` https://evil.example/x <!everyone> & co";
      await finishedAttempt("mrkdwn@example.com", { name });
      const r = await run(["attempts", "watch", "--once", "--forward", `slack:${receiver.url}`]);
      expect(r.code, r.stderr).toBe(0);
      const message = JSON.parse(receiver.requests[0]!.body.toString());
      const texts: string[] = [message.text];
      for (const block of message.blocks) {
        for (const text of [block.text, ...(block.fields ?? [])].filter(Boolean)) {
          if (text.type === "mrkdwn") {
            expect(text.verbatim).toBe(true);
            texts.push(text.text);
          }
        }
      }
      const all = texts.join("\n");
      for (const markup of [
        "@channel",
        "@here",
        "*bold*",
        "_it_",
        "~gone~",
        "`code`",
        "https://",
        "<!",
        "& co",
      ]) {
        expect(all).not.toContain(markup);
      }
      // Still readable: the words are all there.
      expect(all.replace(/\u200b/g, "")).toContain(
        "Eve @channel @here *bold* _it_ ~gone~ `code` https://evil.example/x &lt;!everyone&gt; &amp; co",
      );
    } finally {
      await receiver.close();
    }
  });
});

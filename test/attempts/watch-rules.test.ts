/**
 * `attempts watch --rules`: each rule's actions run once per attempt, through the watch's at-least-once
 * delivery. In-process (`main`) on the sandbox with receivers on loopback; the built CLI where the process is the
 * subject (killed with SIGKILL between the report and the action).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { loadWatchState } from "../../src/commands/attempts/watch-state.js";
import { leftAttempt, ndjson } from "../helpers/cli.js";
import { expectNoStack, freePort, startReceiver, useWatchEnv, waitUntil } from "./watch-helpers.js";

const w = useWatchEnv("assess-watch-rules-");
const { t, tmp, run, start, listingCalls, watchFolder, stateFile, deadLetterFile } = w;
const finishedAttempt = (email: string, name = "Rule Ruth") => w.finishedAttempt(email, { name });
/** The invitations sent to test 1002, by e-mail. */
const invitesTo1002 = () =>
  t.sandbox.requests
    .filter((r) => r.method === "POST" && r.path === "/v3/tests/1002/invite")
    .map((r) => (r.body as { emailId: string }).emailId);
/** A shortlist's rows (header left out), each as its cells. */
const rows = (file: string) =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\r\n")
        .filter(Boolean)
        .slice(1)
        .map((line) => line.split(","))
    : [];
const lines = (file: string) =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];

function rulesFile(rules: string[]): string {
  const file = tmp.file("rules.yaml");
  writeFileSync(file, `rules:\n${rules.join("\n")}\n`);
  return file;
}

/** The rule of these tests: every finished attempt of test 1001 that completed advances, in four ways. */
function advance(forwardTo: string, first: "forward" | "invite" = "invite"): string[] {
  const invite = "      - invite: { test: 1002, end: +7d }";
  const forward = `      - forward: ${forwardTo}`;
  return [
    "  - name: advance",
    "    test: 1001",
    "    when: { status: Complete }",
    "    actions:",
    ...(first === "forward" ? [forward, invite] : [invite, forward]),
    "      - append: shortlist.csv",
    `      - exec: [sh, -c, 'cat > /dev/null; echo "$ASSESS_IDEMPOTENCY_KEY" >> "${tmp.file("ran.txt")}"']`,
  ];
}

describe("attempts watch --rules", () => {
  it("each rule's actions run once per attempt: invite, forward, append, exec; a rerun runs none again", async () => {
    const receiver = await startReceiver();
    try {
      const file = rulesFile([
        ...advance(receiver.url),
        "  - name: everyone",
        "    test: any",
        "    actions:",
        "      - append: all.csv",
      ]);
      const ada = await finishedAttempt("ada@example.com", "Ada Lovelace");
      const alan = await finishedAttempt("alan@example.com", "Alan Turing");
      const lou = await leftAttempt(run, "lou@example.com");
      const args = ["attempts", "watch", "--once", "--rules", file];
      const first = await run(args);
      expect(first.code, first.stderr).toBe(0);
      expect(ndjson(first.stdout).map((a) => a.testInvitationId)).toEqual([ada, alan, lou]);
      expect(first.stderr).toContain(`Attempt ${ada}: rule advance fires (invite, forward, append, exec)`);
      expect(first.stderr).not.toContain(`Attempt ${lou}: rule advance`);
      expectNoStack(first.stderr);

      // The next stage: invited to test 1002 with the e-mail and a week's window, as invite send does.
      expect(invitesTo1002()).toEqual(["ada@example.com", "alan@example.com"]);
      const invite = t.sandbox.requests.find((r) => r.path === "/v3/tests/1002/invite")!.body as Record<
        string,
        string
      >;
      expect(invite).toMatchObject({ fullName: "Ada Lovelace", sendEmail: "yes" });
      const days = (Date.parse(invite.endDateTime!) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(6.9);
      expect(days).toBeLessThan(7.1);

      // The forward carries the attempt, its report and the rule.
      expect(receiver.requests).toHaveLength(2);
      const posted = JSON.parse(receiver.requests[0]!.body.toString());
      expect(posted).toMatchObject({
        testInvitationId: ada,
        rule: "advance",
        key: `${ada}:advance#2.forward`,
        report: { testInvitationId: ada, Status: "Complete" },
      });
      expect(typeof posted.report.scorePercentage).toBe("number");

      const shortlist = rows(tmp.file("shortlist.csv"));
      expect(shortlist.map((row) => [row[0], Number(row[1]), row[5], row.at(-1)])).toEqual([
        ["advance", ada, "ada@example.com", `${ada}:advance#3.append`],
        ["advance", alan, "alan@example.com", `${alan}:advance#3.append`],
      ]);
      expect(lines(tmp.file("ran.txt"))).toEqual([`${ada}:advance#4.exec`, `${alan}:advance#4.exec`]);
      expect(rows(tmp.file("all.csv")).map((row) => Number(row[1]))).toEqual([ada, alan, lou]);
      expect(loadWatchState(stateFile())!.pending).toEqual([]);

      // Again, and with a new attempt: only the new one's actions run.
      const again = await run(args);
      expect(again.code, again.stderr).toBe(0);
      const grace = await finishedAttempt("grace@example.com", "Grace Hopper");
      const third = await run(args);
      expect(third.code, third.stderr).toBe(0);
      expect(invitesTo1002()).toEqual(["ada@example.com", "alan@example.com", "grace@example.com"]);
      expect(receiver.requests).toHaveLength(3);
      expect(rows(tmp.file("shortlist.csv")).map((row) => Number(row[1]))).toEqual([ada, alan, grace]);
      expect(lines(tmp.file("ran.txt"))).toHaveLength(3);
      expect(rows(tmp.file("all.csv")).map((row) => Number(row[1]))).toEqual([ada, alan, lou, grace]);
    } finally {
      await receiver.close();
    }
  });

  it("killed (SIGKILL) between the report and the action: the restart loses nothing and doubles nothing", async () => {
    // The receiver holds the first forward unanswered: the watch is then past the report, in its first action.
    const held: ServerResponse[] = [];
    let answer = false;
    const receiver = await startReceiver((_request, res) => {
      if (answer) return 204;
      held.push(res);
      return undefined;
    });
    const secret = { ASSESS_WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString("base64")}` };
    try {
      const file = rulesFile(advance(receiver.url, "forward"));
      const id = await finishedAttempt("kill@example.com");
      const args = ["attempts", "watch", "--once", "--rules", file];
      const watch = start(args, { env: secret });
      try {
        await waitUntil(() => receiver.requests.length === 1, "the first forward");
        watch.child.kill("SIGKILL");
        expect((await watch.exit).signal).toBe("SIGKILL");
      } finally {
        watch.child.kill("SIGKILL");
      }
      // What the kill left: the report read and its four actions pending, none done but the forward in flight.
      const left = loadWatchState(stateFile())!;
      expect(left.pending!.map((entry) => entry.action)).toEqual([
        "advance#1.forward",
        "advance#2.invite",
        "advance#3.append",
        "advance#4.exec",
      ]);
      expect(invitesTo1002()).toEqual([]);
      expect(existsSync(tmp.file("shortlist.csv"))).toBe(false);
      for (const res of held) res.destroy();

      answer = true;
      const restart = await run(args, secret);
      expect(restart.code, restart.stderr).toBe(0);
      expectNoStack(restart.stderr);
      // The forward in flight at the kill went again with the same webhook-id (a receiver drops the repeat);
      // every other action ran once.
      expect(receiver.requests).toHaveLength(2);
      expect(new Set(receiver.requests.map((r) => r.headers["webhook-id"]))).toEqual(
        new Set([`assess_${id}_rule-advance-1-forward`]),
      );
      expect(invitesTo1002()).toEqual(["kill@example.com"]);
      expect(rows(tmp.file("shortlist.csv")).map((row) => Number(row[1]))).toEqual([id]);
      expect(lines(tmp.file("ran.txt"))).toEqual([`${id}:advance#4.exec`]);
      expect(loadWatchState(stateFile())!.pending).toEqual([]);

      const again = await run(args, secret);
      expect(again.code, again.stderr).toBe(0);
      expect(receiver.requests).toHaveLength(2);
      expect(invitesTo1002()).toHaveLength(1);
      expect(rows(tmp.file("shortlist.csv"))).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it("an action that fails stays pending alone and is tried again; the others do not wait for it", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hooks/assess`;
    const file = rulesFile(advance(url));
    const id = await finishedAttempt("down@example.com");
    const args = ["attempts", "watch", "--once", "--rules", file];
    const down = await run(args);
    expect(down.code, down.stderr).toBe(1);
    expect(down.stderr).toContain(
      `rule advance: forward to ${url} of attempt ${id} failed (ECONNREFUSED); pending`,
    );
    expect(down.stderr).toContain(`1 delivery is still pending`);
    // The others did not wait for it.
    expect(invitesTo1002()).toEqual(["down@example.com"]);
    expect(lines(tmp.file("ran.txt"))).toHaveLength(1);

    const receiver = await startReceiver(() => 204, port);
    try {
      const up = await run(args);
      expect(up.code, up.stderr).toBe(0);
      expect(receiver.requests).toHaveLength(1);
      expect(invitesTo1002()).toHaveLength(1);
      expect(rows(tmp.file("shortlist.csv"))).toHaveLength(1);
      expect(lines(tmp.file("ran.txt"))).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it("an action failing past --give-up-after is a dead letter naming its action, and replays once", async () => {
    // A command that keeps failing is given up after --give-up-after; the dead letter names its action.
    const failing = rulesFile([
      "  - name: fails",
      "    test: 1001",
      "    actions:",
      `      - exec: [sh, -c, 'cat > /dev/null; echo "$ASSESS_IDEMPOTENCY_KEY" >> "${tmp.file("tried.txt")}"; test -e "${tmp.file("ok")}"']`,
    ]);
    const other = await finishedAttempt("fails@example.com");
    const fail = ["attempts", "watch", "--once", "--rules", failing, "--give-up-after"];
    // The first run cannot give up however slow the machine; the second is past 1s whatever it does.
    expect((await run([...fail, "1h"])).code).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const given = await run([...fail, "1s"]);
    expect(given.code, given.stderr).toBe(1);
    expect(given.stderr).toMatch(
      /rule fails: exec sh -c .* of attempt \d+: exited with 1 \(given up after 2 tries/,
    );
    const letters = ndjson(readFileSync(deadLetterFile(), "utf8"));
    expect(letters.map((l) => [l.testInvitationId, l.action])).toEqual([[other, "fails#1.exec"]]);
    writeFileSync(tmp.file("ok"), "");
    const replay = await run(["attempts", "watch", "--rules", failing, "--replay-dead-letters", "--json"]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.json()).toMatchObject({ replayed: 1, delivered: 1, pending: 0 });
    const replayAgain = await run([
      "attempts",
      "watch",
      "--rules",
      failing,
      "--replay-dead-letters",
      "--json",
    ]);
    expect(replayAgain.json()).toMatchObject({ replayed: 0, alreadyReplayed: 1 });
    // Two tries, then the replay's one.
    expect(lines(tmp.file("tried.txt"))).toEqual(Array(3).fill(`${other}:fails#1.exec`));
  });

  it("a shortlist row neutralises a formula; a rule's command is killed past its timeout and its output capped", async () => {
    const file = rulesFile([
      "  - name: shortlist",
      "    test: 1001",
      "    actions:",
      "      - append: shortlist.csv",
      "      - exec: { command: [sh, -c, 'head -c 100000 /dev/zero | tr \"\\\\0\" x; sleep 30'], timeout: 1s }",
    ]);
    const id = await finishedAttempt("formula@example.com", '=HYPERLINK("http://x")');
    const r = await run(["attempts", "watch", "--once", "--rules", file]);
    expect(r.code).toBe(1);
    const [row] = rows(tmp.file("shortlist.csv"));
    expect(Number(row![1])).toBe(id);
    expect(readFileSync(tmp.file("shortlist.csv"), "utf8")).toContain(`,"'=HYPERLINK(""http://x"")",`);
    expect(r.stderr).toContain(`of attempt ${id} failed (still running after 1s: killed); pending`);
    expect(r.stderr).toContain("The command's output went on for 34464 more bytes: not shown");
    expect(r.stderr.split("x".repeat(1000)).length).toBeLessThan(70);
  });

  it("an invalid rules file names its line and key (exit 2) before anything is listed; --rules takes no --forward", async () => {
    const file = rulesFile([
      "  - name: advance",
      "    test: 1001",
      "    actions:",
      "      - invite: { test: 1002 }",
      "      - shortlist: x.csv",
    ]);
    const calls = listingCalls();
    const r = await run(["attempts", "watch", "--once", "--rules", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:5: rules[0].actions[0].invite.end: missing`);
    expect(r.stderr).toContain(`${file}:6: rules[0].actions[1].shortlist: unknown action "shortlist"`);
    expect(r.stdout).toBe("");
    expect(listingCalls()).toBe(calls);
    expect(existsSync(watchFolder())).toBe(false);

    const unknown = rulesFile(["  - name: a", "    test: 424242", "    actions:", "      - append: a.csv"]);
    const missing = await run(["attempts", "watch", "--once", "--rules", unknown]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      `${unknown}:3: rules[0].test: test 424242 does not exist on the service`,
    );
    expect(listingCalls()).toBe(calls);

    const both = await run([
      "attempts",
      "watch",
      "--once",
      "--rules",
      unknown,
      "--forward",
      "http://127.0.0.1:9/x",
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--rules cannot be used with --forward");
  });
});

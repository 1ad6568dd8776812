/**
 * `callbacks listen --forward-to` through the built CLI. A listener flooded while its forward target
 * hangs keeps a bounded queue (1,000 notifications or 64 MiB) and answers 503 beyond it, with its peak memory
 * measured; `teams:` posts an Adaptive Card message for a finished attempt only; a plain URL gets the body
 * unchanged, signed.
 */
import { createHmac, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent, request } from "undici";
import { afterEach, describe, expect, it } from "vitest";
import { expectNoStack, type Receiver, startReceiver, waitUntil } from "../attempts/watch-helpers.js";
import { startBin, useTestEnv } from "../helpers/cli.js";

// A sandbox for each test: one test's invitations and callbacks must not leak into the next.
const t = useTestEnv({ perTest: true });
let receivers: Receiver[] = [];
afterEach(async () => {
  for (const receiver of receivers) await receiver.close();
  receivers = [];
});

async function receiver(answer?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

/** The built listener; resolves with it and its callback URL once it listens. */
async function listen(args: string[], extra: Record<string, string> = {}) {
  const live = startBin(["callbacks", "listen", "--port", "0", ...args], { env: { ...t.env, ...extra } });
  const [, url] = await live.waitFor("stderr", /Callback URL to use: (\S+)/);
  return { live, url: url! };
}

function notification(id: number, status = "Complete", extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    TestInvitationId: id,
    CandidateEmailId: `c${id}@example.com`,
    Status: status,
    TotalScore: 60,
    CandidateScore: 42,
    PerformanceCategory: "Strong",
    ReportPDFUrl: status === "In Progress" ? null : `https://reports.example.com/r/${id}.pdf`,
    AttemptedOnUtc: "2026-11-25T10:00:00",
    ...extra,
  });
}

/** The peak resident memory of a process (Linux), in MiB. */
function peakMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

describe("callbacks listen --forward-to", () => {
  it("flooded while its forward target hangs: a bounded queue, 503 with Retry-After beyond it, memory bounded", async () => {
    const hang = await receiver(() => undefined);
    const agent = new Agent({ connections: 8 });
    const post = async (url: string, body: string) => {
      const res = await request(url, {
        method: "POST",
        body,
        headers: { "content-type": "application/json" },
        dispatcher: agent,
      });
      await res.body.dump();
      return { status: res.statusCode, retryAfter: res.headers["retry-after"] };
    };
    try {
      // By bytes: notifications of ~1 MB each, 64 MiB at most waiting.
      const big = await listen(["--forward-to", hang.url, "--forward-timeout", "5m"]);
      const pad = "x".repeat(1_000_000);
      const bigAnswers = [];
      for (let i = 0; i < 90; i++)
        bigAnswers.push(await post(big.url, notification(1 + i, "Complete", { pad })));
      const accepted = bigAnswers.filter((a) => a.status === 200).length;
      const refused = bigAnswers.filter((a) => a.status === 503);
      expect(accepted).toBeGreaterThanOrEqual(60);
      expect(accepted).toBeLessThanOrEqual(68);
      expect(refused).toHaveLength(90 - accepted);
      expect(refused[0]!.retryAfter).toBe("30");
      const peak = peakMiB(big.live.child.pid!);
      console.log(
        `1 MB notifications: ${accepted} queued, ${refused.length} answered 503; peak RSS ${peak.toFixed(0)} MiB`,
      );
      expect(peak).toBeLessThan(300);
      big.live.child.kill("SIGINT");
      expect((await big.live.exit).code).toBe(130);
      expectNoStack(big.live.stderr());
      expect(big.live.stderr()).toContain("answered 503 to a request: ");

      // By count: 1,000 small notifications at most waiting.
      const many = await listen(["--forward-to", hang.url, "--forward-timeout", "5m"]);
      const answers = await Promise.all(
        Array.from({ length: 1100 }, (_, i) => post(many.url, notification(10_000 + i))),
      );
      const ok = answers.filter((a) => a.status === 200).length;
      expect(ok).toBe(1000);
      expect(answers.filter((a) => a.status === 503)).toHaveLength(100);
      console.log(`small notifications: peak RSS ${peakMiB(many.live.child.pid!).toFixed(0)} MiB`);
      // Ctrl-C cuts the hanging forwards short: the listener stops at once and reports each.
      many.live.child.kill("SIGINT");
      expect((await many.live.exit).code).toBe(130);
      expect(many.live.stderr()).toMatch(
        /Stopped: 1000 notifications \(0 duplicate\), 100 rejected requests/,
      );
    } finally {
      await agent.close();
    }
  });

  it("teams: an Adaptive Card message for a finished attempt, none for In Progress; the name cannot become a link", async () => {
    const teams = await receiver(() => 202);
    const { live, url } = await listen(["--forward-to", `teams:${teams.url}`]);
    try {
      // Said once it listens, so possibly after the line waited for.
      await live.waitFor("stderr", /Forwarding each notification to Teams \(127\.0\.0\.1:/);
      expect(live.stderr()).not.toContain(teams.url);
      for (const body of [
        notification(501, "In Progress"),
        notification(501, "Complete", { CandidateEmailId: "[click](https://evil.example)" }),
      ]) {
        const res = await request(url, {
          method: "POST",
          body,
          headers: { "content-type": "application/json" },
        });
        expect(res.statusCode).toBe(200);
        await res.body.dump();
      }
      await waitUntil(() => live.stdout().split("\n").filter(Boolean).length >= 2, "both notifications");
      expect(teams.requests).toHaveLength(1);
      const message = JSON.parse(teams.requests[0]!.body.toString());
      expect(message.type).toBe("message");
      expect(message.attachments).toHaveLength(1);
      const [attachment] = message.attachments;
      expect(attachment.contentType).toBe("application/vnd.microsoft.card.adaptive");
      const card = attachment.content;
      expect(card).toMatchObject({
        $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
        type: "AdaptiveCard",
        version: expect.stringMatching(/^1\.\d$/),
      });
      expect(card.body[0]).toMatchObject({ type: "TextBlock", wrap: true });
      const facts = card.body.find((b: { type: string }) => b.type === "FactSet").facts;
      expect(facts).toContainEqual({ title: "Status", value: "Complete" });
      expect(facts).toContainEqual({ title: "Score", value: "42/60 Strong" });
      expect(JSON.stringify(card)).not.toContain("[click](https");
      expect(card.actions).toEqual([
        { type: "Action.OpenUrl", title: "Open report", url: "https://reports.example.com/r/501.pdf" },
      ]);
    } finally {
      live.child.kill("SIGINT");
      await live.exit;
    }
  });

  it.each([
    ["callbacks listen", ["callbacks", "listen", "--port", "0", "--forward-to"], "--forward-to"],
    ["attempts watch", ["attempts", "watch", "--once", "--forward"], "--forward"],
  ])(
    "%s refuses --signing-secret for a Slack destination (exit 2, nothing started)",
    async (_name, argv, flag) => {
      const secret = `whsec_${randomBytes(24).toString("base64")}`;
      const r = await t.run([
        ...argv,
        "slack:https://hooks.slack.com/services/T0/B0/x",
        "--signing-secret",
        secret,
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`error: --signing-secret signs what ${flag} sends to a plain URL`);
      expect(r.stderr).toContain(`hint: Give ${flag} <url>, or leave --signing-secret out.`);
      expect(r.stderr).not.toContain(secret);
    },
  );

  it("a plain URL gets the body unchanged, signed: the signatures check out, one per secret (a rotation)", async () => {
    const plain = await receiver(() => 204);
    const secret = `whsec_${randomBytes(24).toString("base64")}`;
    const next = `whsec_${randomBytes(32).toString("base64")}`;
    const { live, url } = await listen([
      ...["--forward-to", plain.url, "--signing-secret", secret, "--signing-secret", next],
    ]);
    try {
      const body = notification(777);
      const res = await request(url, {
        method: "POST",
        body,
        headers: { "content-type": "application/json" },
      });
      await res.body.dump();
      await waitUntil(() => plain.requests.length === 1, "the forward");
      const [forwarded] = plain.requests;
      expect(forwarded!.body.toString()).toBe(body);
      const {
        "webhook-id": id,
        "webhook-timestamp": ts,
        "webhook-signature": signature,
      } = forwarded!.headers;
      expect(id).toBe("assess_777_complete");
      const expected = [secret, next].map((s) =>
        createHmac("sha256", Buffer.from(s.slice("whsec_".length), "base64"))
          .update(`${id}.${ts}.${body}`)
          .digest("base64"),
      );
      expect(signature).toBe(`v1,${expected[0]} v1,${expected[1]}`);
      expect(live.stderr()).toContain("signed (Standard Webhooks)");
    } finally {
      live.child.kill("SIGINT");
      await live.exit;
    }
    expect(live.stdout() + live.stderr()).not.toContain(secret.slice(6));
    expect(live.stdout() + live.stderr()).not.toContain(next.slice(6));
  });
});

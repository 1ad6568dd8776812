import { request } from "undici";
import { describe, expect, it } from "vitest";
import { startBin } from "../helpers/cli.js";

describe("callbacks listen, as a user runs it (built CLI)", () => {
  it("prints NDJSON when piped and stops cleanly on Ctrl-C (SIGINT)", async () => {
    const live = startBin(["callbacks", "listen", "--port", "0"]);
    try {
      const [, url] = await live.waitFor("stderr", /Callback URL to use: (\S+)/);
      const res = await request(url!, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ TestInvitationId: 77, Status: "Complete" }),
      });
      expect(res.statusCode).toBe(200);
      await res.body.dump();
      await live.waitFor("stdout", /\n/);
      expect(JSON.parse(live.stdout().trim())).toMatchObject({
        testInvitationId: 77,
        status: "Complete",
        duplicate: false,
      });

      live.child.kill("SIGINT");
      expect((await live.exit).code).toBe(130);
      expect(live.stderr()).toContain("Stopped: 1 notification (0 duplicate), 0 rejected requests.");
    } finally {
      live.child.kill("SIGKILL");
    }
  });
});

/**
 * Ctrl-C while the attempt listing is in flight: the read is stopped at once (api/transport.ts takes the
 * command's signal through Api.listAttempts), not answered first nor tried again. A loopback service that
 * holds every listing 30 s and says when one has come.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, it } from "vitest";
import { runCli, useTempDir } from "../helpers/cli.js";

const tmp = useTempDir("assess-interrupt-");

it("Ctrl-C while the service holds the listing: exit 130 at once, the listing unanswered and not sent again", async () => {
  let arrived!: () => void;
  const listing = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  let requests = 0;
  let answered = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    req.resume();
    requests++;
    arrived();
    // Held 30 s, then an empty page.
    const timer = setTimeout(() => {
      answered++;
      res.writeHead(200, { "content-type": "application/json" }).end("[]");
    }, 30_000);
    timers.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const stop = new AbortController();
    void listing.then(() => stop.abort());
    // --timeout beyond the hold: only the signal ends the read early.
    const r = await runCli(["attempts", "list", "--from", "7d", "--to", "now", "--timeout", "120000"], {
      env: {
        ASSESS_CONFIG_DIR: tmp.file("config"),
        ASSESS_API_KEY: "interrupt-key-0000",
        ASSESS_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        CI: "true",
      },
      signal: stop.signal,
    });
    // Before, the run waited for the listing's answer (answered 1), then stopped.
    expect({ code: r.code, requests, answered }).toEqual({ code: 130, requests: 1, answered: 0 });
    expect(r.stderr).not.toMatch(/retrying/);
  } finally {
    for (const timer of timers) clearTimeout(timer);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}, 60_000);

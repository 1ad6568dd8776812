import type { Context } from "../../context.js";
import { flag } from "../shared/flags.js";
import { listenError } from "../shared/listen.js";
import { type OptionsOf, verb } from "../shared/verb.js";

const flags = {
  port: flag.int(0, 65535, "port to listen on (0 = any free port)").default("4010"),
  host: flag.text("<host>", "address to bind").default("127.0.0.1"),
  state: flag.text("<file.json>", "keep the sandbox's data in this file across restarts"),
  prefix: flag.text("<path>", "serve the assessment API under this path prefix (e.g. /api)").default(""),
  skillsPrefix: flag
    .text("<path>", "serve the employee-skills API under this path prefix")
    .default("/skills"),
  latency: flag.int(0, 600_000, "add this much latency to every answer", "<ms>").default("0"),
};

export default verb({
  summary: "Run a local emulator of the whole service (two demo accounts, seeded data) until Ctrl-C",
  flags,
  examples: [
    "assess sandbox",
    "assess sandbox --port 0 --state sandbox.json",
    "ASSESS_BASE_URL=http://127.0.0.1:4010 ASSESS_SKILLS_BASE_URL=http://127.0.0.1:4010/skills assess tests list",
  ],
  run,
});

async function run(ctx: Context, o: OptionsOf<typeof flags>): Promise<number> {
  const { startSandbox, SANDBOX_KEYS } = await import("../../sandbox/index.js");
  const sandbox = await startSandbox({
    port: o.port,
    host: o.host,
    stateFile: o.state,
    assessPrefix: o.prefix,
    skillsPrefix: o.skillsPrefix,
    latencyMs: o.latency,
    log: ctx.debugEnabled ? (line) => ctx.info(line) : undefined,
  }).catch((error) => {
    // A socket's error (a port in use) is the user's to change; the state file's are not socket errors.
    throw typeof error?.syscall === "string" ? listenError(o.host, o.port, error) : error;
  });
  ctx.info(
    [
      `Sandbox listening at ${sandbox.url} (employee skills at ${sandbox.skillsUrl})`,
      "",
      "Point assess at it from another shell:",
      `  export ASSESS_BASE_URL=${sandbox.url}`,
      `  export ASSESS_SKILLS_BASE_URL=${sandbox.skillsUrl}`,
      // The comment on a line of its own: a wrapped one would not be a comment when pasted.
      `  # the demo account "acme" (the other one, "globex": ${SANDBOX_KEYS.globex})`,
      `  export ASSESS_API_KEY=${SANDBOX_KEYS.acme}`,
      "",
      o.state ? `Data is kept in ${o.state}.` : "Data lives in memory; pass --state file.json to keep it.",
      "Press Ctrl-C to stop.",
    ].join("\n"),
  );
  if (ctx.out.isJson) ctx.out.json({ url: sandbox.url, skillsUrl: sandbox.skillsUrl, keys: SANDBOX_KEYS });
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  await sandbox.close();
  ctx.info("Sandbox stopped.");
  return 0;
}

import type { Context } from "../../context.js";
import { int } from "../../parse/flags.js";
import * as z from "../../parse/zod.js";
import { listenError } from "../shared/listen.js";

export const options = z.object({
  port: int(0, 65535),
  host: z.string(),
  state: z.string().optional(),
  prefix: z.string(),
  skillsPrefix: z.string(),
  latency: int(0, 600_000),
});

export async function run(ctx: Context, o: z.infer<typeof options>): Promise<number> {
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

import type { Handler } from "../shared/kit.js";
import { parseIntInRange } from "../shared/options.js";

const serve: Handler = async (ctx, _args, o) => {
  const { startSandbox, SANDBOX_KEYS } = await import("../../sandbox/index.js");
  const sandbox = await startSandbox({
    port: parseIntInRange(o.port, "--port", 0, 65535),
    host: String(o.host),
    stateFile: o.state as string | undefined,
    assessPrefix: String(o.prefix ?? ""),
    skillsPrefix: String(o.skillsPrefix ?? ""),
    latencyMs: parseIntInRange(o.latency, "--latency", 0, 600_000),
    log: ctx.debugEnabled ? (line) => ctx.info(line) : undefined,
  });
  ctx.info(
    [
      `Sandbox listening at ${sandbox.url} (employee skills at ${sandbox.skillsUrl})`,
      "",
      "Point assess at it from another shell:",
      `  export ASSESS_BASE_URL=${sandbox.url}`,
      `  export ASSESS_SKILLS_BASE_URL=${sandbox.skillsUrl}`,
      `  export ASSESS_API_KEY=${SANDBOX_KEYS.acme}    # demo account "acme"; "globex": ${SANDBOX_KEYS.globex}`,
      "",
      o.state
        ? `Data is kept in ${String(o.state)}.`
        : "Data lives in memory; pass --state file.json to keep it.",
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
};
export default serve;

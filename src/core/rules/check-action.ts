/**
 * The checks of a rule's actions (invite, forward, append, exec), as the CLI reads the same values: a date as
 * `invite send --end` does, a destination as `--forward` does, a timeout as a duration (`30s`, `2m`).
 */
import { resolve } from "node:path";
import { isMap, isSeq, type Node } from "yaml";
import { escapeControls } from "../../escape.js";
import { parseDate, parseDuration } from "../../parse/dates.js";
import { parseDestination } from "../forward.js";
import { ACTION_KINDS, type Action, type ActionKind } from "./rule.js";
import type { N, YamlWalk } from "./yaml.js";

/** An --exec-like command of a rule runs at most this long by default (`timeout` changes it). */
const DEFAULT_EXEC_TIMEOUT_MS = 60_000;

/** The action of one list item (one key: its kind); `append`'s file is taken from `base`. */
export function checkAction(w: YamlWalk, node: N, key: string, base: string): Action | undefined {
  const fields = w.map(node, key, 4);
  if (!fields) return undefined;
  const line = w.line(node);
  const kinds = [...fields.keys()];
  const unknown = kinds.filter((kind) => !ACTION_KINDS.includes(kind as ActionKind));
  if (unknown.length > 0) {
    const pair = fields.get(unknown[0]!)!;
    w.problem(
      w.line(pair.key as Node),
      `${key}.${unknown[0]}`,
      `unknown action "${escapeControls(unknown[0]!)}" (one of ${ACTION_KINDS.join(", ")})`,
    );
    return undefined;
  }
  if (kinds.length !== 1) {
    w.problem(
      line,
      key,
      `an action is one of ${ACTION_KINDS.join(", ")}, one per list item (got ${kinds.length})`,
    );
    return undefined;
  }
  const kind = kinds[0] as ActionKind;
  const value = fields.get(kind)!.value;
  const at = `${key}.${kind}`;
  switch (kind) {
    case "invite":
      return invite(w, value, at, line);
    case "forward": {
      const text = w.string(value, at);
      if (text === undefined) return undefined;
      try {
        return { kind, destination: parseDestination(text, at), line };
      } catch (error) {
        w.problem(
          w.line(value),
          at,
          `${withoutKey((error as Error).message, at)} (a URL, slack:<webhook URL> or teams:<workflow URL>)`,
        );
        return undefined;
      }
    }
    case "append": {
      const text = w.string(value, at);
      if (text === undefined) return undefined;
      if (!/\.csv$/i.test(text)) {
        w.problem(w.line(value), at, `"${escapeControls(text)}" is no .csv file: append writes a CSV row`);
        return undefined;
      }
      return { kind, file: resolve(base, text), line };
    }
    case "exec":
      return exec(w, value, at, line);
  }
}

function invite(w: YamlWalk, node: N, key: string, line: number): Action | undefined {
  const fields = w.map(node, key, 5, ["test", "end", "start", "sendEmail", "timezone"]);
  if (!fields) return undefined;
  const test = w.required(fields, "test", key, node, (value, at) => w.id(value, at));
  const end = w.required(fields, "end", key, node, (value, at) => date(w, value, at, "end"));
  const startNode = fields.get("start");
  const start = startNode ? date(w, startNode.value, `${key}.start`, "start") : undefined;
  const sendNode = fields.get("sendEmail");
  let sendEmail = true;
  if (sendNode) {
    const value = w.scalar(sendNode.value);
    if (typeof value !== "boolean") {
      w.problem(
        w.line(sendNode.value),
        `${key}.sendEmail`,
        `expected true or false, got ${w.shown(sendNode.value)}`,
      );
      return undefined;
    }
    sendEmail = value;
  }
  const zone = fields.get("timezone");
  const timezone = zone ? w.id(zone.value, `${key}.timezone`, "a time zone id (a whole number)") : undefined;
  if (
    test === undefined ||
    end === undefined ||
    (startNode && start === undefined) ||
    (zone && timezone === undefined)
  )
    return undefined;
  // Read as the action reads them, both from one now.
  const now = new Date();
  if (start !== undefined && parseDate(end, "end", "end", now) <= parseDate(start, "start", "start", now)) {
    w.problem(
      w.line(fields.get("end")!.value),
      `${key}.end`,
      `${escapeControls(end)} is before start ${escapeControls(start)}: the end must be after the start`,
    );
    return undefined;
  }
  return { kind: "invite", test, end, start, sendEmail, timezone, line };
}

/** A date as the CLI's flags take it (`+7d`, `2026-12-01`, an ISO time), kept as written. */
function date(w: YamlWalk, node: N, key: string, bound: "start" | "end"): string | undefined {
  const value = w.scalar(node);
  const text = value instanceof Date ? value.toISOString() : typeof value === "string" ? value : undefined;
  if (text === undefined) {
    w.problem(w.line(node), key, `expected a date (+7d, 2026-12-01, an ISO time), got ${w.shown(node)}`);
    return undefined;
  }
  let when: Date;
  try {
    when = parseDate(text, bound, key);
  } catch (error) {
    w.problem(w.line(node), key, withoutKey((error as Error).message, key));
    return undefined;
  }
  // As invite send refuses one: every invitation the rule sends would be expired from the start.
  if (bound === "end" && when.getTime() < Date.now() - 60_000) {
    const span = /^\s*\d+\s*[a-z]/i.test(text) && !/^\s*\d{4}-/.test(text);
    w.problem(
      w.line(node),
      key,
      `"${escapeControls(text)}" is in the past${span ? " (a span without + counts back from now)" : ""}: the invitation would be expired from the start; ${span ? `write +${text.trim()} to count forward` : "give a later date, or a span such as +7d (7 days from now)"}`,
    );
    return undefined;
  }
  return text;
}

function exec(w: YamlWalk, node: N, key: string, line: number): Action | undefined {
  const resolved = w.resolve(node);
  let commandNode: N = node;
  let timeoutMs = DEFAULT_EXEC_TIMEOUT_MS;
  let at = key;
  if (isMap(resolved)) {
    const fields = w.map(node, key, 5, ["command", "timeout"]);
    if (!fields) return undefined;
    commandNode = fields.get("command")?.value;
    at = `${key}.command`;
    if (!commandNode) {
      w.problem(
        line,
        at,
        "missing: the command to run (a string for the shell, or a list: program and arguments)",
      );
      return undefined;
    }
    const timeout = fields.get("timeout");
    if (timeout) {
      const text = w.string(timeout.value, `${key}.timeout`);
      if (text === undefined) return undefined;
      try {
        timeoutMs = parseDuration(text, `${key}.timeout`);
      } catch (error) {
        w.problem(
          w.line(timeout.value),
          `${key}.timeout`,
          withoutKey((error as Error).message, `${key}.timeout`),
        );
        return undefined;
      }
    }
  }
  if (isSeq(w.resolve(commandNode))) {
    const items = w.seq(commandNode, at, 6) ?? [];
    const argv = items.map((item, i) => w.string(item, `${at}[${i}]`));
    if (items.length === 0) w.problem(w.line(commandNode), at, "the list is empty: give the program first");
    return items.length > 0 && argv.every((a) => a !== undefined)
      ? { kind: "exec", command: argv as string[], timeoutMs, line }
      : undefined;
  }
  const command = w.string(commandNode, at);
  return command === undefined ? undefined : { kind: "exec", command, timeoutMs, line };
}

/** A flag parser's message without the key it was given (`k: "x" is not a URL`, `k must be …`): the problem names it. */
function withoutKey(message: string, key: string): string {
  return message.startsWith(key) ? message.slice(key.length).replace(/^:?\s*/, "") : message;
}

/**
 * A rules file (`attempts watch --rules`, `rules check`, `rules test`): for each finished attempt of a test, a
 * condition on its report and the actions to take once when it holds. Read from YAML with every problem named
 * by its file, line and key (`rules.yaml:7: rules[0].actions[1]: unknown action "invit"`), all of them at once;
 * bounded (size, nesting, aliases) since a file may come from anywhere.
 *
 *   rules:
 *     - name: advance            # unique: with the attempt, it keys each action's one run
 *       test: 1001               # a test id, a list of them, or `any`
 *       when:                    # all must hold; left out, every finished attempt matches
 *         score: { atLeast: 70 } # the report's score percentage; `below` too
 *         status: Complete       # or a list: Complete, TestLeft, Terminated
 *         sections: { SQL: { atLeast: 50 } }
 *       actions:
 *         - invite: { test: 1002, end: +7d }
 *         - forward: slack:https://hooks.slack.com/services/…
 *         - append: shortlist.csv
 *         - exec: [./advance.sh, --stage, "2"]
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import {
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type Pair,
  parseDocument,
} from "yaml";
import { CliError, UsageError } from "../../errors.js";
import { escapeControls } from "../../escape.js";
import { parseDate, parseDuration } from "../../parse/dates.js";
import { FINAL_STATUSES } from "../../spec/final-statuses.js";
import { type Destination, describeDestination, parseDestination } from "../forward.js";

/** A rules file larger than this is not one a person wrote. */
export const MAX_RULES_BYTES = 1024 * 1024;
/** Deeper nesting than a rules file needs (it needs 6) is refused before it is walked further. */
const MAX_DEPTH = 16;
/**
 * Checked on the text before the YAML parser sees it (it recurses: 10,000 nested brackets exhaust its memory):
 * brackets ([ {) open at once, and columns of a line's indentation (spaces, `-`, `?`).
 */
const MAX_FLOW_DEPTH = 16;
const MAX_INDENT_COLUMNS = 64;
/** Aliases (`*name`) followed: enough to share a few actions, too few to blow up (billion laughs). */
const MAX_ALIASES = 64;
/** Nodes visited, aliases followed included. */
const MAX_NODES = 100_000;
/** An --exec-like command of a rule runs at most this long by default (`timeout` changes it). */
export const DEFAULT_EXEC_TIMEOUT_MS = 60_000;

export interface Bounds {
  atLeast?: number;
  below?: number;
}

export interface Condition {
  score?: Bounds;
  /** As FINAL_STATUSES spells them; compared by statusKey. */
  status?: string[];
  sections?: Array<{ name: string } & Bounds>;
}

interface Located {
  /** The line of the file it was declared on, for messages. */
  line: number;
}

export type Action = Located &
  (
    | {
        kind: "invite";
        test: number;
        /** As written (`+7d`, an ISO time): read when the action runs, so a relative end counts from then. */
        end: string;
        start?: string;
        sendEmail: boolean;
        timezone?: number;
      }
    | { kind: "forward"; destination: Destination }
    | { kind: "append"; file: string }
    | {
        kind: "exec";
        /** A string runs through the shell, as --exec; a list is the program and its arguments, no shell. */
        command: string | string[];
        timeoutMs: number;
      }
  );

export type ActionKind = Action["kind"];
export const ACTION_KINDS: readonly ActionKind[] = ["invite", "forward", "append", "exec"];

export interface Rule extends Located {
  name: string;
  /** Test ids, or every test. */
  tests: number[] | "any";
  /** The line of `test:`. */
  testLine: number;
  when: Condition;
  actions: Action[];
}

export interface Rules {
  file: string;
  rules: Rule[];
}

/** One problem of a rules file, where it is. */
export interface RuleProblem {
  line: number;
  key: string;
  message: string;
}

/** `rules.yaml:7: rules[0].when.score: …` */
export function describeProblem(file: string, p: RuleProblem): string {
  return `${file}:${p.line}: ${p.key ? `${p.key}: ` : ""}${p.message}`;
}

/** A rules file's problems, all of them (exit 2: nothing was sent). */
export function rulesError(file: string, problems: RuleProblem[]): UsageError {
  const lines = problems.map((p) => describeProblem(file, p));
  const message =
    lines.length === 1
      ? lines[0]!
      : `${file} has ${lines.length} problems:\n${lines.map((l) => `  ${l}`).join("\n")}`;
  return new UsageError(
    message,
    "Fix the file and check it with `assess rules check`; `assess rules check --help` shows the format.",
    lines,
  );
}

/** Reads and checks a rules file; every problem at once as one UsageError (exit 2). */
export function readRules(file: string): Rules {
  let text: string;
  try {
    const info = statSync(file);
    if (!info.isFile())
      throw new UsageError(`${file} is not a file`, "Give the path of a rules file (YAML).");
    if (info.size > MAX_RULES_BYTES) {
      throw new UsageError(
        `${file} is ${info.size} bytes: a rules file is at most ${MAX_RULES_BYTES} (1 MiB)`,
        "Give the rules file itself.",
      );
    }
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (error instanceof CliError) throw error;
    const code = (error as { code?: string }).code;
    if (code === "ENOENT") throw new UsageError(`No rules file at ${file}`, "Check the path.");
    throw new UsageError(`Cannot read the rules file ${file}: ${(error as Error).message}`);
  }
  const { rules, problems } = parseRules(text, dirname(resolve(file)));
  if (problems.length > 0) throw rulesError(file, problems);
  return { file, rules };
}

/** Parses the text of a rules file; paths (`append`) are taken from `base`, the file's folder. */
export function parseRules(text: string, base: string): { rules: Rule[]; problems: RuleProblem[] } {
  const deep = tooDeep(text);
  if (deep !== undefined) {
    return {
      rules: [],
      problems: [{ line: deep, key: "", message: "nested deeper than a rules file needs: refused unread" }],
    };
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const problems: RuleProblem[] = [];
  for (const error of doc.errors) {
    const line = error.linePos?.[0]?.line ?? lines.linePos(error.pos[0]).line;
    problems.push({ line, key: "", message: error.message.split("\n")[0]! });
  }
  if (problems.length > 0) return { rules: [], problems };
  const reader = new Reader(doc, lines, problems, base);
  const rules = reader.file();
  problems.sort((a, b) => a.line - b.line);
  // A part left out for its problem (an unknown key) may leave a rule that reads as whole: none is kept then.
  return { rules: problems.length > 0 ? [] : rules, problems };
}

type N = Node | null | undefined;

/**
 * The first line nesting deeper than MAX_FLOW_DEPTH brackets or indented beyond MAX_INDENT_COLUMNS. A scan of
 * the text, not a parse: quotes start only where a scalar may, `#` after a blank; a bracket within a plain
 * scalar counts too (a rules file has none to spare).
 */
function tooDeep(text: string): number | undefined {
  let line = 1;
  let depth = 0;
  let indent = 0;
  let atStart = true;
  let comment = false;
  let quote: string | undefined;
  let previous = "\n";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\n") {
      line++;
      indent = 0;
      atStart = true;
      comment = false;
      previous = c;
      continue;
    }
    if (comment) continue;
    if (quote !== undefined) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) {
        if (quote === "'" && text[i + 1] === "'") i++;
        else quote = undefined;
      }
      continue;
    }
    if (atStart) {
      if (c === " " || c === "\t" || c === "-" || c === "?") {
        if (++indent > MAX_INDENT_COLUMNS) return line;
        previous = c === "-" || c === "?" ? c : previous;
        continue;
      }
      atStart = false;
    }
    if (c === "#" && /\s/.test(previous)) comment = true;
    else if ((c === '"' || c === "'") && /[\s:,[{?-]/.test(previous)) quote = c;
    else if (c === "[" || c === "{") {
      if (++depth > MAX_FLOW_DEPTH) return line;
    } else if ((c === "]" || c === "}") && depth > 0) depth--;
    if (c !== " " && c !== "\t") previous = c;
    else previous = " ";
  }
  return undefined;
}

/** Walks the document's nodes with their lines, noting each problem under its key. */
class Reader {
  private aliases = 0;
  /** The rules' names so far, each with its line. */
  private readonly names = new Map<string, number>();
  private nodes = 0;
  private stopped = false;

  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
    private readonly problems: RuleProblem[],
    private readonly base: string,
  ) {}

  file(): Rule[] {
    const root = this.doc.contents;
    if (root === null || root === undefined) {
      this.problem(1, "", "the file is empty: it needs a list under `rules:`");
      return [];
    }
    const top = this.map(root as Node, "", 0, ["rules"]);
    if (!top) return [];
    const list = top.get("rules");
    if (!list) {
      this.problem(this.line(root as Node), "", "no `rules:` list");
      return [];
    }
    const items = this.seq(list.value, "rules", 1);
    if (!items) return [];
    if (items.length === 0) this.problem(this.line(list.value), "rules", "the list is empty");
    const rules: Rule[] = [];
    items.forEach((item, i) => {
      const rule = this.rule(item, `rules[${i}]`);
      if (rule) rules.push(rule);
    });
    return this.stopped ? [] : rules;
  }

  private rule(node: N, key: string): Rule | undefined {
    const fields = this.map(node, key, 2, ["name", "test", "when", "actions"]);
    if (!fields) return undefined;
    const line = this.line(node);
    const name = this.required(fields, "name", key, node, (value, at) => this.name(value, at));
    const tests = this.required(fields, "test", key, node, (value, at) => this.tests(value, at));
    const whenNode = fields.get("when");
    const when = whenNode ? this.condition(whenNode.value, `${key}.when`) : {};
    const actions = this.required(fields, "actions", key, node, (value, at) => {
      const items = this.seq(value, at, 3);
      if (!items) return undefined;
      if (items.length === 0) this.problem(this.line(value), at, "a rule needs at least one action");
      const out = items.map((item, i) => this.action(item, `${at}[${i}]`));
      return out.every((a) => a !== undefined) ? (out as Action[]) : undefined;
    });
    if (name === undefined || tests === undefined || when === undefined || actions === undefined)
      return undefined;
    return { name, tests, testLine: this.line(fields.get("test")!.value), when, actions, line };
  }

  private name(node: N, key: string): string | undefined {
    const text = this.string(node, key);
    if (text === undefined) return undefined;
    if (!/^[\w][\w .-]{0,63}$/.test(text)) {
      this.problem(
        this.line(node),
        key,
        `"${escapeControls(text)}" is no rule name: letters, digits, spaces, ".", "-" and "_", at most 64`,
      );
      return undefined;
    }
    const earlier = this.names.get(text);
    if (earlier !== undefined) {
      this.problem(this.line(node), key, `"${text}" is also the name of the rule on line ${earlier}`);
      return undefined;
    }
    this.names.set(text, this.line(node));
    return text;
  }

  private tests(node: N, key: string): number[] | "any" | undefined {
    const value = this.scalar(node);
    if (typeof value === "string" && value.trim().toLowerCase() === "any") return "any";
    if (isSeq(this.resolve(node))) {
      const items = this.seq(node, key, 3) ?? [];
      const ids = items.map((item, i) => this.id(item, `${key}[${i}]`));
      if (items.length === 0) this.problem(this.line(node), key, "give at least one test id, or `any`");
      return ids.every((id) => id !== undefined) && ids.length > 0 ? (ids as number[]) : undefined;
    }
    const id = this.id(node, key, "a test id, a list of test ids, or `any`");
    return id === undefined ? undefined : [id];
  }

  private id(node: N, key: string, wanted = "a test id (a whole number)"): number | undefined {
    const value = this.scalar(node);
    const n =
      typeof value === "number" ? value : typeof value === "string" ? Number(value.trim()) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < 1 || (typeof value === "string" && !/^\s*\d+\s*$/.test(value))) {
      this.problem(this.line(node), key, `expected ${wanted}, got ${this.shown(node)}`);
      return undefined;
    }
    return n;
  }

  private condition(node: N, key: string): Condition | undefined {
    const fields = this.map(node, key, 3, ["score", "status", "sections"]);
    if (!fields) return undefined;
    const condition: Condition = {};
    let ok = true;
    const score = fields.get("score");
    if (score) {
      const bounds = this.bounds(score.value, `${key}.score`);
      if (bounds) condition.score = bounds;
      else ok = false;
    }
    const status = fields.get("status");
    if (status) {
      const values = this.status(status.value, `${key}.status`);
      if (values) condition.status = values;
      else ok = false;
    }
    const sections = fields.get("sections");
    if (sections) {
      const map = this.map(sections.value, `${key}.sections`, 4);
      if (!map) ok = false;
      else {
        condition.sections = [];
        for (const [name, pair] of map) {
          const bounds = this.bounds(pair.value, `${key}.sections.${name}`);
          if (bounds) condition.sections.push({ name, ...bounds });
          else ok = false;
        }
      }
    }
    return ok ? condition : undefined;
  }

  /** `{ atLeast: 70 }`, `{ below: 40 }` or both: percentages from 0 to 100. */
  private bounds(node: N, key: string): Bounds | undefined {
    const fields = this.map(node, key, 5, ["atLeast", "below"]);
    if (!fields) return undefined;
    if (fields.size === 0 && (this.resolve(node) as { items: unknown[] }).items.length === 0) {
      this.problem(this.line(node), key, "give atLeast, below or both (score percentages, 0-100)");
      return undefined;
    }
    const bounds: Bounds = {};
    for (const [name, pair] of fields) {
      const value = this.scalar(pair.value);
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 100) {
        this.problem(
          this.line(pair.value),
          `${key}.${name}`,
          `expected a score percentage from 0 to 100, got ${this.shown(pair.value)}`,
        );
        return undefined;
      }
      bounds[name as keyof Bounds] = value;
    }
    if (bounds.atLeast !== undefined && bounds.below !== undefined && bounds.below <= bounds.atLeast) {
      this.problem(
        this.line(node),
        key,
        `below ${bounds.below} and at least ${bounds.atLeast}: no score is both`,
      );
      return undefined;
    }
    return bounds;
  }

  private status(node: N, key: string): string[] | undefined {
    const items = isSeq(this.resolve(node)) ? (this.seq(node, key, 4) ?? []) : [node];
    const out: string[] = [];
    for (const [i, item] of items.entries()) {
      const at = items.length > 1 || isSeq(this.resolve(node)) ? `${key}[${i}]` : key;
      const text = this.string(item, at);
      if (text === undefined) return undefined;
      const known = FINAL_STATUSES.find((s) => statusKey(s) === statusKey(text));
      if (known === undefined) {
        this.problem(
          this.line(item),
          at,
          `unknown status "${escapeControls(text)}" (one of ${FINAL_STATUSES.join(", ")})`,
        );
        return undefined;
      }
      out.push(known);
    }
    if (out.length === 0) this.problem(this.line(node), key, `give a status (${FINAL_STATUSES.join(", ")})`);
    return out.length > 0 ? out : undefined;
  }

  private action(node: N, key: string): Action | undefined {
    const fields = this.map(node, key, 4);
    if (!fields) return undefined;
    const line = this.line(node);
    const kinds = [...fields.keys()];
    const unknown = kinds.filter((kind) => !ACTION_KINDS.includes(kind as ActionKind));
    if (unknown.length > 0) {
      const pair = fields.get(unknown[0]!)!;
      this.problem(
        this.line(pair.key as Node),
        `${key}.${unknown[0]}`,
        `unknown action "${escapeControls(unknown[0]!)}" (one of ${ACTION_KINDS.join(", ")})`,
      );
      return undefined;
    }
    if (kinds.length !== 1) {
      this.problem(
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
        return this.invite(value, at, line);
      case "forward": {
        const text = this.string(value, at);
        if (text === undefined) return undefined;
        try {
          return { kind, destination: parseDestination(text, at), line };
        } catch (error) {
          this.problem(
            this.line(value),
            at,
            `${withoutKey((error as Error).message, at)} (a URL, slack:<webhook URL> or teams:<workflow URL>)`,
          );
          return undefined;
        }
      }
      case "append": {
        const text = this.string(value, at);
        if (text === undefined) return undefined;
        if (!/\.csv$/i.test(text)) {
          this.problem(
            this.line(value),
            at,
            `"${escapeControls(text)}" is no .csv file: append writes a CSV row`,
          );
          return undefined;
        }
        return { kind, file: resolve(this.base, text), line };
      }
      case "exec":
        return this.exec(value, at, line);
    }
  }

  private invite(node: N, key: string, line: number): Action | undefined {
    const fields = this.map(node, key, 5, ["test", "end", "start", "sendEmail", "timezone"]);
    if (!fields) return undefined;
    const test = this.required(fields, "test", key, node, (value, at) => this.id(value, at));
    const end = this.required(fields, "end", key, node, (value, at) => this.date(value, at, "end"));
    const startNode = fields.get("start");
    const start = startNode ? this.date(startNode.value, `${key}.start`, "start") : undefined;
    const sendNode = fields.get("sendEmail");
    let sendEmail = true;
    if (sendNode) {
      const value = this.scalar(sendNode.value);
      if (typeof value !== "boolean") {
        this.problem(
          this.line(sendNode.value),
          `${key}.sendEmail`,
          `expected true or false, got ${this.shown(sendNode.value)}`,
        );
        return undefined;
      }
      sendEmail = value;
    }
    const zone = fields.get("timezone");
    const timezone = zone
      ? this.id(zone.value, `${key}.timezone`, "a time zone id (a whole number)")
      : undefined;
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
      this.problem(
        this.line(fields.get("end")!.value),
        `${key}.end`,
        `${escapeControls(end)} is before start ${escapeControls(start)}: the end must be after the start`,
      );
      return undefined;
    }
    return { kind: "invite", test, end, start, sendEmail, timezone, line };
  }

  /** A date as the CLI's flags take it (`+7d`, `2026-12-01`, an ISO time), kept as written. */
  private date(node: N, key: string, bound: "start" | "end"): string | undefined {
    const value = this.scalar(node);
    const text = value instanceof Date ? value.toISOString() : typeof value === "string" ? value : undefined;
    if (text === undefined) {
      this.problem(
        this.line(node),
        key,
        `expected a date (+7d, 2026-12-01, an ISO time), got ${this.shown(node)}`,
      );
      return undefined;
    }
    let when: Date;
    try {
      when = parseDate(text, bound, key);
    } catch (error) {
      this.problem(this.line(node), key, withoutKey((error as Error).message, key));
      return undefined;
    }
    // As invite send refuses one: every invitation the rule sends would be expired from the start.
    if (bound === "end" && when.getTime() < Date.now() - 60_000) {
      const span = /^\s*\d+\s*[a-z]/i.test(text) && !/^\s*\d{4}-/.test(text);
      this.problem(
        this.line(node),
        key,
        `"${escapeControls(text)}" is in the past${span ? " (a span without + counts back from now)" : ""}: the invitation would be expired from the start; ${span ? `write +${text.trim()} to count forward` : "give a later date, or a span such as +7d (7 days from now)"}`,
      );
      return undefined;
    }
    return text;
  }

  private exec(node: N, key: string, line: number): Action | undefined {
    const resolved = this.resolve(node);
    let commandNode: N = node;
    let timeoutMs = DEFAULT_EXEC_TIMEOUT_MS;
    let at = key;
    if (isMap(resolved)) {
      const fields = this.map(node, key, 5, ["command", "timeout"]);
      if (!fields) return undefined;
      commandNode = fields.get("command")?.value;
      at = `${key}.command`;
      if (!commandNode) {
        this.problem(
          line,
          at,
          "missing: the command to run (a string for the shell, or a list: program and arguments)",
        );
        return undefined;
      }
      const timeout = fields.get("timeout");
      if (timeout) {
        const text = this.string(timeout.value, `${key}.timeout`);
        if (text === undefined) return undefined;
        try {
          timeoutMs = parseDuration(text, `${key}.timeout`);
        } catch (error) {
          this.problem(
            this.line(timeout.value),
            `${key}.timeout`,
            withoutKey((error as Error).message, `${key}.timeout`),
          );
          return undefined;
        }
      }
    }
    if (isSeq(this.resolve(commandNode))) {
      const items = this.seq(commandNode, at, 6) ?? [];
      const argv = items.map((item, i) => this.string(item, `${at}[${i}]`));
      if (items.length === 0)
        this.problem(this.line(commandNode), at, "the list is empty: give the program first");
      return items.length > 0 && argv.every((a) => a !== undefined)
        ? { kind: "exec", command: argv as string[], timeoutMs, line }
        : undefined;
    }
    const command = this.string(commandNode, at);
    return command === undefined ? undefined : { kind: "exec", command, timeoutMs, line };
  }

  // --- The walk: maps, lists, scalars, with lines and bounds ---

  private required<T>(
    fields: Map<string, Pair<Node, Node>>,
    name: string,
    key: string,
    node: N,
    read: (value: N, key: string) => T | undefined,
  ): T | undefined {
    const pair = fields.get(name);
    if (!pair || pair.value === null || pair.value === undefined) {
      this.problem(this.line(pair?.key ?? node), key ? `${key}.${name}` : name, "missing");
      return undefined;
    }
    return read(pair.value, key ? `${key}.${name}` : name);
  }

  /**
   * A mapping's pairs by key; `allowed` names the keys it may have (any other is named, with its line, and left
   * out: the known keys beside it are still read, so that their problems are named in the same run).
   */
  private map(
    node: Node | null | undefined,
    key: string,
    depth: number,
    allowed?: string[],
  ): Map<string, Pair<Node, Node>> | undefined {
    const resolved = this.visit(node, key, depth);
    if (!isMap(resolved)) {
      if (resolved !== undefined)
        this.problem(this.line(node), key, `expected a mapping (key: value), got ${this.shown(node)}`);
      return undefined;
    }
    const fields = new Map<string, Pair<Node, Node>>();
    for (const pair of resolved.items) {
      if (!isPair(pair)) continue;
      const name = this.scalar(pair.key as Node);
      const at = (n: string) => (key ? `${key}.${n}` : n);
      if (typeof name !== "string") {
        this.problem(
          this.line(pair.key as Node),
          key,
          `a key must be a word, got ${this.shown(pair.key as Node)}`,
        );
        continue;
      }
      if (allowed && !allowed.includes(name)) {
        this.problem(
          this.line(pair.key as Node),
          at(name),
          `unknown key "${escapeControls(name)}"${allowed.length > 0 ? ` (one of ${allowed.join(", ")})` : ""}`,
        );
        continue;
      }
      fields.set(name, pair as Pair<Node, Node>);
    }
    return fields;
  }

  private seq(node: N, key: string, depth: number): N[] | undefined {
    const resolved = this.visit(node, key, depth);
    if (!isSeq(resolved)) {
      if (resolved !== undefined)
        this.problem(this.line(node), key, `expected a list, got ${this.shown(node)}`);
      return undefined;
    }
    return resolved.items as N[];
  }

  private string(node: N, key: string): string | undefined {
    const value = this.scalar(node);
    if (typeof value !== "string" || value.trim() === "") {
      this.problem(this.line(node), key, `expected text, got ${this.shown(node)}`);
      return undefined;
    }
    return value;
  }

  /** The node an alias stands for, counted against the bounds; undefined (and noted) past them. */
  private visit(node: N, key: string, depth: number): Node | undefined {
    if (this.stopped) return undefined;
    if (depth > MAX_DEPTH || ++this.nodes > MAX_NODES) {
      this.stop(node, key, `nested deeper than a rules file needs (at most ${MAX_DEPTH} levels)`);
      return undefined;
    }
    const resolved = this.resolve(node);
    if (resolved === undefined) this.problem(this.line(node), key, "missing");
    return resolved;
  }

  private resolve(node: N): Node | undefined {
    let current: unknown = node;
    while (isAlias(current)) {
      if (++this.aliases > MAX_ALIASES) {
        this.stop(current as Node, "", `more than ${MAX_ALIASES} aliases (*name): a rules file needs a few`);
        return undefined;
      }
      current = current.resolve(this.doc);
    }
    return (current ?? undefined) as Node | undefined;
  }

  private scalar(node: N): unknown {
    const resolved = this.resolve(node);
    return isScalar(resolved) ? resolved.value : resolved === undefined ? undefined : resolved;
  }

  private shown(node: N): string {
    const resolved = this.resolve(node);
    if (resolved === undefined || resolved === null) return "nothing";
    if (isMap(resolved)) return "a mapping";
    if (isSeq(resolved)) return "a list";
    const value = isScalar(resolved) ? resolved.value : resolved;
    if (value === null) return "nothing";
    const text = typeof value === "string" ? `"${value}"` : String(value);
    return escapeControls(text.length > 60 ? `${text.slice(0, 59)}…` : text);
  }

  private line(node: unknown): number {
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
    return range ? this.lines.linePos(range[0]).line : 1;
  }

  private problem(line: number, key: string, message: string): void {
    // Past a bound, what follows is not read: its problems would be made up.
    if (!this.stopped) this.problems.push({ line, key, message });
  }

  /** A bound passed: one problem, and no more walking (what follows could be as large). */
  private stop(node: unknown, key: string, message: string): void {
    this.problem(this.line(node), key, message);
    this.stopped = true;
  }
}

/** A flag parser's message without the key it was given (`k: "x" is not a URL`, `k must be …`): the problem names it. */
function withoutKey(message: string, key: string): string {
  return message.startsWith(key) ? message.slice(key.length).replace(/^:?\s*/, "") : message;
}

/** A status as rules compare it: `Complete` and `Completed` alike, `Test Left` as `TestLeft`, any case. */
export function statusKey(status: string): string {
  const key = status.toLowerCase().replace(/[\s_-]+/g, "");
  return key === "completed" ? "complete" : key;
}

/** Every test id a rules file names (its rules' tests and their invites' tests), each with its first line. */
export function testsNamed(rules: readonly Rule[]): Map<number, { line: number; key: string }> {
  const named = new Map<number, { line: number; key: string }>();
  rules.forEach((rule, i) => {
    if (rule.tests !== "any") {
      for (const id of rule.tests)
        if (!named.has(id)) named.set(id, { line: rule.testLine, key: `rules[${i}].test` });
    }
    rule.actions.forEach((action, j) => {
      if (action.kind === "invite" && !named.has(action.test))
        named.set(action.test, { line: action.line, key: `rules[${i}].actions[${j}].invite.test` });
    });
  });
  return named;
}

/** `invite to test 1002 (end +7d)`, `forward to Slack (hooks.slack.com)`, `append to /x/shortlist.csv`, `exec ./a.sh`. */
export function describeAction(action: Action): string {
  switch (action.kind) {
    case "invite":
      return `invite to test ${action.test} (end ${action.end}${action.sendEmail ? "" : ", no e-mail"})`;
    case "forward":
      return `forward to ${describeDestination(action.destination)}`;
    case "append":
      return `append to ${action.file}`;
    case "exec":
      return `exec ${typeof action.command === "string" ? action.command : action.command.join(" ")}`;
  }
}

/** `score ≥ 70, status Complete, section SQL < 40`; `every finished attempt` when there is no condition. */
export function describeCondition({ score, status, sections }: Condition): string {
  const bounds = (what: string, b: Bounds) =>
    [
      b.atLeast !== undefined ? `${what} ≥ ${b.atLeast}` : "",
      b.below !== undefined ? `${what} < ${b.below}` : "",
    ]
      .filter(Boolean)
      .join(", ");
  const parts = [
    score ? bounds("score", score) : "",
    status ? `status ${status.join(" or ")}` : "",
    ...(sections ?? []).map((s) => bounds(`section ${s.name}`, s)),
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(", ") : "every finished attempt";
}

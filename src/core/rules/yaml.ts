/**
 * A rules file's YAML, bounded since the file may come from anywhere: its nesting is checked on the text before
 * the parser sees it, and the walk of its nodes counts depth, nodes and aliases. Each node is read with its
 * line, and each problem noted under its key (`rules[0].when.score`) rather than thrown, so that a file's
 * problems are named all at once.
 */
import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  type Pair,
  parseDocument,
} from "yaml";
import { escapeControls } from "../../escape.js";
import type { RuleProblem } from "./problems.js";

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

export type N = Node | null | undefined;

/**
 * The document of `text` to walk, or undefined with its problems noted: nested too deep (refused unread) or not
 * YAML.
 */
export function walkYaml(text: string, problems: RuleProblem[]): YamlWalk | undefined {
  const deep = tooDeep(text);
  if (deep !== undefined) {
    problems.push({ line: deep, key: "", message: "nested deeper than a rules file needs: refused unread" });
    return undefined;
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  for (const error of doc.errors) {
    const line = error.linePos?.[0]?.line ?? lines.linePos(error.pos[0]).line;
    problems.push({ line, key: "", message: error.message.split("\n")[0]! });
  }
  return problems.length > 0 ? undefined : new YamlWalk(doc, lines, problems);
}

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

/** Walks a document's nodes with their lines and bounds: maps, lists, scalars; notes each problem under its key. */
export class YamlWalk {
  private aliases = 0;
  private nodes = 0;
  private halted = false;

  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
    private readonly problems: RuleProblem[],
  ) {}

  /** A bound was passed: nothing after it is read. */
  get stopped(): boolean {
    return this.halted;
  }

  /** The document's top node. */
  get root(): N {
    return this.doc.contents as N;
  }

  /** A whole number from 1: a test id, or what `wanted` says. */
  id(node: N, key: string, wanted = "a test id (a whole number)"): number | undefined {
    const value = this.scalar(node);
    const n =
      typeof value === "number" ? value : typeof value === "string" ? Number(value.trim()) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < 1 || (typeof value === "string" && !/^\s*\d+\s*$/.test(value))) {
      this.problem(this.line(node), key, `expected ${wanted}, got ${this.shown(node)}`);
      return undefined;
    }
    return n;
  }

  /** The field `name` of `fields` read by `read`; noted as missing when it is not there or empty. */
  required<T>(
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
  map(node: N, key: string, depth: number, allowed?: string[]): Map<string, Pair<Node, Node>> | undefined {
    const resolved = this.visit(node, key, depth);
    if (!isMap(resolved)) {
      if (resolved !== undefined)
        this.problem(this.line(node), key, `expected a mapping (key: value), got ${this.shown(node)}`);
      return undefined;
    }
    const fields = new Map<string, Pair<Node, Node>>();
    for (const pair of resolved.items) {
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
          `unknown key "${escapeControls(name)}" (one of ${allowed.join(", ")})`,
        );
        continue;
      }
      fields.set(name, pair as Pair<Node, Node>);
    }
    return fields;
  }

  seq(node: N, key: string, depth: number): N[] | undefined {
    const resolved = this.visit(node, key, depth);
    if (!isSeq(resolved)) {
      if (resolved !== undefined)
        this.problem(this.line(node), key, `expected a list, got ${this.shown(node)}`);
      return undefined;
    }
    return resolved.items as N[];
  }

  string(node: N, key: string): string | undefined {
    const value = this.scalar(node);
    if (typeof value !== "string" || value.trim() === "") {
      this.problem(this.line(node), key, `expected text, got ${this.shown(node)}`);
      return undefined;
    }
    return value;
  }

  /** The node an alias stands for, counted against the bounds; undefined (and noted) past them. */
  private visit(node: N, key: string, depth: number): Node | undefined {
    if (this.halted) return undefined;
    if (depth > MAX_DEPTH || ++this.nodes > MAX_NODES) {
      this.stop(node, key, `nested deeper than a rules file needs (at most ${MAX_DEPTH} levels)`);
      return undefined;
    }
    const resolved = this.resolve(node);
    if (resolved === undefined) this.problem(this.line(node), key, "missing");
    return resolved;
  }

  resolve(node: N): Node | undefined {
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

  /** A scalar's value, or the node itself (a mapping, a list); undefined for nothing. */
  scalar(node: N): unknown {
    const resolved = this.resolve(node);
    return isScalar(resolved) ? resolved.value : resolved;
  }

  /** The node for a message: `"text"`, `42`, `a list`, `nothing`, at most 60 characters. */
  shown(node: N): string {
    const resolved = this.resolve(node);
    if (resolved === undefined) return "nothing";
    if (isMap(resolved)) return "a mapping";
    if (isSeq(resolved)) return "a list";
    const value = isScalar(resolved) ? resolved.value : resolved;
    if (value === null) return "nothing";
    const text = typeof value === "string" ? `"${value}"` : String(value);
    return escapeControls(text.length > 60 ? `${text.slice(0, 59)}…` : text);
  }

  line(node: unknown): number {
    const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
    return range ? this.lines.linePos(range[0]).line : 1;
  }

  problem(line: number, key: string, message: string): void {
    // Past a bound, what follows is not read: its problems would be made up.
    if (!this.halted) this.problems.push({ line, key, message });
  }

  /** A bound passed: one problem, and no more walking (what follows could be as large). */
  private stop(node: unknown, key: string, message: string): void {
    this.problem(this.line(node), key, message);
    this.halted = true;
  }
}

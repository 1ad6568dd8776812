/**
 * The checks of a rule of a rules file, as its schema says (rule.ts): its name (unique), its tests, its
 * condition; its actions are checked by check-action.ts.
 */
import { isSeq } from "yaml";
import { escapeControls } from "../../escape.js";
import { FINAL_STATUSES } from "../../spec/final-statuses.js";
import { checkAction } from "./check-action.js";
import { type Action, type Bounds, type Condition, type Rule, statusKey } from "./rule.js";
import type { N, YamlWalk } from "./yaml.js";

/** Reads a rules file's rules from its YAML; paths (`append`) are taken from `base`, the file's folder. */
export class RuleChecks {
  /** The rules' names so far, each with its line. */
  private readonly names = new Map<string, number>();

  constructor(
    private readonly w: YamlWalk,
    private readonly base: string,
  ) {}

  /** The rules under `rules:`; none once a bound was passed. */
  file(): Rule[] {
    const root = this.w.root;
    if (root === null || root === undefined) {
      this.w.problem(1, "", "the file is empty: it needs a list under `rules:`");
      return [];
    }
    const top = this.w.map(root, "", 0, ["rules"]);
    if (!top) return [];
    const list = top.get("rules");
    if (!list) {
      this.w.problem(this.w.line(root), "", "no `rules:` list");
      return [];
    }
    const items = this.w.seq(list.value, "rules", 1);
    if (!items) return [];
    if (items.length === 0) this.w.problem(this.w.line(list.value), "rules", "the list is empty");
    const rules: Rule[] = [];
    items.forEach((item, i) => {
      const rule = this.rule(item, `rules[${i}]`);
      if (rule) rules.push(rule);
    });
    return this.w.stopped ? [] : rules;
  }

  private rule(node: N, key: string): Rule | undefined {
    const fields = this.w.map(node, key, 2, ["name", "test", "when", "actions"]);
    if (!fields) return undefined;
    const line = this.w.line(node);
    const name = this.w.required(fields, "name", key, node, (value, at) => this.name(value, at));
    const tests = this.w.required(fields, "test", key, node, (value, at) => this.tests(value, at));
    const whenNode = fields.get("when");
    const when = whenNode ? this.condition(whenNode.value, `${key}.when`) : {};
    const actions = this.w.required(fields, "actions", key, node, (value, at) => {
      const items = this.w.seq(value, at, 3);
      if (!items) return undefined;
      if (items.length === 0) this.w.problem(this.w.line(value), at, "a rule needs at least one action");
      const out = items.map((item, i) => checkAction(this.w, item, `${at}[${i}]`, this.base));
      return out.every((a) => a !== undefined) ? (out as Action[]) : undefined;
    });
    if (name === undefined || tests === undefined || when === undefined || actions === undefined)
      return undefined;
    return { name, tests, testLine: this.w.line(fields.get("test")!.value), when, actions, line };
  }

  private name(node: N, key: string): string | undefined {
    const text = this.w.string(node, key);
    if (text === undefined) return undefined;
    if (!/^[\w][\w .-]{0,63}$/.test(text)) {
      this.w.problem(
        this.w.line(node),
        key,
        `"${escapeControls(text)}" is no rule name: letters, digits, spaces, ".", "-" and "_", at most 64`,
      );
      return undefined;
    }
    const earlier = this.names.get(text);
    if (earlier !== undefined) {
      this.w.problem(this.w.line(node), key, `"${text}" is also the name of the rule on line ${earlier}`);
      return undefined;
    }
    this.names.set(text, this.w.line(node));
    return text;
  }

  private tests(node: N, key: string): number[] | "any" | undefined {
    const value = this.w.scalar(node);
    if (typeof value === "string" && value.trim().toLowerCase() === "any") return "any";
    if (isSeq(this.w.resolve(node))) {
      const items = this.w.seq(node, key, 3) ?? [];
      const ids = items.map((item, i) => this.w.id(item, `${key}[${i}]`));
      if (items.length === 0) this.w.problem(this.w.line(node), key, "give at least one test id, or `any`");
      return ids.every((id) => id !== undefined) && ids.length > 0 ? (ids as number[]) : undefined;
    }
    const id = this.w.id(node, key, "a test id, a list of test ids, or `any`");
    return id === undefined ? undefined : [id];
  }

  private condition(node: N, key: string): Condition | undefined {
    const fields = this.w.map(node, key, 3, ["score", "status", "sections"]);
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
      const map = this.w.map(sections.value, `${key}.sections`, 4);
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
    const fields = this.w.map(node, key, 5, ["atLeast", "below"]);
    if (!fields) return undefined;
    if (fields.size === 0 && (this.w.resolve(node) as { items: unknown[] }).items.length === 0) {
      this.w.problem(this.w.line(node), key, "give atLeast, below or both (score percentages, 0-100)");
      return undefined;
    }
    const bounds: Bounds = {};
    for (const [name, pair] of fields) {
      const value = this.w.scalar(pair.value);
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 100) {
        this.w.problem(
          this.w.line(pair.value),
          `${key}.${name}`,
          `expected a score percentage from 0 to 100, got ${this.w.shown(pair.value)}`,
        );
        return undefined;
      }
      bounds[name as keyof Bounds] = value;
    }
    if (bounds.atLeast !== undefined && bounds.below !== undefined && bounds.below <= bounds.atLeast) {
      this.w.problem(
        this.w.line(node),
        key,
        `below ${bounds.below} and at least ${bounds.atLeast}: no score is both`,
      );
      return undefined;
    }
    return bounds;
  }

  private status(node: N, key: string): string[] | undefined {
    const items = isSeq(this.w.resolve(node)) ? (this.w.seq(node, key, 4) ?? []) : [node];
    const out: string[] = [];
    for (const [i, item] of items.entries()) {
      const at = items.length > 1 || isSeq(this.w.resolve(node)) ? `${key}[${i}]` : key;
      const text = this.w.string(item, at);
      if (text === undefined) return undefined;
      const known = FINAL_STATUSES.find((s) => statusKey(s) === statusKey(text));
      if (known === undefined) {
        this.w.problem(
          this.w.line(item),
          at,
          `unknown status "${escapeControls(text)}" (one of ${FINAL_STATUSES.join(", ")})`,
        );
        return undefined;
      }
      out.push(known);
    }
    if (out.length === 0)
      this.w.problem(this.w.line(node), key, `give a status (${FINAL_STATUSES.join(", ")})`);
    return out.length > 0 ? out : undefined;
  }
}

/**
 * A proxy in front of the sandbox that reshapes its answers the ways the real service's answers differ from
 * the API's documentation (fixtures/real/README.md): other key casings, extra fields, envelopes, other list keys,
 * 201 for 200, and every documented error body shape. The tolerance property test runs commands through it.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";

export type Casing = "as-is" | "Pascal" | "snake_case" | "lower" | "UPPER";
export type Envelope = "none" | "result" | "data";
export type ListHome = "as-is" | "bare" | "items" | "data" | "result" | "value";
export type ErrorShape = "as-is" | "errors" | "result-null" | "statusCode" | "Message" | "text";

export interface Variant {
  casing: Casing;
  /** Extra fields added to every object (names start with `zz`, so the comparison can drop them). */
  extras: { name: string; value: unknown }[];
  envelope: Envelope;
  list: ListHome;
  /** Page metadata added beside a list: hasNextPage when it is known to be false (a short page). */
  pageMeta: boolean;
  created: boolean;
  errorShape: ErrorShape;
}

export const variantArb: fc.Arbitrary<Variant> = fc.record({
  casing: fc.constantFrom<Casing>("as-is", "Pascal", "snake_case", "lower", "UPPER"),
  extras: fc.array(
    fc.record({
      name: fc.stringMatching(/^[a-zA-Z]{1,8}$/).map((s) => `zz${s}`),
      value: fc.oneof(
        fc.string(),
        fc.integer(),
        fc.constant(null),
        fc.boolean(),
        fc.constant({ nested: [1] }),
      ),
    }),
    { maxLength: 2 },
  ),
  envelope: fc.constantFrom<Envelope>("none", "result", "data"),
  list: fc.constantFrom<ListHome>("as-is", "bare", "items", "data", "result", "value"),
  pageMeta: fc.boolean(),
  created: fc.boolean(),
  errorShape: fc.constantFrom<ErrorShape>("as-is", "errors", "result-null", "statusCode", "Message", "text"),
});

function recase(key: string, casing: Casing): string {
  switch (casing) {
    case "Pascal":
      return key.charAt(0).toUpperCase() + key.slice(1);
    case "snake_case":
      return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    case "lower":
      return key.toLowerCase();
    case "UPPER":
      return key.toUpperCase();
    default:
      return key;
  }
}

function reshapeValue(value: unknown, variant: Variant): unknown {
  if (Array.isArray(value)) return value.map((item) => reshapeValue(item, variant));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value))
    out[recase(key, variant.casing)] = reshapeValue(inner, variant);
  for (const extra of variant.extras) out[extra.name] = extra.value;
  return out;
}

/** The list an answer carries (bare, or the one array among its fields), and the rest of it. */
function listOf(data: unknown): { items: unknown[]; rest: Record<string, unknown> } | undefined {
  if (Array.isArray(data)) return { items: data, rest: {} };
  if (data === null || typeof data !== "object") return undefined;
  const entries = Object.entries(data);
  const arrays = entries.filter(([, value]) => Array.isArray(value));
  // A record that holds a list among other fields (a report's sections) is not a list answer.
  if (
    arrays.length !== 1 ||
    entries.some(([key, v]) => !Array.isArray(v) && !/count|page|total|next/i.test(key))
  )
    return undefined;
  const [key, items] = arrays[0] as [string, unknown[]];
  const rest = Object.fromEntries(entries.filter(([k]) => k !== key));
  return { items, rest };
}

export function reshapeAnswer(data: unknown, variant: Variant, pageSize: number | undefined): unknown {
  const list = listOf(data);
  if (list && variant.list !== "as-is") {
    const items = reshapeValue(list.items, variant) as unknown[];
    const meta: Record<string, unknown> = {};
    if (variant.pageMeta && pageSize !== undefined && items.length < pageSize) meta.hasNextPage = false;
    switch (variant.list) {
      case "bare":
        return items;
      case "result":
        return { result: items, errors: null, ...meta };
      default:
        return { [variant.list]: items, ...meta };
    }
  }
  const body = reshapeValue(data, variant);
  if (body === null || typeof body !== "object" || Array.isArray(body)) return body;
  if (variant.envelope === "result") return { result: body, errors: null };
  if (variant.envelope === "data") return { data: body };
  return body;
}

/** The messages of an error body of the sandbox's, in one of the documented shapes. */
export function reshapeError(
  status: number,
  data: unknown,
  shape: ErrorShape,
): { body: string; type: string } {
  const messages = messagesOf(data);
  const first = messages[0] ?? `HTTP ${status}`;
  // The 401 of process-callbacks names ids after its message: only its own shape carries them.
  if (messages.slice(1).some((m) => /^\d+$/.test(m)))
    return json({ result: null, errors: (data as { errors: unknown }).errors });
  switch (shape) {
    case "errors":
      return json({ errors: messages });
    case "result-null":
      return json({ result: null, errors: messages });
    case "statusCode":
      return json({ statusCode: status, message: messages.join("; ") });
    case "Message":
      return json({ Message: messages.join("; ") });
    case "text":
      return { body: messages.join("; "), type: "text/plain; charset=utf-8" };
    default:
      return json(data ?? { message: first });
  }
}

function json(value: unknown): { body: string; type: string } {
  return { body: JSON.stringify(value), type: "application/json; charset=utf-8" };
}

function messagesOf(data: unknown): string[] {
  if (data && typeof data === "object") {
    const record = data as Record<string, unknown>;
    if (Array.isArray(record.errors)) return record.errors.map(String);
    if (typeof record.message === "string") return [record.message];
  }
  return typeof data === "string" && data ? [data] : [];
}

export interface ReshapingProxy {
  url: string;
  /** The variant the next answers get. */
  variant: Variant;
  close(): Promise<void>;
}

/** Forwards every request to `target` (the sandbox's origin) and reshapes JSON answers per `variant`. */
export async function startReshapingProxy(target: string): Promise<ReshapingProxy> {
  const state: { variant: Variant } = {
    variant: {
      casing: "as-is",
      extras: [],
      envelope: "none",
      list: "as-is",
      pageMeta: false,
      created: false,
      errorShape: "as-is",
    },
  };
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) {
      if (typeof value === "string" && !["host", "connection", "content-length"].includes(key))
        headers.set(key, value);
    }
    const upstream = await fetch(new URL(req.url ?? "/", target), {
      method: req.method,
      headers,
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    });
    const bytes = Buffer.from(await upstream.arrayBuffer());
    const type = upstream.headers.get("content-type") ?? "";
    const variant = state.variant;
    let body: Buffer | string = bytes;
    let contentType = type;
    let status = upstream.status;
    let parsed: unknown;
    try {
      parsed = JSON.parse(bytes.toString("utf8"));
    } catch {
      parsed = undefined;
    }
    if (parsed !== undefined && !type.includes("pdf")) {
      if (status >= 200 && status < 300) {
        const pageSize = Number(new URL(req.url ?? "/", target).searchParams.get("pageSize") ?? Number.NaN);
        const pageSizeSkills = Number(
          new URL(req.url ?? "/", target).searchParams.get("PageSize") ?? Number.NaN,
        );
        const size = Number.isFinite(pageSize)
          ? pageSize
          : Number.isFinite(pageSizeSkills)
            ? pageSizeSkills
            : undefined;
        body = JSON.stringify(reshapeAnswer(parsed, variant, size));
        if (status === 200 && variant.created) status = 201;
      } else {
        const shaped = reshapeError(status, parsed, variant.errorShape);
        body = shaped.body;
        contentType = shaped.type;
      }
    }
    const out: Record<string, string> = { "content-length": String(Buffer.byteLength(body)) };
    if (contentType) out["content-type"] = contentType;
    const retryAfter = upstream.headers.get("retry-after");
    if (retryAfter) out["retry-after"] = retryAfter;
    res.writeHead(status, out);
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get variant() {
      return state.variant;
    },
    set variant(value: Variant) {
      state.variant = value;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Keys folded (case, `_`) and the proxy's extra fields dropped, all the way down: data to compare. */
export function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalized);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !/^zz/i.test(key))
      .map(([key, inner]) => [key.replace(/[_\-\s]/g, "").toLowerCase(), normalized(inner)])
      .sort(([a], [b]) => String(a).localeCompare(String(b))),
  );
}

/** The sandbox's clock in the tolerance property (test/real/tolerance.test.ts, and `npm run bench:large`). */
export const NOW = new Date("2025-06-15T12:00:00Z");

/** Reads (and idempotent writes) over every kind of answer: pages, records, lists in envelopes, errors. */
export const COMMANDS: string[][] = [
  ["tests", "list", "--all", "--page-size", "2"],
  ["tests", "get", "1001"],
  ["tests", "settings", "get", "1001"],
  ["links", "list", "--test", "1001"],
  ["links", "get", "3001", "--test", "1001"],
  ["attempts", "list", "--from", "2025-04-20", "--to", "2025-06-15"],
  ["reports", "export", "--from", "2025-06-01", "--to", "2025-06-15", "--test", "1001"],
  ["employees", "list", "--all", "--page-size", "20"],
  ["employees", "skills-profiles", "--page-size", "5"],
  ["employees", "skills", "501"],
  ["employees", "certificates", "501"],
  ["employees", "skill-gap", "501"],
  ["invite", "send", "--test", "1001", "--email", "same.person@example.com", "--name", "Same Person"],
  ["tests", "get", "999999"],
  ["reports", "get", "1"],
  ["links", "get", "1", "--test", "1001"],
  // A 400 of the service (an e-mail already taken); a malformed one is refused before sending.
  ["users", "create", "--email", "admin@acme.example", "--name", "X"],
  ["users", "status", "--email", "nobody@example.com", "--status", "Retired"],
  ["callbacks", "resend", "1", "2", "--restart"],
];

/** What a command shows, to compare straight against the sandbox and through the proxy. */
export interface Seen {
  code: number;
  json: unknown;
  tsv: string;
  errors: string[];
}

/** A bulk run's ledger is named after its target, which differs through the proxy. */
function stable(text: string): string {
  return text.replace(/ledgers\/[\w.-]+/g, "ledgers/…");
}

/** `argv` run twice by `run` (with --json, then -o tsv): its exit code, data, table and error lines. */
export async function observeCommand(
  run: (argv: string[]) => Promise<{ code: number; stdout: string; stderr: string }>,
  argv: string[],
): Promise<Seen> {
  const json = await run([...argv, "--json"]);
  const tsv = await run([...argv, "-o", "tsv"]);
  const errors = json.stderr.split("\n").filter((line) => line.startsWith("error:"));
  return {
    code: json.code,
    json: json.stdout.trim() ? normalized(JSON.parse(stable(json.stdout))) : undefined,
    tsv: stable(tsv.stdout),
    errors,
  };
}

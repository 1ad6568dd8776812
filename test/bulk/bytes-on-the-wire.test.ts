/**
 * Each row is checked and serialized once, in the check pass; the sending pass and the API
 * layer only join those bytes. Here the bytes of every request `employees upsert` and `invite bulk` send are
 * compared with what the row-by-row path sends: each row made into its item on its own (the API layer's
 * schema, which writes fields in the documented order, and JSON.stringify), the chunk's items put into the
 * request body as one JSON.stringify. A recording proxy in front of the sandbox keeps each body's raw bytes
 * (the sandbox keeps them parsed); the sandbox's record is checked too.
 */
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmployeeUpsertItem } from "../../src/api/schemas.js";
import { useTempDir, useTestEnv } from "../helpers/cli.js";

interface Raw {
  method: string;
  url: string;
  body: Buffer;
}

/** Forwards every request to `target` unchanged, keeping its body's bytes. */
async function recordingProxy(target: URL): Promise<{ server: Server; origin: string; seen: Raw[] }> {
  const seen: Raw[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? "", url: req.url ?? "", body });
      const out = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on("error", () => res.destroy());
      out.end(body);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { server, origin: `http://127.0.0.1:${port}`, seen };
}

const env = useTestEnv();
const tmp = useTempDir();
let proxy: Awaited<ReturnType<typeof recordingProxy>>;
beforeAll(async () => {
  proxy = await recordingProxy(new URL(env.sandbox.url));
});
afterAll(() => {
  proxy.server.close();
});

/** Runs the CLI through the proxy; returns the raw bodies of the requests to `path` it made. */
async function sent(argv: string[], path: RegExp): Promise<{ code: number; bodies: string[] }> {
  const from = proxy.seen.length;
  const mark = env.sandbox.requests.length;
  const run = await env.run(argv, {
    env: { ASSESS_BASE_URL: `${proxy.origin}/api`, ASSESS_SKILLS_BASE_URL: `${proxy.origin}/skills` },
  });
  const raw = proxy.seen.slice(from).filter((r) => r.method === "POST" && path.test(r.url));
  const recorded = env.sandbox.requests.slice(mark).filter((r) => r.method === "POST" && path.test(r.rawUrl));
  // The sandbox read the same requests: what it recorded is each body, parsed.
  expect(recorded.map((r) => r.body)).toEqual(raw.map((r) => JSON.parse(r.body.toString("utf8"))));
  expect(run.stderr).not.toMatch(/refused|error/i);
  return { code: run.code, bodies: raw.map((r) => r.body.toString("utf8")) };
}

/** A CSV file of `rows` under `header`; values with a comma, quote, line break or edge space are quoted. */
function csv(header: string[], rows: string[][]): string {
  const cell = (v: string) => (/[",\n\r]|^\s|\s$/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
  return `${[header, ...rows].map((r) => r.map(cell).join(",")).join("\r\n")}\r\n`;
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** One employee as the documentation describes it, keyed by field name (custom fields: `custom.<name>`). */
type Person = Record<string, string>;

const PEOPLE: Person[] = [
  {
    email: "zoe.ngo@example.com",
    firstName: "Zoë",
    lastName: 'O"Brien, "Jr."',
    jobCode: "SWE1",
    externalEmployeeId: "EXT-1",
    department: "R&D / Ünïcödé",
    hireDate: "2021-03-04",
    "custom.Cost Center": "CC-7",
    "custom.Badge": "line one\nline two",
  },
  {
    email: "Mixed.Case@Example.com",
    firstName: "  José  ",
    lastName: "Ñúñez",
    jobCode: "DATA1",
    location: "São Paulo",
    managerEmail: "boss@example.com",
    hireDate: "2022-06-30T08:15:00+02:00",
    exitDate: "2024-12-31",
    "custom.Cost Center": "",
    "custom.Zeta": "ζ 🙂 \\ back\\slash",
  },
  {
    email: "li.lei@example.com",
    firstName: "李",
    lastName: "雷",
    jobCode: "QA1",
    externalEmployeeId: "EXT-3",
    employmentType: "contractor",
    grade: "G7",
    band: "B",
    "custom.Badge": "<script>&amp;</script>",
  },
  {
    email: "plain@example.com",
    firstName: "Plain",
    lastName: "Smith",
    department: "Ops",
    "custom.Cost Center": "CC-1",
    "custom.Alpha": "first by name",
  },
  { email: "few.fields@example.com", firstName: "Few", lastName: "Fields" },
];

/** The dates as the documentation says the service takes them: `YYYY-MM-DDTHH:mm:ssZ`, in UTC. */
const DATES: Record<string, string> = {
  "2021-03-04": "2021-03-04T00:00:00Z",
  "2022-06-30T08:15:00+02:00": "2022-06-30T06:15:00Z",
  "2024-12-31": "2024-12-31T00:00:00Z",
};

const TOP = new Set(["email", "firstName", "lastName", "jobCode"]);

/**
 * The row-by-row path: one employee's item, on its own. Empty values are left out and values trimmed, dates
 * made date-times; the schema writes the fields in §2.11's order, custom fields go in order of name.
 */
function employeeItem(person: Person): string {
  const item: Record<string, unknown> = {};
  const hrms: Record<string, unknown> = {};
  const custom: Record<string, string> = {};
  // Filled in reverse, so the order of the output is the schema's and not this one's.
  for (const [field, raw] of Object.entries(person).reverse()) {
    const value = raw.trim();
    if (value === "") continue;
    if (field.startsWith("custom.")) custom[field.slice("custom.".length)] = value;
    else if (TOP.has(field)) item[field] = value;
    else hrms[field] = DATES[value] ?? value;
  }
  const names = Object.keys(custom).sort();
  if (names.length > 0) hrms.customFieldWithValue = Object.fromEntries(names.map((n) => [n, custom[n]!]));
  if (Object.keys(hrms).length > 0) item.employeeHRMSInfo = hrms;
  return JSON.stringify(EmployeeUpsertItem.parse(item));
}

/** The columns of a CSV file for the people: `header` names them, `fields` are what each holds. */
function employeesFile(name: string, columns: Array<[header: string, field: string]>): string {
  const path = tmp.file(name);
  writeFileSync(
    path,
    csv(
      columns.map(([header]) => header),
      PEOPLE.map((p) => columns.map(([, field]) => p[field] ?? "")),
    ),
  );
  return path;
}

const UPSERT = /\/skills\/employees\/upsert$/;
const INVITE = /\/api\/v3\/tests\/1001\/invite\/bulk$/;

describe("the bytes on the wire are the row-by-row path's", () => {
  const expectedUpserts = (people: Person[], size: number) =>
    chunks(
      people.map((p) => JSON.parse(employeeItem(p))),
      size,
    ).map((items) => JSON.stringify(items));

  it("employees upsert, CSV: the same bytes whatever the order of the columns", async () => {
    const orders: Array<Array<[string, string]>> = [
      [
        ["email", "email"],
        ["first_name", "firstName"],
        ["Last Name", "lastName"],
        ["jobCode", "jobCode"],
        ["external-employee-id", "externalEmployeeId"],
        ["Department", "department"],
        ["location", "location"],
        ["managerEmail", "managerEmail"],
        ["hireDate", "hireDate"],
        ["exitDate", "exitDate"],
        ["employmentType", "employmentType"],
        ["grade", "grade"],
        ["band", "band"],
        ["Cost Center", "custom.Cost Center"],
        ["Badge", "custom.Badge"],
        ["Zeta", "custom.Zeta"],
        ["Alpha", "custom.Alpha"],
      ],
      [
        ["Zeta", "custom.Zeta"],
        ["employeeHRMSInfo.band", "band"],
        ["HIRE_DATE", "hireDate"],
        ["customFieldWithValue.Badge", "custom.Badge"],
        ["Last Name", "lastName"],
        ["Alpha", "custom.Alpha"],
        ["Grade", "grade"],
        ["exit-date", "exitDate"],
        ["E-Mail", "email"],
        ["department", "department"],
        ["Cost Center", "custom.Cost Center"],
        ["employment type", "employmentType"],
        ["MANAGEREMAIL", "managerEmail"],
        ["location", "location"],
        ["firstname", "firstName"],
        ["externalEmployeeId", "externalEmployeeId"],
        ["job_code", "jobCode"],
        ["error", "(rejects column, never sent)"],
      ],
    ];
    const sentBodies: string[][] = [];
    for (const [i, columns] of orders.entries()) {
      const file = employeesFile(`staff-${i}.csv`, columns);
      const run = await sent(
        ["employees", "upsert", file, "--chunk-size", "2", "--concurrency", "1", "--restart"],
        UPSERT,
      );
      expect(run.code).toBe(0);
      expect(run.bodies).toEqual(expectedUpserts(PEOPLE, 2));
      // Byte for byte, not only as text: the UTF-8 of the expected body.
      expect(run.bodies.map((b) => Buffer.from(b))).toEqual(
        expectedUpserts(PEOPLE, 2).map((b) => Buffer.from(b)),
      );
      sentBodies.push(run.bodies);
    }
    expect(sentBodies[1]).toEqual(sentBodies[0]);
  });

  it("employees upsert, JSON array: each item in the schema's field order, custom fields as given", async () => {
    const items = PEOPLE.map((p) => {
      const item = JSON.parse(employeeItem(p)) as Record<string, unknown> & {
        employeeHRMSInfo?: Record<string, unknown> & { customFieldWithValue?: Record<string, string> };
      };
      // Written in another order than the schema's; custom fields in reverse order of name.
      const hrms = item.employeeHRMSInfo;
      const custom = hrms?.customFieldWithValue;
      const reordered: Record<string, unknown> = {};
      if (hrms) {
        const { customFieldWithValue: _, ...rest } = hrms;
        reordered.employeeHRMSInfo = {
          ...(custom ? { customFieldWithValue: Object.fromEntries(Object.entries(custom).reverse()) } : {}),
          ...Object.fromEntries(Object.entries(rest).reverse()),
        };
      }
      for (const [k, v] of Object.entries(item).reverse()) if (k !== "employeeHRMSInfo") reordered[k] = v;
      return reordered;
    });
    const file = tmp.file("staff.json");
    writeFileSync(file, JSON.stringify(items, null, 2));
    const run = await sent(
      ["employees", "upsert", file, "--chunk-size", "3", "--concurrency", "1", "--restart"],
      UPSERT,
    );
    expect(run.code).toBe(0);
    // Row by row: the schema puts the fields in order, a record keeps its entries in the order given.
    const expected = chunks(
      items.map((item) => EmployeeUpsertItem.parse(item)),
      3,
    ).map((chunk) => JSON.stringify(chunk));
    expect(run.bodies).toEqual(expected);
  });

  const CANDIDATES = [
    { email: "ana@example.com", first: "Ana", last: 'de "la" Cruz, Jr.' },
    { email: "Bjorn@Example.com", first: "Björn", last: "Ødegård" },
    { email: "chen@example.com", first: "  陈 ", last: "伟" },
    { email: "dee@example.com", first: "Dee", last: "🙂 \\ \t tab" },
    { email: "eve@example.com", first: "Eve", last: "Line\nBreak" },
  ];

  /** The row-by-row path: each candidate `{email, name}` on its own, the settings first (API layer's order). */
  const expectedInvites = (settings: Record<string, unknown>, names: string[], size: number) =>
    chunks(
      CANDIDATES.map((c, i) => ({ email: c.email.trim(), name: names[i]!.trim() })),
      size,
    ).map((candidates) => JSON.stringify({ ...settings, candidates }));

  it("invite bulk, a name column after the e-mail's: the same bytes as row by row", async () => {
    const file = tmp.file("candidates.csv");
    writeFileSync(
      file,
      csv(
        ["Full Name", "Email Address"],
        CANDIDATES.map((c) => [`${c.first} ${c.last}`, c.email]),
      ),
    );
    const run = await sent(
      ["invite", "bulk", file, "--test", "1001", "--chunk-size", "2", "--concurrency", "1"],
      INVITE,
    );
    expect(run.code).toBe(0);
    expect(run.bodies).toEqual(
      expectedInvites(
        {},
        CANDIDATES.map((c) => `${c.first} ${c.last}`),
        2,
      ),
    );
  });

  it("invite bulk, first and last names and settings: the settings first, then the candidates", async () => {
    const file = tmp.file("candidates-split.csv");
    writeFileSync(
      file,
      csv(
        ["lastname", "email", "firstname"],
        CANDIDATES.map((c) => [c.last, `  ${c.email}`, c.first]),
      ),
    );
    const run = await sent(
      [
        "invite",
        "bulk",
        file,
        "--test",
        "1001",
        "--chunk-size",
        "3",
        "--concurrency",
        "1",
        "--proctoring",
        "image",
        "--timezone",
        "1720",
        "--restart",
      ],
      INVITE,
    );
    expect(run.code).toBe(0);
    expect(run.bodies).toEqual(
      expectedInvites(
        { timezoneId: 1720, proctoringMode: "image" },
        CANDIDATES.map((c) => `${c.first.trim()} ${c.last.trim()}`),
        3,
      ),
    );
  });
});

/**
 * The build writes the SDK's schema types out as plain declarations, and its client's interface from the
 * operation records (src/sdk/written-types.mjs): what it writes of each kind of schema and member, and the
 * mistakes it refuses rather than publish a wrong type. test/api/surface.test.ts compares the whole of what it
 * writes of src/sdk/types.ts with the committed declarations.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { OPERATIONS, pathParameters } from "../../src/api/operations/index.js";
import * as schemasOfApi from "../../src/api/schemas.js";
// @ts-expect-error: a plain ES module of the build's, without declarations
import { answerTypes, writtenTypes } from "../../src/sdk/written-types.mjs";
import { SETTING_FLAGS } from "../../src/spec/settings-flags.js";
import { ROOT } from "../helpers/cli.js";

const Mode = z.enum(["on", "off"]);
const Part = z.looseObject({ size: z.number().nullish() });
const Base = z.looseObject({
  id: z.preprocess((value) => Number(value), z.number()),
  name: z.string().nullish(),
});
const schemas = {
  Mode,
  Part,
  Base,
  Body: z.lazy(() =>
    z.strictObject({
      mode: Mode.describe("described, the same schema").optional(),
      tags: z.array(z.union([z.string(), z.literal(1)])),
      extra: z.record(z.string(), z.string()).optional(),
    }),
  ),
  Whole: z.lazy(() => Base.extend({ parts: z.array(Part).nullish() })),
};

const source = `import type * as s from "../api/schemas.js";
import type * as z from "../parse/zod.js";
type Mode = z.infer<typeof s.Mode>;
export type Part = z.infer<typeof s.Part>;
export type Base = z.infer<typeof s.Base>;
/**
 * A body.
 * @field mode How it runs.
 */
export type Body = z.input<typeof s.Body>;
export type Whole = z.infer<typeof s.Whole>;
`;

describe("the SDK's schema types written out", () => {
  it("as plain declarations: a schema with a line as its name, extended fields as extends, notes as JSDoc", () => {
    expect(writtenTypes(source, schemas)).toBe(`type Mode = "on" | "off";
export interface Part {
  size?: number | null;
  [field: string]: unknown;
}
export interface Base {
  id: number;
  name?: string | null;
  [field: string]: unknown;
}
/** A body. */
export interface Body {
  /** How it runs. */
  mode?: Mode;
  tags: (string | 1)[];
  extra?: Record<string, string>;
}
export interface Whole extends Base {
  parts?: Part[] | null;
}
`);
  });

  it("refuses a schema it cannot write, a schema that is not there, a note of no field", () => {
    const line = (name: string) => `export type T = z.infer<typeof s.${name}>;\n`;
    expect(() => writtenTypes(line("When"), { When: z.date() })).toThrow("no type written for a zod date");
    expect(() => writtenTypes(line("Gone"), {})).toThrow("api/schemas.ts has no Gone");
    expect(() => writtenTypes(`/** @field nope Why. */\n${line("Part")}`, schemas)).toThrow(
      "T has no field nope to note",
    );
  });
});

describe("the SDK's client written out from the operation records", () => {
  const Item = z.looseObject({ id: z.number() });
  const Body = z.strictObject({ name: z.string() });
  const AnyRecord = z.record(z.string(), z.unknown());
  const clientSchemas = { Item, Body, AnyRecord };
  const head = `import type * as s from "../api/schemas.js";
import type * as z from "../parse/zod.js";
export type Item = z.infer<typeof s.Item>;
export type Body = z.input<typeof s.Body>;
export type Fields = z.infer<typeof s.AnyRecord>;
`;
  const records = {
    listItems: {
      path: "/items",
      resource: "items",
      verb: "list",
      pagination: { items: Item },
    },
    getItem: { path: "/items/{itemId}", resource: "items", verb: "get", read: () => undefined },
    renameItem: {
      path: "/items/{itemId}/parts/{partId}",
      resource: "items.parts",
      verb: "rename",
      body: Body,
      read: () => undefined,
    },
    tagItem: {
      path: "/items/{itemId}/tags",
      resource: "items",
      verb: "tag",
      body: "fields",
      read: () => undefined,
    },
  };
  const answers = { getItem: "s.Item", renameItem: "Fields | undefined", tagItem: "s.Item[]" };
  const client = (members: string) =>
    `${head}type ClientMembers = {
    readonly items: {
${members}
    };
    /** Ends it. */
    close(): Promise<void>;
  };
export type AssessClient = Resolved<ClientMembers, Derived> & Unlisted<Derived, ClientMembers>;
`;
  const members = `      /** One page. */
      list: FromRecord;
      iterate: FromRecord;
      get: FromRecord;
      tag: FromRecord<"tags">;
      /** Its own. */
      count(options?: { all?: boolean }): Promise<number>;
      parts: {
        rename: FromRecord;
      };`;
  const write = (source: string, table: object = records) =>
    writtenTypes(source, clientSchemas, { operations: { OPERATIONS: table, pathParameters }, answers });

  it("each FromRecord member as its record's method, in the members' order; the others as they are", () => {
    expect(write(client(members))).toBe(`export interface Item {
  id: number;
  [field: string]: unknown;
}
export interface Body {
  name: string;
}
export type Fields = Record<string, unknown>;
export interface AssessClient {
    readonly items: {
      /** One page. */
      list(request?: PageRequest): Promise<Page<Item>>;
      iterate(options?: IterateOptions): AsyncGenerator<Item>;
      get(itemId: number): Promise<Item>;
      tag(itemId: number, tags: Fields): Promise<Item[]>;
      /** Its own. */
      count(options?: { all?: boolean }): Promise<number>;
      parts: {
        rename(itemId: number, partId: number, body: Body): Promise<Fields | undefined>;
      };
    };
    /** Ends it. */
    close(): Promise<void>;
  }
`);
  });

  it("a record whose place AssessClient does not show is written at the end of its resource, its summary as its comment; a FromRecord member of no record is refused", () => {
    const added = {
      ...records,
      deleteItem: { ...records.getItem, verb: "delete", summary: "Deletes an item" },
      getPart: { ...records.getItem, resource: "items.parts", verb: "get", summary: "One part" },
      getWidget: { ...records.getItem, resource: "widgets.large", verb: "get", summary: "One widget" },
    };
    const answersOfAdded = { ...answers, deleteItem: "s.Item", getPart: "s.Item", getWidget: "s.Item" };
    const written = writtenTypes(client(members), clientSchemas, {
      operations: { OPERATIONS: added, pathParameters },
      answers: answersOfAdded,
    });
    expect(written).toContain(`      parts: {
        rename(itemId: number, partId: number, body: Body): Promise<Fields | undefined>;
        /** One part */
        get(itemId: number): Promise<Item>;
      };
      /** Deletes an item */
      delete(itemId: number): Promise<Item>;
    };
    /** Ends it. */
    close(): Promise<void>;
    readonly widgets: {
      large: {
        /** One widget */
        get(itemId: number): Promise<Item>;
      };
    };
  }
`);
    expect(() => write(client(`${members}\n      archive: FromRecord;`))).toThrow(
      "AssessClient's items.archive is FromRecord, but no record is there",
    );
  });

  it("the real records: every one is on the interface where types.ts places it, and one more is written without a member", async () => {
    const source = readFileSync(join(ROOT, "src", "sdk", "types.ts"), "utf8");
    const options = {
      lists: { SETTING_FLAGS },
      answers: answerTypes(readFileSync(join(ROOT, "src", "api", "operations", "index.ts"), "utf8")),
    };
    const written = (table: object, answers = options.answers) =>
      writtenTypes(source, schemasOfApi, {
        ...options,
        answers,
        operations: { OPERATIONS: table, pathParameters },
      });
    expect(written(OPERATIONS)).toContain(
      "update(testId: number, settings: Fields): Promise<Fields | undefined>;",
    );
    const withOneMore = {
      ...OPERATIONS,
      archiveTest: { ...OPERATIONS.getTest, verb: "archive", summary: "Archive a test" },
    };
    expect(written(withOneMore, { ...options.answers, archiveTest: options.answers.getTest })).toMatch(
      /\/\*\* Archive a test \*\/\n\s+archive\(testId: number\): Promise<TestDetail>;\n\s+};\n\s+readonly invitations/,
    );
  });

  it("a read whose return type is not written is refused: the declarations would not know what it gives", () => {
    const source = `const OPERATIONS = {
  getItem: op("GET /items/{itemId}", "items.get", { read: (answer: Answer): s.Item => read(answer) }),
  getOther: op("GET /others/{id}", "others.get", { read: readOther }),
  getThird: op("GET /thirds/{id}", "thirds.get", { read: (answer: Answer) => answer }),
} as const satisfies Record<string, OperationRecord>;
function readOther(answer: Answer): Fields | undefined {
  return undefined;
}`;
    expect(() => answerTypes(source)).toThrow("getThird: write the return type of its read");
    expect(answerTypes(source.replace(/\n {2}getThird.*\n/, "\n"))).toEqual({
      getItem: "s.Item",
      getOther: "Fields | undefined",
    });
  });

  it("the fields a list that types.ts imports names, as a Partial<Record> of the list", () => {
    const Flag = z.union([z.literal(0), z.literal(1)]);
    const Settings = z.looseObject({
      name: z.string().optional(),
      a: Flag.optional(),
      b: Flag.optional(),
    });
    const source = `import type * as s from "../api/schemas.js";
import type * as z from "../parse/zod.js";
import type { SWITCHES } from "../spec/switches.js";
type Flag = z.infer<typeof s.Flag>;
export type Settings = z.infer<typeof s.Settings>;
`;
    expect(
      writtenTypes(source, { Flag, Settings }, { lists: { SWITCHES: ["a", "b"] } }),
    ).toBe(`import type { SWITCHES } from "../spec/switches.js";
type Flag = 0 | 1;
export type Settings = {
  name?: string;
  [field: string]: unknown;
} & Partial<Record<(typeof SWITCHES)[number], Flag>>;
`);
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { multipartFile } from "../../src/api/multipart.js";
import { skillsOf, topSkills } from "../../src/commands/employees/records.js";
import { gapRows } from "../../src/commands/employees/skill-gap.js";
import { parseSetPairs } from "../../src/commands/shared/fields.js";
import { boundaryOf, parseMultipart } from "../../src/sandbox/multipart.js";
import { runCli } from "../helpers/cli.js";

describe("multipartFile", () => {
  it("round-trips any bytes and file name through a multipart parser", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 2048 }),
        fc.string({ minLength: 1, maxLength: 40 }),
        (bytes, name) => {
          const data = Buffer.from(bytes);
          const filename = `${name.replace(/[\r\n"\\%]/g, "_")}.pdf`;
          const raw = multipartFile({ field: "file", filename, contentType: "application/pdf", data });
          const boundary = boundaryOf(raw.contentType);
          expect(boundary).toBeDefined();
          const parts = parseMultipart(raw.data() as Buffer, boundary!);
          expect(parts).toHaveLength(1);
          expect(parts?.[0]).toMatchObject({ name: "file", filename, contentType: "application/pdf" });
          expect(Buffer.compare(parts![0]!.data, data)).toBe(0);
        },
      ),
    );
  });

  it("encodes quotes and line breaks in the file name instead of breaking the header", () => {
    const raw = multipartFile({
      field: "file",
      filename: 'a"b\\\r\nc.pdf',
      contentType: "application/pdf",
      data: Buffer.from("%PDF-"),
    });
    const head = (raw.data() as Buffer).toString("utf8").split("\r\n\r\n")[0]!;
    expect(head).toContain('filename="a%22b%5C%0D%0Ac.pdf"');
  });

  it("gives every retry the same bytes, and describes itself without the content", () => {
    const raw = multipartFile({
      field: "file",
      filename: "cv.pdf",
      contentType: "application/pdf",
      data: Buffer.from("%PDF-1.7"),
    });
    expect(raw.data()).toBe(raw.data());
    expect(raw.describe).toEqual({
      multipart: { file: { filename: "cv.pdf", contentType: "application/pdf", bytes: 8 } },
    });
  });
});

describe("parseSetPairs", () => {
  it("types JSON-looking values, keeps ids with leading zeros as text, nests dotted keys", () => {
    expect(
      parseSetPairs(["a=1", "b=true", "c=null", "d=007", 'e=["x"]', "f.g=text with = sign", "f.h=2.5", "i="]),
    ).toEqual({ a: 1, b: true, c: null, d: "007", e: ["x"], f: { g: "text with = sign", h: 2.5 }, i: "" });
  });

  it("refuses a pair without a key", () => {
    expect(() => parseSetPairs(["novalue"])).toThrow('--set expects key=value, got "novalue"');
    expect(() => parseSetPairs(["a..b=1"])).toThrow("--set expects key=value");
  });
});

describe("reading answers whose shape the API's documentation does not show", () => {
  it("finds skills under other names and orders top skills by level", () => {
    const row = {
      skillProfile: [
        { name: "SQL", skillLevel: "2" },
        { skill: "Go", proficiencyLevel: 4 },
        { name: "Excel" },
        "Rust",
      ],
    };
    expect(skillsOf(row).map((s) => s.skillName)).toEqual(["SQL", "Go", "Excel", "Rust"]);
    expect(topSkills(row)).toBe("Go (4), SQL (2), Excel +1");
  });

  it("computes a gap when the service gives only levels", () => {
    const rows = gapRows({
      skillGaps: [{ name: "SQL", expectedLevel: 4, level: 1 }],
      matched: [{ skillName: "Git", requiredLevel: 1, currentLevel: 3 }],
    });
    expect(rows.map(({ skillName, gap, status }) => ({ skillName, gap, status }))).toEqual([
      { skillName: "SQL", gap: 3, status: "gap" },
      { skillName: "Git", gap: 0, status: "met" },
    ]);
  });
});

describe("help", () => {
  const verbs = [
    "list",
    "upsert",
    "skills",
    "skills-profiles",
    "certificates",
    "add-certificate",
    "status",
    "report",
    "upload-resume",
    "assign-learning",
    "skill-gap",
  ];
  it.each(verbs)("employees %s --help has examples", async (verb) => {
    const r = await runCli(["employees", verb, "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Examples:");
    expect(r.stdout).toContain(`$ assess employees ${verb}`);
  });

  it.each(["add-certificate", "status", "assign-learning"])(
    "employees %s --help documents the body it sends",
    async (verb) => {
      const r = await runCli(["employees", verb, "--help"]);
      expect(r.stdout).toContain("Body sent by default");
    },
  );

  it("lists all eleven operations plus upsert in the group's help", async () => {
    const r = await runCli(["employees", "--help"]);
    for (const verb of verbs) expect(r.stdout).toMatch(new RegExp(`\\n  ${verb}\\b`));
  });
});

import { createHash, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SANDBOX_KEYS, useTestEnv } from "../helpers/cli.js";

const t = useTestEnv();

const employee = (id: number) => t.sandbox.state.employees.find((e) => e.employeeId === id)!;
const sentSince = (before: number) => t.sandbox.requests.slice(before);
/** The files of a recorded multipart request (the sandbox records their name, type, size and digest). */
const filesOf = (req: { body: unknown } | undefined) =>
  (req?.body as { multipart?: { files: Array<Record<string, unknown>> } } | undefined)?.multipart?.files ??
  [];

describe("employees status", () => {
  it("PATCHes /employees/{id}/status with {status}; the list shows the change", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "status", "520", "Inactive", "--json"]);
    expect(r.code).toBe(0);
    const [req] = sentSince(before);
    expect(req).toMatchObject({
      method: "PATCH",
      path: "/employees/520/status",
      api: "skills",
      body: { status: "Inactive" },
    });
    expect(req?.rawUrl).toBe("/skills/employees/520/status");
    expect(req?.headers["content-type"]).toBe("application/json");
    expect(req?.headers["x-api-key"]).toBe(SANDBOX_KEYS.acme);
    expect(r.json()).toMatchObject({ employeeId: 520, status: "Inactive" });
    expect(employee(520).status).toBe("Inactive");

    const list = await t.run(["employees", "list", "--page", "4", "--page-size", "5", "--json"]);
    expect(
      list.json<Array<{ employeeId: number; status: string }>>().find((e) => e.employeeId === 520)?.status,
    ).toBe("Inactive");
  });

  it("accepts the status in any case or with dashes, sending the service's spelling", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "status", "520", "on-leave"]);
    expect(r.code).toBe(0);
    expect(sentSince(before)[0]?.body).toEqual({ status: "OnLeave" });
    expect(r.stderr).toContain("Employee 520 is now OnLeave");
  });

  // The statuses --help documents are checked locally (it was the service's 400, exit 1).
  it("a status --help does not document: exit 2, nothing sent", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "status", "520", "Retired"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("<status> must be one of Active, Inactive, OnLeave, Exited");
    expect(t.sandbox.requests.length).toBe(before);
  });

  it("an unknown employee: 404, exit 1", async () => {
    const r = await t.run(["employees", "status", "99999", "Active"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Employee not found");
  });
});

describe("employees report", () => {
  it("GETs /employees/{id}/reports/{testId}: the most recent completed attempt of that employee", async () => {
    const emp = employee(530);
    const invite = await t.run([
      "invite",
      "send",
      "--test",
      "1002",
      "--email",
      emp.email,
      "--name",
      "Report Check",
      "--json",
    ]);
    expect(invite.code).toBe(0);
    const { testInvitationId } = invite.json<{ testInvitationId: number }>();
    await t.sandbox.completeAttempt(testInvitationId, "Complete");

    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "report", "530", "--test", "1002", "--json"]);
    expect(r.code).toBe(0);
    expect(sentSince(before)).toMatchObject([
      { method: "GET", path: "/employees/530/reports/1002", api: "skills" },
    ]);
    expect(r.json()).toMatchObject({ testInvitationId, testId: 1002 });

    const table = await t.run(["employees", "report", "530", "--test", "1002"], { tty: true });
    expect(table.stdout).toContain("SECTION");
    // The same report as `reports get` shows it: its columns (not the service's keys) and its lists.
    const same = await t.run(["reports", "get", String(testInvitationId)], { tty: true });
    expect(table.stdout).toBe(same.stdout);
    expect(table.stdout).toContain("│ PERFORMANCE ");
    const tsv = await t.run(["employees", "report", "530", "--test", "1002"]);
    expect(tsv.stdout).toBe((await t.run(["reports", "get", String(testInvitationId)])).stdout);
  });

  it("no completed report: the service's 404 with a hint, exit 1", async () => {
    const { invitations } = t.sandbox.state;
    const untested = t.sandbox.state.employees.find(
      (e) =>
        e.accountId === "acme" &&
        !invitations.some((i) => i.testId === 1005 && i.email.toLowerCase() === e.email.toLowerCase()),
    )!;
    const r = await t.run(["employees", "report", String(untested.employeeId), "--test", "1005"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("No completed assessment report");
    expect(r.stderr).toContain("hint:");
  });

  it("--test is required without prompts", async () => {
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "report", "530", "--no-input"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Missing --test");
    expect(sentSince(before)).toHaveLength(0);
  });

  it("another account's test: 403, exit 4", async () => {
    const r = await t.run(["employees", "report", "530", "--test", "2001"]);
    expect(r.code).toBe(4);
  });
});

/** A small PDF-looking file whose bytes include everything a careless multipart encoder would mangle. */
function resumeBytes(): Buffer {
  return Buffer.concat([
    Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "latin1"),
    Buffer.from("Senior engineer: Python, AWS, Kubernetes, PostgreSQL.\r\n--\r\n"),
    Buffer.from([0, 0xff, 0x0d, 0x0a, 0x2d, 0x2d, 0x0d, 0x0a, 0x00]),
    randomBytes(4096),
    Buffer.from("\r\n%%EOF\r\n"),
  ]);
}

describe("employees upload-resume", () => {
  it("sends multipart/form-data with the file in a part named `file`, bytes intact; skills are inferred", async () => {
    const bytes = resumeBytes();
    const file = join(t.configDir, 'Zoë "CV" 2026.pdf');
    writeFileSync(file, bytes);
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "upload-resume", "540", file, "--json"]);
    expect(r.code).toBe(0);

    const [req] = sentSince(before);
    expect(req).toMatchObject({ method: "POST", path: "/employees/540/resume/upload", api: "skills" });
    expect(req?.rawUrl).toBe("/skills/employees/540/resume/upload");
    expect(req?.headers["x-api-key"]).toBe(SANDBOX_KEYS.acme);
    expect(req?.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=\S+$/);
    expect(filesOf(req)).toEqual([
      {
        name: "file",
        filename: "Zoë %22CV%22 2026.pdf",
        contentType: "application/pdf",
        size: bytes.length,
        sha256: createHash("sha256").update(bytes).digest("hex"),
      },
    ]);
    const stored = t.sandbox.state.resumes.at(-1);
    expect(stored).toMatchObject({
      employeeId: 540,
      size: bytes.length,
      sha256: createHash("sha256").update(bytes).digest("hex"),
    });

    const answer = r.json<{ skills: Array<{ skillName: string }> }>();
    expect(answer.skills.map((s) => s.skillName)).toEqual(
      expect.arrayContaining(["Python", "AWS", "Kubernetes", "SQL"]),
    );
    expect(r.stderr).toMatch(
      /Uploaded Zoë "CV" 2026\.pdf \(\d+\.\d KiB\) for employee 540; skills inferred: .*Python/,
    );
    const profile = (await t.run(["employees", "skills", "540", "--json"])).json<{
      skills: Array<{ skillName: string }>;
    }>();
    expect(profile.skills.map((s) => s.skillName)).toEqual(
      expect.arrayContaining(["Python", "AWS", "Kubernetes"]),
    );
  });

  it("DOCX is sent with its own content type", async () => {
    const file = join(t.configDir, "cv.docx");
    writeFileSync(
      file,
      Buffer.concat([Buffer.from("504b0304", "hex"), Buffer.from(" Scrum master, Agile coach ")]),
    );
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "upload-resume", "541", file]);
    expect(r.code).toBe(0);
    expect(filesOf(sentSince(before)[0])[0]?.contentType).toBe(
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    );
    expect(r.stdout.split("\n")[0]).toBe("EMPLOYEE\tFILE\tBYTES\tSKILLS");
  });

  it("--dry-run describes the upload and sends nothing", async () => {
    const file = join(t.configDir, "dry.pdf");
    writeFileSync(file, resumeBytes());
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "upload-resume", "541", file, "--dry-run"]);
    expect(r.code).toBe(0);
    expect(sentSince(before)).toHaveLength(0);
    expect(r.json()).toMatchObject({
      method: "POST",
      body: { multipart: { file: { filename: "dry.pdf", contentType: "application/pdf" } } },
    });
  });

  it.each([
    ["notes.txt", Buffer.from("Python"), "only PDF, DOC and DOCX resumes can be uploaded"],
    ["empty.pdf", Buffer.alloc(0), "is empty"],
    ["fake.pdf", Buffer.from("just text, not a PDF"), "does not look like a PDF file"],
    [
      "huge.pdf",
      Buffer.concat([Buffer.from("%PDF-"), Buffer.alloc(5 * 1024 * 1024)]),
      "the service accepts resumes up to 5.0 MiB",
    ],
  ])("%s is refused before sending (exit 2)", async (name, bytes, message) => {
    const file = join(t.configDir, name);
    writeFileSync(file, bytes);
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "upload-resume", "541", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(sentSince(before)).toHaveLength(0);
  });

  it("a missing file is a usage error naming it", async () => {
    const r = await t.run(["employees", "upload-resume", "541", join(t.configDir, "nope.pdf")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("nope.pdf does not exist");
    expect(r.stderr).not.toContain("ENOENT");
  });

  it("an unknown employee: the service's 404 reaches the user, exit 1", async () => {
    const file = join(t.configDir, "ok.pdf");
    writeFileSync(file, resumeBytes());
    const r = await t.run(["employees", "upload-resume", "99999", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Employee not found");
    expect(r.stderr).toContain("assess employees list");
  });

  it("a 503 is retried and the same bytes are sent again", async () => {
    const bytes = resumeBytes();
    const file = join(t.configDir, "retry.pdf");
    writeFileSync(file, bytes);
    t.sandbox.faults.add({
      method: "POST",
      path: "/employees/*/resume/upload",
      kind: "status",
      status: 503,
      headers: { "retry-after": "0" },
    });
    const before = t.sandbox.requests.length;
    const r = await t.run(["employees", "upload-resume", "542", file]);
    expect(r.code).toBe(0);
    const sent = sentSince(before);
    expect(sent.map((req) => req.status)).toEqual([503, 200]);
    const digest = createHash("sha256").update(bytes).digest("hex");
    for (const req of sent) expect(filesOf(req)[0]?.sha256).toBe(digest);
  });
});

import { createHash, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { GLOBEX, useSandbox } from "./helpers.js";

const { sb, c } = useSandbox();

describe("employee lists", () => {
  it("pages GET /employees with PageNumber/PageSize: 45 employees are 3 pages of 20", async () => {
    const seen: number[] = [];
    const pages = [];
    for (let page = 1; page <= 3; page++) {
      const a = await c.skills("GET", `/employees?PageNumber=${page}&PageSize=20`);
      expect(a.status).toBe(200);
      pages.push(a.json);
      seen.push(...a.json.items.map((e: { employeeId: number }) => e.employeeId));
    }
    expect(pages.map((p) => [p.pageNumber, p.items.length, p.hasNextPage, p.totalCount])).toEqual([
      [1, 20, true, 45],
      [2, 20, true, 45],
      [3, 5, false, 45],
    ]);
    expect(seen[0]).toBe(501);
    expect(new Set(seen).size).toBe(45);
    const item = pages[0].items[0];
    for (const key of [
      "employeeId",
      "email",
      "firstName",
      "lastName",
      "jobCode",
      "status",
      "department",
      "location",
      "managerEmail",
    ]) {
      expect(item, key).toHaveProperty(key);
    }
    const defaults = await c.skills("GET", "/employees");
    expect(defaults.json.items.length).toBe(20);
    const tooBig = await c.skills("GET", "/employees?PageSize=101");
    expect(tooBig.status).toBe(400);
    expect(tooBig.json).toEqual({ errors: ["PageSize must be between 1 and 100"] });
    const globex = await c.skills("GET", "/employees", { key: GLOBEX });
    expect(globex.json.totalCount).toBe(4);
  });

  it("lists skills profiles with skills, and one employee's profile", async () => {
    const a = await c.skills("GET", "/employees/skills-profile?PageSize=5");
    expect(a.json.items.length).toBe(5);
    expect(a.json.hasNextPage).toBe(true);
    const one = await c.skills("GET", "/employees/501/skills-profile");
    expect(one.status).toBe(200);
    expect(one.json.employeeId).toBe(501);
    for (const s of one.json.skills) {
      expect(Object.keys(s)).toEqual(
        expect.arrayContaining(["skillName", "category", "level", "proficiency", "source"]),
      );
      expect(s.level).toBeGreaterThanOrEqual(1);
      expect(s.level).toBeLessThanOrEqual(5);
      expect(["assessment", "certificate", "resume", "self"]).toContain(s.source);
    }
    const missing = await c.skills("GET", "/employees/99999/skills-profile");
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ statusCode: 404, message: "Employee not found" });
  });
});

describe("POST /employees/upsert", () => {
  it("creates and updates, answering JSON as text/plain with per-item failures", async () => {
    const existing = sb.state.employees.find((e) => e.employeeId === 502)!;
    const a = await c.skills("POST", "/employees/upsert", {
      body: [
        {
          email: "new.hire@acme.example",
          firstName: "New",
          lastName: "Hire",
          jobCode: "SWE1",
          employeeHRMSInfo: {
            externalEmployeeId: "HR-9001",
            department: "Engineering",
            hireDate: "2025-06-01T00:00:00Z",
          },
        },
        { email: existing.email.toUpperCase(), firstName: "Renamed", lastName: existing.lastName },
        { email: "bad-email", firstName: "A", lastName: "B" },
        { email: "nojob@acme.example", firstName: "A", lastName: "B", jobCode: "ASTRO1" },
        {
          email: "dates@acme.example",
          firstName: "A",
          lastName: "B",
          employeeHRMSInfo: { hireDate: "2025-06-01", exitDate: "2025-05-01" },
        },
        { email: "noname@acme.example" },
      ],
    });
    expect(a.status).toBe(200);
    expect(a.headers.get("content-type")).toMatch(/^text\/plain/);
    const out = JSON.parse(a.text);
    expect(out.successful).toEqual([
      { email: "new.hire@acme.example", employeeId: expect.any(Number), errors: null },
      { email: existing.email.toUpperCase(), employeeId: 502, errors: null },
    ]);
    expect(out.failed).toEqual([
      { email: "bad-email", employeeId: 0, errors: "Email address is in invalid format" },
      { email: "nojob@acme.example", employeeId: 0, errors: "Unknown job code 'ASTRO1'" },
      { email: "dates@acme.example", employeeId: 0, errors: "exitDate must not be before hireDate" },
      {
        email: "noname@acme.example",
        employeeId: 0,
        errors: "First name is required; Last name is required",
      },
    ]);
    expect(sb.state.employees.find((e) => e.employeeId === 502)!.firstName).toBe("Renamed");
    // The same externalEmployeeId updates the same employee even with a new e-mail.
    const newId = out.successful[0].employeeId;
    const b = await c.skills("POST", "/employees/upsert", {
      body: [
        {
          email: "renamed.hire@acme.example",
          firstName: "New",
          lastName: "Hire",
          employeeHRMSInfo: { externalEmployeeId: "HR-9001" },
        },
      ],
    });
    expect(JSON.parse(b.text).successful[0].employeeId).toBe(newId);
  });

  it("refuses more than 100 items and a body that is not an array", async () => {
    const many = Array.from({ length: 101 }, (_, i) => ({
      email: `e${i}@acme.example`,
      firstName: "E",
      lastName: `${i}`,
    }));
    const a = await c.skills("POST", "/employees/upsert", { body: many });
    expect(a.status).toBe(400);
    expect(a.json).toEqual({ errors: ["A maximum of 100 employees is allowed per request"] });
    const obj = await c.skills("POST", "/employees/upsert", { body: { email: "x@acme.example" } });
    expect(obj.status).toBe(400);
  });
});

describe("employee operations", () => {
  it("changes the status to one of the allowed values", async () => {
    const a = await c.skills("PATCH", "/employees/503/status", { body: { status: "OnLeave" } });
    expect(a.status).toBe(200);
    expect(a.json).toEqual({ employeeId: 503, status: "OnLeave" });
    const bad = await c.skills("PATCH", "/employees/503/status", { body: { status: "Retired" } });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ errors: ["status must be one of Active, Inactive, OnLeave, Exited"] });
  });

  it("stores a certificate with skills inferred from title and issuer", async () => {
    const a = await c.skills("POST", "/employees/504/certificates", {
      body: {
        title: "Certified Kubernetes Administrator",
        issuer: "The Linux Foundation",
        issueDate: "2025-01-10",
      },
    });
    expect(a.status).toBe(201);
    expect(a.json.skills).toEqual([{ skillName: "Kubernetes", category: "DevOps" }]);
    const profile = await c.skills("GET", "/employees/504/skills-profile");
    const k8s = profile.json.skills.find((s: { skillName: string }) => s.skillName === "Kubernetes");
    expect(k8s).toBeDefined();
    const list = await c.skills("GET", "/employees/504/certificates");
    expect(list.json.items.at(-1).skills).toBeUndefined();
    const withSkills = await c.skills("GET", "/employees/504/certificates?includeSkills=true");
    expect(withSkills.json.items.at(-1).skills).toEqual([{ skillName: "Kubernetes", category: "DevOps" }]);
    const noTitle = await c.skills("POST", "/employees/504/certificates", { body: { issuer: "AWS" } });
    expect(noTitle.status).toBe(400);
    expect(noTitle.json).toEqual({ errors: ["title is required"] });
  });

  it("receives a resume as multipart, bytes intact", async () => {
    const bytes = Buffer.concat([
      Buffer.from("%PDF-1.4\n"),
      randomBytes(64 * 1024),
      Buffer.from("\r\n--not-a-boundary\r\n Experienced with Python, AWS and Kubernetes. \r\n"),
      randomBytes(1024),
    ]);
    const form = new FormData();
    form.append("note", "from the test");
    form.append("file", new Blob([bytes], { type: "application/pdf" }), "cv.pdf");
    const res = await fetch(`${sb.skillsUrl}/employees/505/resume/upload`, {
      method: "POST",
      headers: { "x-api-key": "sbx-acme-4f9a2c7e1b3d" },
      body: form,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { skills: Array<{ skillName: string }> };
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    expect(body).toMatchObject({ employeeId: 505, fileName: "cv.pdf", size: bytes.length, sha256 });
    expect(body.skills.map((s) => s.skillName)).toEqual(
      expect.arrayContaining(["Python", "AWS", "Kubernetes"]),
    );
    const rec = sb.requests.at(-1)!;
    expect(rec.body).toEqual({
      multipart: {
        fields: { note: "from the test" },
        files: [
          { name: "file", filename: "cv.pdf", contentType: "application/pdf", size: bytes.length, sha256 },
        ],
      },
    });
    const txt = new FormData();
    txt.append("file", new Blob(["hello"], { type: "text/plain" }), "cv.txt");
    const refused = await fetch(`${sb.skillsUrl}/employees/505/resume/upload`, {
      method: "POST",
      headers: { "x-api-key": "sbx-acme-4f9a2c7e1b3d" },
      body: txt,
    });
    expect(refused.status).toBe(415);
    const big = new FormData();
    big.append("file", new Blob([Buffer.alloc(5 * 1024 * 1024 + 1)], { type: "application/pdf" }), "big.pdf");
    const tooBig = await fetch(`${sb.skillsUrl}/employees/505/resume/upload`, {
      method: "POST",
      headers: { "x-api-key": "sbx-acme-4f9a2c7e1b3d" },
      body: big,
    });
    expect(tooBig.status).toBe(413);
  });

  it("assigns learning by resource or skill", async () => {
    const a = await c.skills("POST", "/employees/506/learning/assign", {
      body: { learningResourceIds: ["lr-101"], dueDate: "2025-07-31", note: "Before the review" },
    });
    expect(a.status).toBe(201);
    expect(a.json).toMatchObject({
      employeeId: 506,
      dueDate: "2025-07-31",
      assigned: [{ learningResourceId: "lr-101", title: "Python for Data Analysis", skillName: "Python" }],
    });
    expect(typeof a.json.assignmentId).toBe("number");
    const bySkill = await c.skills("POST", "/employees/506/learning/assign", {
      body: { skills: ["Python"] },
    });
    expect(bySkill.status).toBe(201);
    const none = await c.skills("POST", "/employees/506/learning/assign", { body: { note: "x" } });
    expect(none.status).toBe(400);
  });

  it("computes the skill gap from the job profile", async () => {
    const emp = sb.state.employees.find((e) => e.employeeId === 507)!;
    const a = await c.skills("GET", "/employees/507/skill-gap");
    expect(a.status).toBe(200);
    expect(a.json.jobCode).toBe(emp.jobCode);
    const profile = sb.state.jobProfiles.find((p) => p.jobCode === emp.jobCode)!;
    expect(a.json.gaps.length + a.json.matched.length).toBe(profile.skills.length);
    for (const g of a.json.gaps) expect(g.gap).toBe(g.requiredLevel - g.currentLevel);
  });

  it("serves an employee's most recent completed report for a test", async () => {
    // Seeded employees 501-515 took tests; find one with a finished attempt.
    const emp = sb.state.employees.find((e) =>
      sb.state.invitations.some((i) => i.email === e.email && i.completedAt && i.accountId === "acme"),
    )!;
    const inv = sb.state.invitations
      .filter((i) => i.email === emp.email && i.completedAt)
      .sort((x, y) => (x.completedAt! < y.completedAt! ? 1 : -1))[0]!;
    const a = await c.skills("GET", `/employees/${emp.employeeId}/reports/${inv.testId}`);
    expect(a.status).toBe(200);
    expect(a.json.candidateEmail).toBe(emp.email);
    expect(a.json.Status).toBeDefined();
    const none = await c.skills("GET", "/employees/545/reports/1005");
    expect(none.status).toBe(404);
    expect(none.json).toEqual({
      statusCode: 404,
      message: "No completed assessment report found for this employee and test",
    });
  });
});

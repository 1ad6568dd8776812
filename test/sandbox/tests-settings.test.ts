import { describe, expect, it } from "vitest";
import { GLOBEX, useSandbox } from "./helpers.js";

const { c } = useSandbox();
/** The same seed answering in the API's documented shapes (flat settings). */
const { c: l } = useSandbox({ shapes: "api-md" });

describe("tests", () => {
  it("lists the account's tests with 1-based pages (defaults 1/10)", async () => {
    const all = await c.api("GET", "/v3/tests");
    expect(all.status).toBe(200);
    expect(all.json.count).toBe(5);
    expect(all.json.tests.map((t: { testId: number }) => t.testId)).toEqual([1001, 1002, 1003, 1004, 1005]);
    expect(all.json.tests[0]).toEqual({
      testId: 1001,
      testName: "JavaScript Fundamentals",
      status: "Active",
      duration: 60,
      labels: ["javascript", "frontend"],
    });
    const page2 = await c.api("GET", "/v3/tests?pageNo=2&pageSize=2");
    expect(page2.json.tests.map((t: { testId: number }) => t.testId)).toEqual([1003, 1004]);
    const globex = await c.api("GET", "/v3/tests", { key: GLOBEX });
    expect(globex.json.tests.map((t: { testName: string }) => t.testName)).toEqual([
      "Java Backend",
      "Sales Aptitude",
    ]);
  });

  it("refuses pageSize above 100 or not positive", async () => {
    for (const q of ["pageSize=101", "pageSize=0", "pageSize=-3", "pageSize=ten"]) {
      const a = await c.api("GET", `/v3/tests?${q}`);
      expect(a.status, q).toBe(400);
      expect(a.json).toEqual({ errors: ["pageSize must be between 1 and 100"] });
    }
    const a = await c.api("GET", "/v3/tests?pageNo=0");
    expect(a.status).toBe(400);
  });

  it("gets one test with its sections", async () => {
    const a = await c.api("GET", "/v3/tests/1002");
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({ testId: 1002, testName: "Python Developer", duration: 75, questions: 25 });
    expect(a.json.sections[0]).toEqual({
      sectionName: "Python Basics",
      sectionType: "MCQ",
      questions: 12,
      duration: 20,
    });
  });
});

describe("test settings", () => {
  it("reads the settings grouped, as the real service does", async () => {
    const a = await c.api("GET", "/v3/tests/1003/settings");
    expect(a.status).toBe(200);
    expect(Object.keys(a.json).sort()).toEqual(
      [
        "testSettings",
        "questionSettings",
        "displayMessageSettings",
        "emailSettings",
        "imageProctoringSettings",
        "windowViolationSettings",
      ].sort(),
    );
    expect(a.json.testSettings).toMatchObject({ testName: "SQL for Analysts", typeOfTest: 1 });
    expect(a.json.questionSettings.randomQuestions).toBe(1);
  });

  it("reads the documented flat settings (literal shapes)", async () => {
    const a = await l.api("GET", "/v3/tests/1003/settings");
    expect(a.status).toBe(200);
    expect(Object.keys(a.json).sort()).toEqual(
      [
        "testName",
        "testAliasName",
        "typeOfTest",
        "practiceTest",
        "randomQuestions",
        "randomAnswers",
        "showQuestionScore",
        "sectionEndPopup",
        "sectionTimeLeftAlert",
        "candidateFeedback",
        "sendTestReportEmailToCandidate",
        "terminateTestOnImageViolation",
        "terminateTestAfterViolationCount",
        "copyPaste",
        "displayViolationPopUp",
        "terminateTestOnWindowViolation",
      ].sort(),
    );
    expect(a.json.testName).toBe("SQL for Analysts");
    expect(a.json.typeOfTest).toBe(1);
  });

  it("writes the whole object (missing flags reset to 0) and answers 201", async () => {
    const before = (await l.api("GET", "/v3/tests/1003/settings")).json;
    expect(before.randomQuestions).toBe(1);
    const w = await l.api("POST", "/v3/tests/1003/settings", {
      body: { testName: "SQL for Analysts", testAliasName: "SQL-A", typeOfTest: 2, practiceTest: 1 },
    });
    expect(w.status).toBe(201);
    expect(w.json).toMatchObject({
      testAliasName: "SQL-A",
      typeOfTest: 2,
      practiceTest: 1,
      randomQuestions: 0,
    });
    const after = (await l.api("GET", "/v3/tests/1003/settings")).json;
    expect(after).toEqual(w.json);
    // The real shapes answer the same write grouped.
    const real = await c.api("POST", "/v3/tests/1003/settings", { body: { typeOfTest: 2, practiceTest: 1 } });
    expect(real.status).toBe(201);
    expect(real.json.testSettings).toMatchObject({ typeOfTest: 2, practiceTest: 1 });
    expect(real.json.questionSettings.randomQuestions).toBe(0);
  });

  it("refuses a flag other than 0 or 1, naming it", async () => {
    const a = await c.api("POST", "/v3/tests/1003/settings", {
      body: { copyPaste: 2, randomAnswers: "yes" },
    });
    expect(a.status).toBe(400);
    expect(a.json).toEqual({ errors: ["randomAnswers must be 0 or 1", "copyPaste must be 0 or 1"] });
  });
});

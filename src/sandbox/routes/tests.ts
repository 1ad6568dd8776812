/** GET /v3/tests, GET /v3/tests/{testId}, GET|POST /v3/tests/{testId}/settings. */

import { SETTING_FLAGS } from "../../spec/settings-flags.js";
import { idParam, ok, ownedTest, queryInt, type RouteContext } from "../context.js";
import { MSG } from "../errors.js";
import type { Router } from "../router.js";
import type { Test, TestSettings } from "../state.js";
import { isFlag, nonEmptyString, Problems, requireObject } from "../validate.js";

function listTests(ctx: RouteContext) {
  const pageNo = queryInt(ctx, "pageNo", 1);
  const pageSize = queryInt(ctx, "pageSize", 10);
  const problems = new Problems();
  if (!Number.isInteger(pageNo) || pageNo < 1) problems.add("pageNo must be a positive integer");
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) problems.add(MSG.pageSize);
  problems.throwIfAny();
  const tests = ctx.store.testsOf(ctx.account);
  const page = tests.slice((pageNo - 1) * pageSize, pageNo * pageSize);
  return ok({
    tests: page.map((t) => ({
      testId: t.testId,
      testName: t.testName,
      status: t.status,
      duration: t.duration,
      labels: [...t.labels],
    })),
    // Whether the real service's count is the page or the total is not documented; the sandbox answers
    // the total.
    count: tests.length,
  });
}

function testDetail(t: Test) {
  return {
    testId: t.testId,
    testName: t.testName,
    status: t.status,
    duration: t.duration,
    labels: [...t.labels],
    questions: t.sections.reduce((n, s) => n + s.questions, 0),
    sections: t.sections.map((s) => ({
      sectionName: s.sectionName,
      sectionType: s.sectionType,
      questions: s.questions,
      duration: s.duration,
    })),
  };
}

/**
 * The settings as read back. The real service groups them (`testSettings`, `questionSettings`...;
 * fixtures/real/tests/settings-get-200.json); with shapes "api-md" it is the flat object written.
 */
function settingsView(ctx: RouteContext, t: Test) {
  const { testAliasName, typeOfTest, ...flags } = t.settings;
  if (ctx.env.shapes === "api-md") return { testName: t.testName, testAliasName, typeOfTest, ...flags };
  return {
    testSettings: { testName: t.testName, testAliasName, typeOfTest, practiceTest: flags.practiceTest },
    questionSettings: {
      randomQuestions: flags.randomQuestions,
      randomAnswers: flags.randomAnswers,
      showQuestionScore: flags.showQuestionScore,
    },
    displayMessageSettings: {
      sectionEndPopup: flags.sectionEndPopup,
      sectionTimeLeftAlert: flags.sectionTimeLeftAlert,
      candidateFeedback: flags.candidateFeedback,
    },
    emailSettings: { sendTestReportEmailToCandidate: flags.sendTestReportEmailToCandidate },
    imageProctoringSettings: {
      terminateTestOnImageViolation: flags.terminateTestOnImageViolation,
      terminateTestAfterViolationCount: flags.terminateTestAfterViolationCount,
    },
    windowViolationSettings: {
      copyPaste: flags.copyPaste,
      displayViolationPopUp: flags.displayViolationPopUp,
      terminateTestOnWindowViolation: flags.terminateTestOnWindowViolation,
      terminateTestAfterViolationCount: flags.terminateTestAfterViolationCount,
    },
  };
}

/** The whole object is written (no partial update): a flag left out is reset to 0; names and type stay. */
function writeSettings(ctx: RouteContext) {
  const test = ownedTest(ctx, idParam(ctx, "testId"));
  const body = requireObject(ctx.json());
  const problems = new Problems();
  const next: Partial<TestSettings> = {};
  for (const flag of SETTING_FLAGS) {
    const value = body[flag];
    if (value === undefined || value === null) next[flag] = 0;
    else if (isFlag(value)) next[flag] = value;
    else problems.add(`${flag} must be 0 or 1`);
  }
  let typeOfTest = test.settings.typeOfTest;
  if (body.typeOfTest !== undefined && body.typeOfTest !== null) {
    if (body.typeOfTest === 1 || body.typeOfTest === 2) typeOfTest = body.typeOfTest;
    else problems.add("typeOfTest must be 1 (Multiple Questions) or 2 (Single Question)");
  }
  for (const field of ["testName", "testAliasName"] as const) {
    const value = body[field];
    if (value !== undefined && value !== null && !nonEmptyString(value))
      problems.add(`${field} must be a non-empty string`);
  }
  problems.throwIfAny();
  if (nonEmptyString(body.testName)) test.testName = body.testName.trim();
  const testAliasName = nonEmptyString(body.testAliasName)
    ? body.testAliasName.trim()
    : test.settings.testAliasName;
  test.settings = { ...(next as Record<(typeof SETTING_FLAGS)[number], 0 | 1>), testAliasName, typeOfTest };
  return ok(settingsView(ctx, test), 201);
}

export function registerTestRoutes(router: Router): void {
  router
    .add("GET", "/v3/tests", listTests)
    .add("GET", "/v3/tests/:testId", (ctx) => ok(testDetail(ownedTest(ctx, idParam(ctx, "testId")))))
    .add("GET", "/v3/tests/:testId/settings", (ctx) =>
      ok(settingsView(ctx, ownedTest(ctx, idParam(ctx, "testId")))),
    )
    .add("POST", "/v3/tests/:testId/settings", writeSettings);
}

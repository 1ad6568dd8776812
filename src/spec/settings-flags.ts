/**
 * The Yes/No (0/1) test settings, apart from the schemas so `--help` can list them without loading zod. Data
 * only: the client's schemas and flags and the sandbox read the one list.
 */
export const SETTING_FLAGS = [
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
] as const;

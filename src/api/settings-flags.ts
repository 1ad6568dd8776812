/** The Yes/No flags of API.md §2.2, apart from the schemas so `--help` can list them without loading zod. */
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

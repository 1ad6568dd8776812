/** Public surface of the sandbox: start it, drive it, read its state. */
export { SANDBOX_KEYS } from "./keys.js";
export { startSandbox } from "./server.js";
export type {
  Account,
  AccountId,
  Certificate,
  Employee,
  EmployeeSkill,
  Invitation,
  InvitationStatus,
  SandboxState,
  Test,
  TestLink,
  User,
} from "./state.js";
export type {
  CompletionDelivery,
  FaultKind,
  FaultRule,
  RecordedRequest,
  Sandbox,
  SandboxOptions,
  Shapes,
} from "./types.js";

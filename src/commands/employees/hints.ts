import { ApiError, CliError } from "../../errors.js";

export const CHECK_EMPLOYEE_ID =
  "Check the employee id: `assess employees list` shows your employees and their ids.";

/** A 404 from an employee operation almost always means a wrong employee id: say how to find the right one. */
export async function on404<T>(call: Promise<T>, suggestion = CHECK_EMPLOYEE_ID): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
    throw new CliError(error.message, {
      exitCode: error.exitCode,
      status: error.status,
      messages: error.messages,
      suggestion,
      cause: error,
    });
  }
}

/**
 * The statuses an employee may be given (PATCH /employees/{employeeId}/status): the one list that the API
 * schema, the operation's description, the MCP tool, `assess employees status` and the sandbox all read.
 */
export const EMPLOYEE_STATUSES = ["Active", "Inactive", "OnLeave", "Exited"] as const;
export type EmployeeStatus = (typeof EMPLOYEE_STATUSES)[number];

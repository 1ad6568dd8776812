export const USER_COLUMNS = [
  { key: "email", header: "EMAIL" },
  { key: "fullName", header: "NAME" },
  { key: "businessunitId", header: "BUSINESS UNIT" },
  { key: "status", header: "STATUS" },
];

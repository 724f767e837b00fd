import { describeIssues } from "../../src/schema/describe-issues";

describe("describeIssues", () => {
  it("D-REDACT R-PROC-4: zod's own message is never used (a custom error map could print the value)", () => {
    const detail = describeIssues(
      [{ code: "invalid_type", path: ["delta"], expected: "string", message: "got SECRET-DELTA" } as never],
      { delta: 5 },
    );
    expect(detail).toBe("the schema rejects /delta (expected string, received number)");
  });

  it("R-PROC-4: names JSON pointers with array indices, a missing field, and counts what is not listed", () => {
    const issues = [
      { code: "invalid_type", path: ["messages", 0, "id"], expected: "string" },
      { code: "invalid_value", path: ["role"], values: ["reasoning"] },
      { code: "too_big", path: ["timestamp"], origin: "number", maximum: 9007199254740991 },
      { code: "custom", path: ["metadata"] },
      { code: "custom", path: ["rawEvent"] },
    ];
    const input = { messages: [{}], role: "assistant", timestamp: 2 ** 60, metadata: null, rawEvent: null };
    expect(describeIssues(issues, input)).toBe(
      'the schema rejects /messages/0/id (required field is missing, expected string); /role (expected "reasoning", received another string); /timestamp (number above the maximum 9007199254740991) (+2 more)',
    );
  });

  it("R-PROC-4: an issue at the root is named as /", () => {
    expect(describeIssues([{ code: "invalid_type", path: [], expected: "object" }], [])).toBe(
      "the schema rejects / (expected object, received array)",
    );
  });
});

describe("describeIssues — unions", () => {
  it("R-PROC-4: a rejected plain union names the field at fault inside the alternative that got deepest", () => {
    const issue = {
      code: "invalid_union",
      path: ["messages", 0, "content"],
      errors: [
        [{ code: "invalid_type", path: [], expected: "string" }],
        [{ code: "invalid_type", path: [0, "text"], expected: "string" }],
      ],
    };
    const input = { messages: [{ content: [{ type: "text", text: 5 }] }] };
    expect(describeIssues([issue], input)).toBe(
      "the schema rejects /messages/0/content/0/text (expected string, received number)",
    );
  });

  it("R-PROC-4: when no alternative gets into the value, the union itself is named", () => {
    const issue = {
      code: "invalid_union",
      path: ["content"],
      errors: [
        [{ code: "invalid_type", path: [], expected: "string" }],
        [{ code: "invalid_type", path: [], expected: "array" }],
      ],
    };
    expect(describeIssues([issue], { content: 5 })).toBe(
      "the schema rejects /content (matches none of the allowed shapes, received number)",
    );
  });
});

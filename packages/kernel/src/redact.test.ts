import { describe, expect, it } from "vitest";
import { redactedPreview, redactValue } from "./index.js";

// Real-looking, not real: each has the shape of its provider's format.
const secrets = {
  anthropic: "sk-ant-api03-q8W2mZ7xR4tY9uI1oP3aS5dF6gH8jK0lZ2xC4vB6nM8qW0eR",
  openai: "sk-proj-Ab3Cd5Ef7Gh9Ij1Kl3Mn5Op7Qr9St1Uv3Wx5Yz",
  github: "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
  aws: "AKIAIOSFODNN7EXAMPLE",
  slack: "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
  jwt: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
};

describe("redaction", () => {
  it("removes provider-shaped secrets from strings anywhere in the value", () => {
    const args = {
      command: `curl -H "Authorization: Bearer ${secrets.openai}" https://x`,
      nested: [{ note: secrets.github }],
    };
    const preview = redactedPreview({ ...args, all: Object.values(secrets).join(" ") }, 10_000);
    for (const secret of Object.values(secrets)) expect(preview).not.toContain(secret);
  });

  it("redacts values under secret-looking keys and in URLs and assignments", () => {
    const value = redactValue({
      password: "hunter2hunter2",
      apiKey: "plain-looking-value",
      url: "https://admin:s3cr3tpass@db.example.com/x",
      env: "DB_PASSWORD=correct-horse-battery",
      harmless: "the token bucket algorithm",
    }) as Record<string, string>;
    expect(value["password"]).toBe("[REDACTED]");
    expect(value["apiKey"]).toBe("[REDACTED]");
    expect(value["url"]).not.toContain("s3cr3tpass");
    expect(value["env"]).not.toContain("correct-horse");
    expect(value["harmless"]).toBe("the token bucket algorithm");
  });

  it("removes known credential values wherever they appear", () => {
    expect(redactedPreview({ a: "prefix-opaque1234-suffix" }, 512, ["opaque1234"])).not.toContain(
      "opaque1234",
    );
  });

  it("bounds the preview", () => {
    expect(redactedPreview({ text: "x".repeat(10_000) }, 100).length).toBeLessThanOrEqual(101);
  });
});

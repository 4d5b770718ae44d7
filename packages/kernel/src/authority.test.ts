import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Access, type AuthorityLayer, defineLayer, evaluateAuthority, PabloError } from "./index.js";

const layer = (l: AuthorityLayer) => defineLayer(l);

describe("within one layer", () => {
  const policy = layer({
    id: "deployment",
    tool: {
      allow: [
        { id: "allow.fs", match: "fs.*" },
        { id: "allow.shell", match: "shell.run" },
      ],
      deny: [{ id: "deny.write", match: "fs.write" }],
    },
  });

  it("lets a deny rule win over a matching allow rule", () => {
    const d = evaluateAuthority([policy], [{ dimension: "tool", value: "fs.write" }]);
    expect(d).toMatchObject({ verdict: "deny", layer: "deployment", rule: "deny.write" });
  });

  it("denies what a non-empty allow list does not match, citing the default", () => {
    const d = evaluateAuthority([policy], [{ dimension: "tool", value: "plugin.acme.lint" }]);
    expect(d).toMatchObject({ verdict: "deny", layer: "deployment", rule: "default" });
    expect(d.reason).toContain("matched no allow rule");
  });

  it("cites the allow rule that admitted the call", () => {
    expect(evaluateAuthority([policy], [{ dimension: "tool", value: "fs.read" }])).toMatchObject({
      verdict: "allow",
      layer: "deployment",
      rule: "allow.fs",
    });
  });

  it("applies the layer default only when the allow list is empty", () => {
    const closed = layer({ id: "closed", net: { default: "deny" } });
    expect(evaluateAuthority([closed], [{ dimension: "net", url: "https://a.example/" }]).verdict).toBe(
      "deny",
    );
    expect(evaluateAuthority([closed], [{ dimension: "tool", value: "x" }]).verdict).toBe("allow");
  });
});

describe("across layers", () => {
  it("intersects: any layer's deny is final, and the outermost denying layer is cited", () => {
    const ceiling = layer({ id: "ceiling", tool: { deny: [{ id: "no-shell", match: "shell.*" }] } });
    const session = layer({ id: "session", tool: { allow: [{ id: "all", match: "*" }] } });
    const d = evaluateAuthority([ceiling, session], [{ dimension: "tool", value: "shell.run" }]);
    expect(d).toMatchObject({ verdict: "deny", layer: "ceiling", rule: "no-shell" });
  });

  it("cites the innermost explicit allow when every layer allows", () => {
    const a = layer({ id: "a", tool: { allow: [{ id: "a.fs", match: "fs.*" }] } });
    const b = layer({ id: "b", tool: { allow: [{ id: "b.read", match: "fs.read" }] } });
    expect(evaluateAuthority([a, b], [{ dimension: "tool", value: "fs.read" }])).toMatchObject({
      layer: "b",
      rule: "b.read",
    });
  });
});

describe("paths", () => {
  const roots = layer({ id: "roots", "fs.write": { allow: [{ id: "proj", path: "/w/proj" }] } });
  const write = (path: string): Access => ({ dimension: "fs.write", path });

  it("matches whole components, never a sibling that shares a prefix", () => {
    expect(evaluateAuthority([roots], [write("/w/proj/a.txt")]).verdict).toBe("allow");
    expect(evaluateAuthority([roots], [write("/w/proj")]).verdict).toBe("allow");
    expect(evaluateAuthority([roots], [write("/w/proj-evil/a.txt")]).verdict).toBe("deny");
    expect(evaluateAuthority([roots], [write("/w/pro")]).verdict).toBe("deny");
  });

  it("denies non-canonical paths instead of normalizing them", () => {
    for (const path of ["/w/proj/../etc/passwd", "/w/proj/./a", "w/proj/a", "/w/proj//a", "/w/proj/a\0"]) {
      expect(evaluateAuthority([roots], [write(path)]).verdict, path).toBe("deny");
    }
  });
});

describe("commands", () => {
  const git = "/usr/bin/git";
  const rules = layer({
    id: "deployment",
    command: {
      default: "deny",
      allow: [
        { id: "docs.git-status", executable: git, args: ["status"], match: "prefix" },
        { id: "docs.wc", executable: "/usr/bin/wc", args: [], match: "prefix" },
      ],
      deny: [{ id: "docs.no-force", executable: git, args: ["push", "--force"], match: "exact" }],
    },
  });
  const cmd = (executable: string, ...argv: string[]): Access => ({ dimension: "command", executable, argv });

  it("means what seed 000's example says", () => {
    expect(evaluateAuthority([rules], [cmd(git, "status", "--short")]).rule).toBe("docs.git-status");
    expect(evaluateAuthority([rules], [cmd("/usr/bin/wc", "-l", "README.md")]).verdict).toBe("allow");
    expect(evaluateAuthority([rules], [cmd(git, "push", "--force")]).rule).toBe("docs.no-force");
    expect(evaluateAuthority([rules], [cmd(git, "push")]).verdict).toBe("deny");
    expect(evaluateAuthority([rules], [cmd("/bin/git", "status")]).verdict).toBe("deny");
  });

  it("denies every simple command the rules cannot prove when any rule restricts commands", () => {
    const unproven: Access = { dimension: "command", unproven: "command substitution" };
    expect(evaluateAuthority([rules], [unproven])).toMatchObject({ verdict: "deny", rule: "unproven" });
    const denyOnly = layer({
      id: "d",
      command: { deny: [{ id: "x", executable: git, args: [], match: "prefix" }] },
    });
    expect(evaluateAuthority([denyOnly], [unproven]).verdict).toBe("deny");
    expect(evaluateAuthority([layer({ id: "open" })], [unproven]).verdict).toBe("allow");
  });

  it("needs every simple command of a line to be allowed", () => {
    const line = [cmd(git, "status"), cmd("/usr/bin/rm", "-rf", "/")];
    expect(evaluateAuthority([rules], line).verdict).toBe("deny");
  });
});

describe("network destinations", () => {
  const net = layer({
    id: "net",
    net: {
      allow: [
        { id: "api", prefix: "https://api.example.com/v1/" },
        { id: "docs", prefix: "https://docs.example.com" },
      ],
      deny: [{ id: "admin", prefix: "https://api.example.com/v1/admin" }],
    },
  });
  const verdict = (url: string) => evaluateAuthority([net], [{ dimension: "net", url }]).verdict;

  it("compares parsed URLs, so string tricks do not pass", () => {
    expect(verdict("https://api.example.com/v1/items")).toBe("allow");
    expect(verdict("https://API.Example.COM/v1/items")).toBe("allow");
    expect(verdict("https://api.example.com./v1/items")).toBe("deny");
    expect(verdict("https://api.example.com:443/v1/items")).toBe("allow");
    expect(verdict("https://api.example.com/v1")).toBe("deny");
    expect(verdict("https://api.example.com/")).toBe("deny");
    expect(verdict("https://api.example.com/v10/items")).toBe("deny");
    expect(verdict("https://api.example.com@evil.example/v1/items")).toBe("deny");
    expect(verdict("https://api.example.com.evil.example/v1/")).toBe("deny");
    expect(verdict("http://api.example.com/v1/items")).toBe("deny");
    expect(verdict("https://api.example.com:8443/v1/items")).toBe("deny");
    expect(verdict("https://api.example.com/v1/../v2/x")).toBe("deny");
    expect(verdict("https://api.example.com/v1/%2e%2e/v2/x")).toBe("deny");
    expect(verdict("https://api.example.com/v1/a%2F..%2F..%2Fv2")).toBe("deny");
    expect(verdict("https://api.example.com\\v1\\items")).toBe("deny");
    expect(verdict("not a url")).toBe("deny");
  });

  it("applies deny rules to the decoded path and refuses encoded spellings of it", () => {
    expect(verdict("https://api.example.com/v1/admin/users")).toBe("deny");
    expect(verdict("https://api.example.com/v1/x/..//admin")).toBe("deny");
    expect(verdict("https://api.example.com/v1/%41dmin")).toBe("deny");
    expect(
      evaluateAuthority([net], [{ dimension: "net", url: "https://api.example.com/v1/%61dmin" }]).rule,
    ).toBe("kernel.net-canonical");
  });

  it("compares internationalized hosts after IDNA and refuses other spellings of a numeric host", () => {
    const loop = layer({ id: "loop", net: { allow: [{ id: "lo", prefix: "http://127.0.0.1:8080/" }] } });
    const v = (url: string) => evaluateAuthority([loop], [{ dimension: "net", url }]).verdict;
    expect(v("http://127.0.0.1:8080/x")).toBe("allow");
    expect(v("http://2130706433:8080/x")).toBe("deny");
    expect(v("http://0x7f.1:8080/x")).toBe("deny");
    expect(v("http://127.1:8081/x")).toBe("deny");
    const idn = layer({ id: "idn", net: { allow: [{ id: "b", prefix: "https://bücher.example/" }] } });
    expect(
      evaluateAuthority([idn], [{ dimension: "net", url: "https://xn--bcher-kva.example/a" }]).verdict,
    ).toBe("allow");
    expect(evaluateAuthority([idn], [{ dimension: "net", url: "https://bucher.example/a" }]).verdict).toBe(
      "deny",
    );
  });
});

describe("layer validation", () => {
  const codeOf = (l: unknown) => {
    try {
      defineLayer(l as AuthorityLayer);
      return "ok";
    } catch (error) {
      return error instanceof PabloError ? `${error.code}: ${error.message}` : "other";
    }
  };
  it("refuses duplicate rule IDs, relative paths, bad URLs and unknown keys", () => {
    expect(
      codeOf({ id: "l", tool: { allow: [{ id: "x", match: "a" }], deny: [{ id: "x", match: "b" }] } }),
    ).toMatch(/duplicate rule ID x/);
    expect(codeOf({ id: "l", "fs.read": { allow: [{ id: "r", path: "relative/dir" }] } })).toMatch(
      /absolute/,
    );
    expect(codeOf({ id: "l", net: { allow: [{ id: "n", prefix: "example.com" }] } })).toMatch(/not a URL/);
    expect(codeOf({ id: "l", tools: {} })).toMatch(/INVALID_POLICY/);
    expect(codeOf({ id: "l", tool: { allow: [{ id: "x", match: "a", extra: 1 }] } })).toMatch(
      /INVALID_POLICY/,
    );
  });
});

describe("properties", () => {
  const names = ["fs.read", "fs.write", "shell.run", "mcp/a/b", "plugin.x.y"];
  const patterns = [...names, "fs.*", "*", "mcp/*", "*.run", "plugin.*.y"];
  const paths = ["/w", "/w/p", "/w/p/a", "/w/p-evil", "/etc", "/w/p/a/b"];
  const urls = ["https://a.example/", "https://a.example/v1/x", "https://b.example/v1", "http://a.example/"];

  let counter = 0;
  const id = () => fc.constant(null).map(() => `r${counter++}`);
  const nameRule = fc.record({ id: id(), match: fc.constantFrom(...patterns) });
  const pathRule = fc.record({ id: id(), path: fc.constantFrom(...paths) });
  const urlRule = fc.record({ id: id(), prefix: fc.constantFrom(...urls) });
  const policyOf = <T>(rule: fc.Arbitrary<T>) =>
    fc.record(
      {
        default: fc.constantFrom("allow" as const, "deny" as const),
        allow: fc.array(rule, { maxLength: 3 }),
        deny: fc.array(rule, { maxLength: 2 }),
      },
      { requiredKeys: [] },
    );
  const layerArb = fc
    .record(
      { tool: policyOf(nameRule), "fs.write": policyOf(pathRule), net: policyOf(urlRule) },
      { requiredKeys: [] },
    )
    .map((l) => ({ id: `layer${counter++}`, ...l }) as AuthorityLayer);
  const accessArb = fc.array(
    fc.oneof(
      fc.constantFrom(...names).map((value): Access => ({ dimension: "tool", value })),
      fc.constantFrom(...paths).map((path): Access => ({ dimension: "fs.write", path })),
      fc.constantFrom(...urls).map((url): Access => ({ dimension: "net", url })),
    ),
    { minLength: 1, maxLength: 4 },
  );

  it("adding a layer anywhere never widens what is allowed", () => {
    fc.assert(
      fc.property(
        fc.array(layerArb, { maxLength: 3 }),
        layerArb,
        fc.nat(),
        accessArb,
        (layers, extra, at, accesses) => {
          const position = at % (layers.length + 1);
          const widened = [...layers.slice(0, position), extra, ...layers.slice(position)];
          if (evaluateAuthority(widened, accesses).verdict === "allow") {
            expect(evaluateAuthority(layers, accesses).verdict).toBe("allow");
          }
        },
      ),
      { numRuns: 1500 },
    );
  });

  it("adding a deny rule never widens what is allowed", () => {
    fc.assert(
      fc.property(
        fc.array(layerArb, { minLength: 1, maxLength: 3 }),
        nameRule,
        fc.nat(),
        accessArb,
        (layers, rule, at, accesses) => {
          const index = at % layers.length;
          const target = layers[index] as AuthorityLayer;
          const withDeny = {
            ...target,
            tool: { ...target.tool, deny: [...(target.tool?.deny ?? []), rule] },
          };
          const changed = layers.map((l, i) => (i === index ? withDeny : l));
          if (evaluateAuthority(changed, accesses).verdict === "allow") {
            expect(evaluateAuthority(layers, accesses).verdict).toBe("allow");
          }
        },
      ),
      { numRuns: 1500 },
    );
  });

  it("the order of rules within a layer never changes the decision or the rule cited", () => {
    fc.assert(
      fc.property(
        fc.array(layerArb, { minLength: 1, maxLength: 3 }),
        accessArb,
        fc.nat(),
        (layers, accesses, seed) => {
          const shuffled = layers.map((l) => reverseRules(l, seed));
          expect(evaluateAuthority(shuffled, accesses)).toEqual(evaluateAuthority(layers, accesses));
        },
      ),
      { numRuns: 1500 },
    );
  });
});

function reverseRules(layer: AuthorityLayer, seed: number): AuthorityLayer {
  const rotate = (list: readonly unknown[] | undefined) => {
    if (!list || list.length === 0) return list;
    const k = seed % list.length;
    return [...list.slice(k), ...list.slice(0, k)].reverse();
  };
  const out: Record<string, unknown> = { id: layer.id };
  for (const key of ["tool", "fs.write", "net"] as const) {
    const policy = layer[key];
    if (!policy) continue;
    out[key] = { ...policy, allow: rotate(policy.allow), deny: rotate(policy.deny) };
  }
  return out as AuthorityLayer;
}

import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { createCatalog, createKernel, ok } from "./index.js";
import { echoTool } from "./test-support/tools.js";

describe("OpenTelemetry spans", () => {
  it("record one span per call with decisions and timings, never arguments or content", async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const tracer = provider.getTracer("pablo-test");
    const tool = echoTool({
      execute: async (args) => ok({ content: `secret body ${(args as { text: string }).text}` }),
    });
    const session = createKernel({ tracer, captureContent: true }).openSession({
      catalog: createCatalog([tool]),
    });
    await session.call({ tool: "test_echo", args: { text: "/home/alice/.ssh/id_rsa" } });
    await session.call({ tool: "test_echo", args: { text: 1 } });
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => [s.name, s.attributes["pablo.ok"]])).toEqual([
      ["pablo.tool.call", true],
      ["pablo.tool.call", false],
    ]);
    expect(spans[1]?.attributes["pablo.error.code"]).toBe("INVALID_ARGUMENT");
    const everything = JSON.stringify(
      spans.map((s) => ({ attributes: s.attributes, events: s.events, name: s.name })),
    );
    expect(everything).not.toMatch(/id_rsa|secret body|alice/);
  });
});

import { onAbortOf } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { RequestSignal } from "./request-signal.js";

describe("the signal a call gives the SDK", () => {
  it("aborts with the call's reason and runs each abort listener once", () => {
    const controller = new AbortController();
    const signal = new RequestSignal(onAbortOf(controller.signal));
    const heard: string[] = [];
    signal.addEventListener("abort", () => heard.push(`first: ${String(signal.reason)}`));
    signal.addEventListener("abort", () => heard.push("second"));
    expect(() => signal.throwIfAborted()).not.toThrow();
    controller.abort("stop");
    controller.abort("again");
    expect(signal.aborted).toBe(true);
    expect(heard).toEqual(["first: stop", "second"]);
    expect(() => signal.throwIfAborted()).toThrow("stop");
  });

  it("starts aborted when the call already is, and never calls a listener added after", () => {
    const signal = new RequestSignal(onAbortOf(AbortSignal.abort("gone")));
    let called = 0;
    signal.addEventListener("abort", () => called++);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe("gone");
    expect(called).toBe(0);
  });

  it("keeps removed listeners and everything after dispose from running", () => {
    const controller = new AbortController();
    const signal = new RequestSignal(onAbortOf(controller.signal));
    let called = 0;
    const listener = () => called++;
    signal.addEventListener("abort", listener);
    signal.removeEventListener("abort", listener);
    signal.addEventListener("abort", () => called++);
    signal.dispose();
    controller.abort();
    expect(signal.aborted).toBe(false);
    expect(called).toBe(0);
  });
});

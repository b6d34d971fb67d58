import { describe, expect, it } from "vitest";
import { rememberAnswers } from "../../../src/app/remember-answers.js";

describe("rememberAnswers", () => {
  it("asks once per key while the answer is kept, and again once it is not", async () => {
    let clock = 0;
    const remembered = rememberAnswers({ cacheMs: 60_000, now: () => clock });
    let asked = 0;
    const ask = async () => ++asked;
    expect(await remembered("writer octo/demo", ask)).toBe(1);
    expect(await remembered("writer octo/demo", ask)).toBe(1);
    expect(await remembered("reader octo/demo", ask)).toBe(2);
    clock = 60_000;
    expect(await remembered("writer octo/demo", ask)).toBe(3);
  });

  it("keeps no failed answer: the next question asks again", async () => {
    const remembered = rememberAnswers({ cacheMs: 60_000, now: () => 0 });
    await expect(remembered("k", async () => Promise.reject(new Error("GitHub did not answer")))).rejects.toThrow("GitHub did not answer");
    await new Promise((resolve) => setImmediate(resolve));
    expect(await remembered("k", async () => "answered")).toBe("answered");
  });
});

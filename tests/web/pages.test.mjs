// Every page the box renders (tests/support/box_pages_dump writes them for the
// starter manifests, hostile answers and all) is checked by html-validate with
// its recommended and accessibility rules, and the optional script parses.
import { test } from "node:test";
import assert from "node:assert/strict";
import vm from "node:vm";
import { HtmlValidate } from "html-validate";
import { rendered } from "./dump.mjs";

const validator = new HtmlValidate({
  extends: ["html-validate:recommended", "html-validate:a11y"],
  rules: {
    // Not in the presets of this version, and exactly what a form must get right.
    "input-missing-label": "error",
    "no-missing-references": "error",
    "no-redundant-for": "error",
    "no-implicit-input-type": "error",
    "empty-heading": "error",
    "empty-title": "error",
    "text-content": "error",
    "hidden-focusable": "error",
    "aria-label-misuse": "error",
    "prefer-native-element": "error",
    "no-inline-style": "error",
    // A multi_select is a group of checkboxes sharing one name: that is how
    // HTML posts several choices (docs/protocol/box-pages.md §7 keeps every repeated key).
    "form-dup-name": ["error", { shared: ["radio", "checkbox", "button", "reset", "submit"] }],
  },
});

test("every page the box renders is valid, accessible HTML", async () => {
  const { pages } = rendered();
  assert.ok(pages.length >= 50, `only ${pages.length} pages were rendered`);
  const problems = [];
  for (const { name, html } of pages) {
    const report = await validator.validateString(html, name);
    for (const result of report.results)
      for (const m of result.messages)
        problems.push(`${name}:${m.line}:${m.column} ${m.ruleId}: ${m.message}`);
  }
  assert.deepEqual(problems, []);
});

test("the optional script is JavaScript that parses", () => {
  const js = rendered().asset("form.js");
  assert.doesNotThrow(() => new vm.Script(js, { filename: "form.js" }));
  assert.match(js, /data-when-field/);
});

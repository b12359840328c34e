// Every page the box renders (tests/support/box_pages_dump writes them for the
// starter manifests, hostile answers and all) is checked by html-validate with
// its recommended and accessibility rules, and the optional script parses.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { HtmlValidate } from "html-validate";

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, "..", "fixtures", "types");
const dump = process.env.BOX_PAGES_DUMP;

function rendered() {
  assert.ok(dump, "BOX_PAGES_DUMP names the page dumper (make web-test sets it)");
  const dir = mkdtempSync(join(tmpdir(), "mecha-pages-"));
  execFileSync(dump, [fixtures, dir], { stdio: "inherit" });
  const names = readFileSync(join(dir, "index.txt"), "utf8").split("\n").filter(Boolean);
  const read = (name) => readFileSync(join(dir, name), "utf8");
  const pages = names.map((name) => ({ name, html: read(name) }));
  const js = read("form.js");
  rmSync(dir, { recursive: true, force: true });
  return { pages, js };
}

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
    // HTML posts several choices (spec/box.md §6 keeps every repeated key).
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
  const { js } = rendered();
  assert.doesNotThrow(() => new vm.Script(js, { filename: "form.js" }));
  assert.match(js, /data-when-field/);
});

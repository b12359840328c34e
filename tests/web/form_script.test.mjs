// The optional script (form.js) run against the rendered forms in jsdom: a field
// whose show_when does not hold is hidden and disabled (so it is not posted), a
// shown conditional field gets its `required` back, steps hide as a whole, and a
// condition on a hidden field settles. Without the script nothing is hidden.
import { test } from "node:test";
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";
import { rendered } from "./dump.mjs";

const site = rendered();

function form(name, script = true) {
  const dom = new JSDOM(site.page(name), { runScripts: "outside-only" });
  if (script) dom.window.eval(site.asset("form.js"));
  const { document } = dom.window;
  const f = document.querySelector("form");
  return {
    el: (id) => document.getElementById(id),
    set(name, value) {
      const control = f.elements.namedItem(name);
      if (control.type === "checkbox") control.checked = value;
      else control.value = value;
      control.dispatchEvent(new dom.window.Event("change", { bubbles: true }));
    },
    posted: () => [...new dom.window.FormData(f).keys()],
  };
}

test("a field shows only when its condition holds, and is required only then", () => {
  const page = form("form-meeting.html");
  assert.equal(page.el("field-other_detail").hidden, true);
  assert.equal(page.el("f-other_detail").disabled, true);
  assert.ok(!page.posted().includes("other_detail"));
  page.set("purpose", "other");
  assert.equal(page.el("field-other_detail").hidden, false);
  assert.equal(page.el("f-other_detail").disabled, false);
  assert.equal(page.el("f-other_detail").required, true);
  assert.ok(page.posted().includes("other_detail"));
  page.set("purpose", "press");
  assert.equal(page.el("field-other_detail").hidden, true);
  assert.equal(page.el("f-other_detail").required, false);
});

test("a step hides as a whole, and a field on it follows its own condition too", () => {
  const page = form("form-speaking.html");
  assert.equal(page.el("step-travel").hidden, true);
  assert.ok(!page.posted().includes("travel_covered"));
  page.set("format", "in_person");
  assert.equal(page.el("step-travel").hidden, false);
  assert.equal(page.el("field-origin_city").hidden, true);
  page.set("travel_covered", true);
  assert.equal(page.el("field-origin_city").hidden, false);
  assert.ok(page.posted().includes("origin_city"));
  page.set("format", "remote");
  assert.equal(page.el("step-travel").hidden, true);
  assert.ok(!page.posted().includes("origin_city"));
});

test("in, not_in and is_true chain: hiding a field hides what depends on it", () => {
  const page = form("form-lab-application.html");
  assert.equal(page.el("field-years_experience").hidden, true);
  // a blank choice is posted as "", which is not "undergrad": as the server reads it
  assert.equal(page.el("field-funding").hidden, false);
  page.set("position", "postdoc");
  assert.equal(page.el("field-years_experience").hidden, false);
  assert.equal(page.el("field-funding").hidden, false);
  page.set("funding", true);
  assert.equal(page.el("field-funding_source").hidden, false);
  assert.equal(page.el("f-funding_source").required, true);
  page.set("position", "undergrad");
  assert.equal(page.el("field-funding").hidden, true);
  assert.equal(page.el("field-funding_source").hidden, true);
  assert.ok(!page.posted().includes("funding_source"));
});

test("without the script every field is there, and none of the conditional ones is required", () => {
  const page = form("form-lab-application.html", false);
  for (const id of ["field-years_experience", "field-funding", "field-funding_source"])
    assert.equal(page.el(id).hidden, false, id);
  assert.equal(page.el("f-funding_source").required, false);
  assert.ok(page.posted().includes("funding_source"));
});

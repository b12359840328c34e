// A stranger in a real browser: headless Chromium (Debian's) fills in a form a
// real `mecha box serve` renders, with a conditional field and a multi-select,
// meets a validation error, fixes it, follows the link from the mail the SMTP
// sink caught, confirms, and the request waits in the drain's queue. Once with
// scripts on and once with them off. Every page is kept as a screenshot under
// build/screenshots/{js,nojs}/ (SCREENSHOTS names another place).
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { startBox } from "./box.mjs";
import { CHROMIUM, haveChromium, openBrowser, shoot, answer, post } from "./browser.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SHOTS = process.env.SCREENSHOTS || join(ROOT, "build", "screenshots");

const MEETING = `id = "meeting"
version = 1
title = "Request a meeting"
description = "Tell me what it is about."

[[fields]]
name = "requester_name"
label = "Your name"
kind = "text"
max_length = 120
required = true

[[fields]]
name = "requester_email"
label = "Your email"
kind = "email"
required = true

[[fields]]
name = "purpose"
label = "What is it about"
kind = "select"
required = true
options = [{ value = "collaboration", label = "A collaboration" }, { value = "other", label = "Something else" }]

[[fields]]
name = "other_detail"
label = "Say a little more"
kind = "long_text"
max_length = 1000
required = true
show_when = { field = "purpose", op = "eq", value = "other" }

[[fields]]
name = "topics"
label = "Topics"
kind = "multi_select"
max_choices = 2
options = [{ value = "ai", label = "AI" }, { value = "art", label = "Art" }, { value = "law", label = "Law" }]

[verification]
field = "requester_email"

[confirmation]
heading = "Thank you, {requester_name}"
body = "Your request about {purpose} is in the queue."
`;

const CONSULT = readFileSync(join(ROOT, "tests", "fixtures", "box", "consult.toml"), "utf8");

const skip = haveChromium() ? false
  : `${CHROMIUM} is absent: install Debian's chromium (make deps) to run the browser tests`;

// The link in the last mail the sink caught for `to`, once it has arrived (the
// box's worker sends it after the page has answered).
async function mailedLink(box, to) {
  for (const deadline = Date.now() + 30000; Date.now() < deadline;) {
    const mail = box.mails().filter((m) => m.headers.includes(`To: ${to}`)).pop();
    if (mail) return mail.body.split("\n").find((line) => line.includes("/c/")).trim();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no mail reached ${to}`);
}

const ticked = (page, name) =>
  page.locator(`input[name="${name}"]:checked`).evaluateAll((els) => els.map((el) => el.value));

// The visit, page by page; `shots` is where its screenshots go.
async function stranger(box, page, { js, email, shots }) {
  const at = (name) => join(shots, name);
  await page.goto(`${box.url}/f/ada/meeting`);
  assert.equal(await page.locator("h1").textContent(), "Request a meeting");
  assert.equal(await page.locator("body").evaluate((el) => getComputedStyle(el).backgroundColor),
               "rgb(246, 246, 249)", "form.css applies");
  const detail = page.locator("#field-other_detail");
  assert.equal(await detail.isVisible(), !js, "only the script hides what does not apply yet");
  await shoot(page, at("01-form.png"));

  await answer(page, { requester_name: "Grace Hopper", requester_email: email, purpose: "other" });
  await detail.waitFor(); // shown by the script as soon as it applies; always shown without
  await answer(page, { other_detail: "Compilers, over tea.", topics: ["ai", "art", "law"] });
  await shoot(page, at("02-filled.png"));

  assert.equal(await post(page, "form button[type=submit]", "#errors"), 400);
  assert.equal(await page.locator("#field-topics .error").textContent(), "choose at most 2");
  assert.equal(await page.locator("#field-topics").getAttribute("aria-describedby"), "error-topics");
  assert.equal(await page.inputValue("#f-requester_name"), "Grace Hopper");
  assert.equal(await page.inputValue("#f-requester_email"), email);
  assert.equal(await page.inputValue("#f-purpose"), "other");
  assert.equal(await page.inputValue("#f-other_detail"), "Compilers, over tea.");
  assert.deepEqual(await ticked(page, "topics"), ["ai", "art", "law"]);
  assert.ok(await detail.isVisible());
  await shoot(page, at("03-error.png"));

  await answer(page, { topics: ["ai", "law"] });
  assert.equal(await post(page, "form button[type=submit]", "h1:text-is('Check your email')"), 200);
  assert.match(await page.locator("main").textContent(), new RegExp(email));
  await shoot(page, at("04-check-email.png"));

  const link = await mailedLink(box, email);
  assert.ok(link.startsWith(`${box.url}/f/ada/meeting/c/`), link);
  await page.goto(link);
  assert.equal(await page.locator("h1").textContent(), "Confirm your email address");
  assert.deepEqual(await queued(box, email), [], "opening the link spends nothing");
  await shoot(page, at("05-confirm.png"));

  assert.equal(await post(page, "button:text-is('Confirm')", "h1:has-text('Thank you')"), 200);
  assert.equal(await page.locator("h1").textContent(), "Thank you, Grace Hopper");
  await shoot(page, at("06-confirmed.png"));
}

async function queued(box, email) {
  return (await box.queue()).filter((r) => r.payload.requester_email === email)
    .map(({ type, state, payload }) => ({ type, state, payload }));
}

async function walk(box, mode, js, email) {
  const shots = join(SHOTS, mode);
  rmSync(shots, { recursive: true, force: true });
  const browser = await openBrowser(tmpdir(), { javaScript: js });
  try {
    await stranger(box, browser.page, { js, email, shots });
  } finally {
    await browser.close();
  }
  assert.deepEqual(await queued(box, email), [{
    type: "meeting", state: "queued",
    payload: { requester_name: "Grace Hopper", requester_email: email, purpose: "other",
               other_detail: "Compilers, over tea.", topics: ["ai", "law"],
               _type_version: 1 }, // the box stamps the version it served (docs/protocol)
  }]);
}

// `hour` o'clock UTC, `days` from today: two such times share a day, so a week.
function dayAhead(days, hour) {
  const t = new Date(Date.now() + days * 86400000);
  t.setUTCHours(hour, 0, 0, 0);
  return t;
}

describe("a stranger in a real browser", { skip }, () => {
  let dir, box;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "mecha-browser-"));
    box = await startBox(dir);
    await box.putType(MEETING);
    await box.putType(CONSULT);
  });
  after(async () => {
    await box?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("with scripts on, a form is filled, corrected, confirmed from the mail and queued",
       () => walk(box, "js", true, "grace@example.org"));

  test("with scripts off, the same form works the same way",
       () => walk(box, "nojs", false, "hopper@example.org"));

  test("the booking page shows the times home pushed", async () => {
    const starts = [dayAhead(2, 10), dayAhead(2, 12)];
    await box.pushSlots("consult", starts.map((s) => ({
      start: s.toISOString().replace(".000Z", "Z"),
      end: new Date(s.getTime() + 1800000).toISOString().replace(".000Z", "Z"),
      duration_minutes: 30 })));
    const shots = join(SHOTS, "booking");
    rmSync(shots, { recursive: true, force: true });
    const browser = await openBrowser(tmpdir());
    try {
      const { page } = browser;
      const week = starts[0].toISOString().slice(0, 10);
      await page.goto(`${box.url}/s/ada/consult?week=${week}&mins=30`);
      assert.equal(await page.locator("h1").textContent(), "Book a consultation");
      assert.equal(await page.locator("input[name=_slot]").count(), 2);
      await shoot(page, join(shots, "01-week.png"));
    } finally {
      await browser.close();
    }
  });
});

// make demo's strangers, in headless Chromium, on a running box whose mail is
// its log (the demo's box has no [mail]): each visit keeps a screenshot of every
// page it passes through.
//
//   node tests/web/demo_stranger.mjs form FORM-URL BOX-LOG SHOTS-DIR ANSWERS-JSON
//     opens a form, answers it, submits, follows the verification link the box
//     logged, confirms (01-05)
//   node tests/web/demo_stranger.mjs book WEEK-URL BOX-LOG SHOTS-DIR ANSWERS-JSON
//     opens a booking type's week, picks its first time, answers, holds it,
//     follows the logged link, confirms the booking (06-09)
//   node tests/web/demo_stranger.mjs cancel MANAGE-URL SHOTS-DIR
//     opens a booking's manage link and cancels it (10-11)
//
// Prints each screenshot's path (and, for a booking, the time the page says was
// booked). The browser's profile goes under TMPDIR and is removed when it
// closes. Exit 1, saying why, if any page is not what it should be.
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openBrowser, shoot, answer, post } from "./browser.mjs";

const USAGE = "usage: demo_stranger.mjs form|book URL BOX-LOG SHOTS-DIR ANSWERS-JSON\n" +
              "       demo_stranger.mjs cancel MANAGE-URL SHOTS-DIR";

function loggedLinks(log) {
  return readFileSync(log, "utf8").split("\n").filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l)).filter((e) => e.event === "verification_link");
}

// The newest verification link the box logged after `seen` earlier ones.
async function loggedLink(log, seen) {
  for (const deadline = Date.now() + 30000; Date.now() < deadline;) {
    const links = loggedLinks(log);
    if (links.length > seen) return links.at(-1).link;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the box logged no verification link in ${log}`);
}

function keeper(page, shots) {
  return async (name) => console.log("  " + (await shoot(page, join(shots, name))));
}

async function form(page, [url, log, shots, answers]) {
  const kept = keeper(page, shots);
  await page.goto(url);
  await kept("01-form.png");
  await answer(page, JSON.parse(answers));
  await kept("02-filled.png");
  const seen = loggedLinks(log).length;
  const status = await post(page, "form button[type=submit]", "h1:text-is('Check your email')");
  if (status !== 200) throw new Error(`the form answered ${status}`);
  await kept("03-check-email.png");
  await page.goto(await loggedLink(log, seen));
  await page.locator("h1:text-is('Confirm your email address')").waitFor();
  await kept("04-confirm.png");
  await post(page, "button:text-is('Confirm')", "h1:has-text('Thank')");
  await kept("05-confirmed.png");
}

async function book(page, [url, log, shots, answers]) {
  const kept = keeper(page, shots);
  await page.goto(url);
  await page.locator("input[name=_slot]").first().check();
  await answer(page, JSON.parse(answers));
  await kept("06-week.png");
  const seen = loggedLinks(log).length;
  const status = await post(page, "button:text-is('Book this time')", "h1:text-is('Almost there')");
  if (status !== 200) throw new Error(`the week page answered ${status}`);
  await kept("07-held.png");
  await page.goto(await loggedLink(log, seen));
  await page.locator("h1:text-is('Confirm your booking')").waitFor();
  await kept("08-confirm.png");
  await post(page, "button:text-is('Confirm and book')", "h1:text-is('You\u2019re booked')");
  await kept("09-booked.png");
  const when = (await page.locator(".when-booked").first().textContent()).trim();
  console.log(`  "You\u2019re booked": ${when.replace(/\s+/g, " ")}`);
}

async function cancel(page, [url, shots]) {
  const kept = keeper(page, shots);
  await page.goto(url);
  await page.locator("button:text-is('Cancel this booking')").waitFor();
  await kept("10-manage.png");
  await post(page, "button:text-is('Cancel this booking')", "h1:text-is('Cancelled')");
  await kept("11-cancelled.png");
}

const VISITS = { form: [form, 4], book: [book, 4], cancel: [cancel, 2] };
const [name, ...args] = process.argv.slice(2);
if (!VISITS[name] || args.length !== VISITS[name][1]) {
  console.error(USAGE);
  process.exit(2);
}
const browser = await openBrowser(tmpdir());
try {
  await VISITS[name][0](browser.page, args);
} catch (e) {
  console.error(`the browser's visit failed: ${e.message}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}

// The JSON Schema `mecha types schema` emits, checked by a validator that is
// not ours (ajv, draft 2020-12): every record `mecha types validate` coerces
// passes its type's schema, and every refused submission the schema can state
// fails it too. A refusal the schema cannot state (a condition, a rule of the
// validator's own) is listed in the corpus with the reason.
//
// Draft 2020-12 makes `format` an annotation, so formats are not asserted;
// `formatMinimum`/`formatMaximum` are declared as annotations, which keeps
// ajv strict about everything else (a malformed schema fails to compile).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import Ajv2020 from 'ajv/dist/2020.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = process.env.MECHA_BIN || path.join(ROOT, 'build', 'test', 'mecha');
const FIXTURES = path.join(ROOT, 'tests', 'fixtures', 'types');
const CORPUS = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'submissions.json'), 'utf8'));

function home() {
  const h = fs.mkdtempSync(path.join(os.tmpdir(), 'mecha-types-'));
  const dir = path.join(h, 'factory', 'types');
  fs.mkdirSync(dir, { recursive: true });
  for (const f of fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.toml'))) {
    fs.copyFileSync(path.join(FIXTURES, f), path.join(dir, f));
  }
  return h;
}

function mecha(h, args, input) {
  const env = { ...process.env, MECHA_HOME: h, HOME: h };
  const p = spawnSync(BIN, args, { input, env, encoding: 'utf8' });
  return { status: p.status, out: p.stdout, err: p.stderr };
}

function ajv() {
  const a = new Ajv2020({ strict: true, allErrors: true, validateFormats: false });
  a.addKeyword({ keyword: 'formatMinimum', schemaType: 'string' });
  a.addKeyword({ keyword: 'formatMaximum', schemaType: 'string' });
  return a;
}

test('every type\'s schema compiles under a strict draft 2020-12 validator', () => {
  const h = home();
  const types = fs.readdirSync(FIXTURES).filter((f) => f.endsWith('.toml')).map((f) => f.slice(0, -5));
  assert.ok(types.length >= 6);
  for (const t of types) {
    const p = mecha(h, ['types', 'schema', t]);
    assert.equal(p.status, 0, p.err);
    ajv().compile(JSON.parse(p.out));
  }
  fs.rmSync(h, { recursive: true, force: true });
});

test('coerced records pass their schema and the refusals it can state fail it', () => {
  const h = home();
  const validators = {};
  let accepted = 0, refusedBoth = 0, validatorOnly = 0;
  for (const c of CORPUS.cases) {
    if (!validators[c.type]) {
      const s = mecha(h, ['types', 'schema', c.type]);
      assert.equal(s.status, 0, s.err);
      validators[c.type] = ajv().compile(JSON.parse(s.out));
    }
    const check = validators[c.type];
    const what = `${c.type} ${JSON.stringify(c.raw)}`;
    const p = mecha(h, ['types', 'validate', c.type], JSON.stringify(c.raw));
    if (c.valid) {
      assert.equal(p.status, 0, `the validator refused ${what}: ${p.out}`);
      const values = JSON.parse(p.out).values;
      assert.ok(check(values), `${what}\ncoerced to ${JSON.stringify(values)}\n` +
        `fails its schema: ${JSON.stringify(check.errors)}`);
      accepted++;
    } else {
      assert.equal(p.status, 3, `the validator accepted ${what}: ${p.out}`);
      assert.equal(JSON.parse(p.out).error, 'invalid_submission');
      if (c.schema === 'refuses') {
        assert.equal(check(c.raw), false, `the schema accepts a refused ${what}`);
        refusedBoth++;
      } else {
        assert.ok(c.schema.length > 10, `a case the schema cannot state says why: ${what}`);
        validatorOnly++;
      }
    }
  }
  assert.ok(accepted >= 12 && refusedBoth >= 25, `${accepted} accepted, ${refusedBoth} refused`);
  assert.ok(validatorOnly > 0);
  fs.rmSync(h, { recursive: true, force: true });
});

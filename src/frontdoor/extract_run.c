/*
 * extract_run — one `extract` from start to finish: the provider from the
 * configuration, the records the table allows, up to N calls in flight, and
 * each result landed under the lock the moment it is known (so a run stopped
 * half way keeps what it finished). What is said about each landing is the
 * front end's business, through the report.
 */
#include "frontdoor/extract.h"

#include "base/buf.h"
#include "base/err.h"
#include "config/config.h"
#include "frontdoor/model.h"
#include "requests/store.h"
#include "provider/provider.h"

#include <stdlib.h>

struct run {
	struct store store;
	struct provider_conf conf;
	struct extract_batch batch;
	struct provider_batch *calls;
	const struct extract_report *report;
	struct err failed;           /* why the run stopped early (failed.code set) */
};

static void tell(struct run *run, const struct extract_job *j, int landed, const struct err *why)
{
	if (run->report && run->report->on_landed)
		run->report->on_landed(j, landed, why, run->report->ctx);
}

/* Lands j, says so, and frees it (j itself is malloc'd). */
static void land(struct run *run, struct extract_job *j)
{
	struct err e;
	int rc = extract_land(&run->store, j, &e);

	tell(run, j, rc, &e);
	extract_job_free(j);
	free(j);
}

static int send_job(struct run *run, struct extract_job *j, struct err *e)
{
	struct provider_request req;
	int rc;

	provider_request_init(&req, EXTRACT_MAX_TOKENS);
	provider_request_user(&req, j->prompt);
	rc = provider_batch_add(run->calls, &req, j, e);
	provider_request_free(&req);
	return rc;
}

/*
 * Opens picks until one needs a call and sends it (returns 1), or none is
 * left (0), or a send failed (-1, run->failed says why). Jobs answered at
 * once (no prose, the rules extractor) and records moved since the selection
 * are reported on the way, as they would be after a call.
 */
static int start_next(struct run *run)
{
	struct extract_pick pick;

	while (extract_batch_take(&run->batch, &pick)) {
		struct extract_job *j = xmalloc(sizeof *j);
		struct err e;
		int next = extract_job_open(&run->store, &pick, &run->conf, j, &e);

		if (next == EXTRACT_CALL && run->calls) {
			if (send_job(run, j, &run->failed) == 0)
				return 1;
			extract_job_free(j);
			free(j);
			return -1;
		}
		if (next == EXTRACT_GONE || next < 0) {
			tell(run, j, next < 0 ? -1 : EXTRACT_DROPPED, &e);
			extract_job_free(j);
			free(j);
		} else {
			land(run, j);
		}
	}
	return 0;
}

static void on_answer(void *ctx, void *tag, struct provider_response *resp, const struct err *e)
{
	struct run *run = ctx;
	struct extract_job *j = tag;
	struct err add;

	if (extract_job_answer(j, resp, e) == EXTRACT_CALL) {
		if (send_job(run, j, &add) == 0)
			return;
		free(j->error);
		j->error = xstrdup(add.msg);
	}
	land(run, j);
	if (!run->failed.code)
		(void)start_next(run);
}

/* Keeps up to jobs calls in flight, opening the next pick as each one lands. */
static int run_calls(struct run *run, unsigned jobs, struct err *e)
{
	if (!provider_is_rules(&run->conf)) {
		run->calls = provider_batch_new(&run->conf, jobs, on_answer, run, e);
		if (!run->calls)
			return -1;
	}
	for (unsigned i = 0; i < jobs && !run->failed.code; i++)
		if (start_next(run) <= 0)
			break;
	if (run->calls) {
		provider_batch_run(run->calls);
		provider_batch_free(run->calls);
		run->calls = NULL;
	}
	if (run->failed.code) {
		*e = run->failed;
		return -1;
	}
	return 0;
}

static int select_jobs(struct run *run, const struct extract_opts *o, struct err *e)
{
	if (o->seq >= 0)
		return extract_select_one(&run->store, o->seq, o->force, &run->batch, e);
	return extract_select_all(&run->store, o->retry_failed, &run->batch, e);
}

int extract_run(const struct extract_opts *o, const struct extract_report *r, struct err *e)
{
	struct run run = { .report = r };
	struct config cfg;
	int rc = -1;

	if (config_load(&cfg, e) != 0)
		return -1;
	if (model_conf(&cfg, &run.conf, e) != 0) {
		config_free(&cfg);
		return -1;
	}
	if (store_open_default(&run.store, STORE_CREATE, e) == 0) {
		rc = select_jobs(&run, o, e);
		if (rc == 0 && r && r->on_start)
			r->on_start(run.batch.n, r->ctx);
		if (rc == 0)
			rc = run_calls(&run, o->jobs ? o->jobs : 1, e);
		store_close(&run.store);
	}
	extract_batch_free(&run.batch);
	model_conf_release(&run.conf);
	config_free(&cfg);
	return rc;
}

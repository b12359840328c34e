/*
 * progress — one line, rewritten in place, on standard error when it is a
 * terminal. The rate is the average since the start (items vary too much for
 * a recent window to mean more), and the time left is what remains at that
 * rate.
 */
#include "cli/progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define REDRAW_EVERY 0.1 /* seconds */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void duration(char *out, size_t size, double s)
{
	long t = (long)(s + 0.5);

	if (t < 60)
		snprintf(out, size, "%lds", t);
	else if (t < 3600)
		snprintf(out, size, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(out, size, "%ldh%02ldm", t / 3600, t % 3600 / 60);
}

static void progress_format(char *out, size_t size, const char *label, size_t done, size_t total,
		     double elapsed)
{
	double rate = elapsed > 0 ? (double)done / elapsed : 0;
	char left[32] = "?";

	if (done >= total)
		snprintf(left, sizeof left, "0s");
	else if (rate > 0)
		duration(left, sizeof left, (double)(total - done) / rate);
	if (rate > 0)
		snprintf(out, size, "%s  %zu/%zu  %.1f/s  ETA %s", label, done, total, rate, left);
	else
		snprintf(out, size, "%s  %zu/%zu  -/s  ETA %s", label, done, total, left);
}

static void draw(struct progress *p)
{
	char line[160];
	double t = now();

	if (!p->tty || !p->total)
		return;
	if (p->shown && p->done < p->total && t - p->drawn_at < REDRAW_EVERY)
		return;
	progress_format(line, sizeof line, p->label, p->done, p->total, t - p->started);
	fflush(stdout); /* what the verb printed goes above the meter */
	fprintf(stderr, "\r\033[K%s", line);
	fflush(stderr);
	p->shown = 1;
	p->drawn_at = t;
}

void progress_begin(struct progress *p, const char *label)
{
	p->label = label;
	p->done = p->total = 0;
	p->started = p->drawn_at = now();
	p->tty = isatty(STDERR_FILENO);
	p->shown = 0;
}

void progress_total(struct progress *p, size_t total)
{
	p->total = total;
	draw(p);
}

void progress_step(struct progress *p)
{
	p->done++;
	draw(p);
}

void progress_set(struct progress *p, size_t done, size_t total)
{
	p->done = done;
	p->total = total;
	draw(p);
}

void progress_hide(struct progress *p)
{
	if (!p->shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	p->shown = 0;
}

void progress_end(struct progress *p)
{
	progress_hide(p);
	p->tty = 0;
}

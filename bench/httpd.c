/*
 * httpd — the box rows' two baselines, on libmicrohttpd in the box's own
 * mode (an internal polling thread, epoll, a pool of THREADS threads):
 *
 *   httpd PORT THREADS hello
 *	every GET answers 200 "Hello, world!\n": the cost of the HTTP library
 *	alone, the ceiling for any page the box renders.
 *   httpd PORT THREADS static FILE CONTENT-TYPE
 *	every GET answers FILE's bytes, read once at start: a static server
 *	sending exactly what a box page sends, so the row's ratio is what the
 *	box spends deciding those bytes.
 *
 * Prints "listening" on stdout once it accepts, and serves until SIGTERM.
 * Built by `make bench` (build/bench/httpd); links libc and libmicrohttpd.
 */
#include <microhttpd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *body;
static size_t body_len;
static const char *content_type = "text/plain";

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_len, void **state)
{
	struct MHD_Response *r;
	enum MHD_Result rc;

	(void)cls, (void)url, (void)method, (void)version, (void)upload, (void)upload_len;
	if (!*state) { /* the headers: answer once the (empty) body is in */
		*state = c;
		return MHD_YES;
	}
	r = MHD_create_response_from_buffer(body_len, (void *)body, MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(r, "Content-Type", content_type);
	rc = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return rc;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
	    !(data = malloc((size_t)n + 1)) || fread(data, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		exit(1);
	}
	fclose(f);
	*len = (size_t)n;
	return data;
}

int main(int argc, char **argv)
{
	struct MHD_Daemon *d;
	sigset_t set;
	int sig;

	if (argc < 4 || (strcmp(argv[3], "static") == 0 && argc != 6)) {
		fprintf(stderr, "usage: httpd PORT THREADS hello | static FILE CONTENT-TYPE\n");
		return 2;
	}
	if (strcmp(argv[3], "static") == 0) {
		body = slurp(argv[4], &body_len);
		content_type = argv[5];
	} else {
		body = "Hello, world!\n";
		body_len = strlen(body);
	}
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL,
			     (uint16_t)atoi(argv[1]), NULL, NULL, answer, NULL,
			     MHD_OPTION_THREAD_POOL_SIZE, (unsigned)atoi(argv[2]),
			     MHD_OPTION_CONNECTION_LIMIT, 1024U, MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024U,
			     MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "httpd: cannot listen on port %s\n", argv[1]);
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	sigwait(&set, &sig);
	MHD_stop_daemon(d);
	return 0;
}

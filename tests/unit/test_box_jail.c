/*
 * test_box_jail — what a ledger's name lets the confined box reach: a
 * SQLite file's directory, or a PostgreSQL URL's ports and socket
 * directories, read the way libpq reads them.
 */
#include "base/sandbox.h"
#include "box/jail.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static struct sandbox_policy p;

static void reach(const char *where)
{
	unsetenv("PGHOST");
	unsetenv("PGPORT");
	sandbox_policy_free(&p);
	p = (struct sandbox_policy)SANDBOX_POLICY_INIT;
	jail_ledger(where, &p);
}

static int reads(const char *path)
{
	for (size_t i = 0; i < p.nread; i++)
		if (strcmp(p.read[i], path) == 0)
			return 1;
	return 0;
}

static void ports(size_t n, const unsigned short *want)
{
	cr_assert_eq(p.nconnect, n, "%zu ports, not %zu", p.nconnect, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(p.connect_ports[i], want[i]);
	cr_assert_eq(p.nbind, 0);
	cr_assert_eq(p.network, 0, "a ledger never opens the whole network");
}

Test(box_jail, a_sqlite_ledger_makes_its_directory_writable_and_reaches_no_port)
{
	reach("/srv/box/data/box.db");
	cr_assert_eq(p.nwrite, 1);
	cr_assert_str_eq(p.write[0], "/srv/box/data");
	ports(0, NULL);
}

Test(box_jail, a_postgresql_url_reaches_its_port_and_only_that)
{
	reach("postgresql://box:secret@db.example.org:6543/box?sslmode=require");
	ports(1, (const unsigned short[]){ 6543 });
	cr_assert_eq(p.nwrite, 0, "a PostgreSQL ledger writes no file");
}

Test(box_jail, a_host_without_a_port_is_5432_or_pgport)
{
	reach("postgres://db.example.org/box");
	ports(1, (const unsigned short[]){ 5432 });
	sandbox_policy_free(&p);
	p = (struct sandbox_policy)SANDBOX_POLICY_INIT;
	setenv("PGPORT", "7777", 1);
	jail_ledger("postgresql://db.example.org/box", &p);
	ports(1, (const unsigned short[]){ 7777 });
	unsetenv("PGPORT");
}

Test(box_jail, several_hosts_and_a_port_parameter_are_each_reached)
{
	reach("postgresql://a.example.org:5433,[::1]:5434/box");
	ports(2, (const unsigned short[]){ 5433, 5434 });
	reach("postgresql://a.example.org/box?connect_timeout=5&port=6000");
	ports(1, (const unsigned short[]){ 6000 });
}

Test(box_jail, a_unix_socket_is_a_directory_to_reach_not_a_port)
{
	reach("postgresql:///box?host=%2Fvar%2Frun%2Fpg-test");
	ports(0, NULL);
	cr_assert(reads("/var/run/pg-test"));
	reach("postgresql://%2Fsrv%2Fpg-sock:5439/box");
	ports(0, NULL);
	cr_assert(reads("/srv/pg-sock"));
	reach("postgresql:///box");
	ports(0, NULL);
	cr_assert(reads("/run/postgresql"), "libpq's default socket directory");
}

Test(box_jail, the_files_libpq_reads_stay_readable)
{
	reach("postgresql://h/box?passfile=%2Fetc%2Fbox%2Fpgpass&sslrootcert=/etc/box/ca.pem");
	cr_assert(reads("/etc/box/pgpass"));
	cr_assert(reads("/etc/box/ca.pem"));
}

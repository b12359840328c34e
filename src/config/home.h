/*
 * home — where mecha keeps its stores: $MECHA_HOME when set and non-empty,
 * else ~/.mecha. Every path a verb uses derives from here, in every verb.
 *
 * Ownership: returned strings are malloc'd; the caller frees them.
 */
#ifndef MECHA_CONFIG_HOME_H
#define MECHA_CONFIG_HOME_H

struct err;

/* HOME_M itself. Fails only when neither MECHA_HOME nor HOME is set. */
char *home_dir(struct err *e);
/* HOME_M/sub (for example "requests"). */
char *home_path(const char *sub, struct err *e);

#endif

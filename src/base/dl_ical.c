/*
 * dl_ical — libical, loaded on first use: every ical* function mecha calls,
 * forwarded to libical.so.3 (see base/dl.h). A new call site needs its row in
 * ICAL_FUNCTIONS, with the parameters as libical/ical.h declares them.
 * libical's variadic constructors (icalcomponent_vanew, icalproperty_vanew_*)
 * are not forwarded: build with the plain constructors and the add functions.
 */
#define DL_SHIM_LIB DL_ICAL

#include "base/dl_shim.h"
#include "base/err.h"

#include <libical/ical.h>

/* Row names are long; the parameters keep libical's order and types. */
#define ICAL_FUNCTIONS(R, V)                                                                   \
	ICAL_COMPONENTS(R, V)                                                                  \
	ICAL_PROPERTIES(R, V)                                                                  \
	ICAL_PARAMETERS(R, V)                                                                  \
	ICAL_TIMES(R, V)                                                                       \
	ICAL_READING_BACK(R, V)                                                                \
	R(icalcomponent *, icalparser_parse_string, (const char *s), (s))                     \
	V(icalmemory_free_buffer, (void *p), (p))

#define ICAL_COMPONENTS(R, V)                                                                  \
	R(icalcomponent *, icalcomponent_new_vcalendar, (void), ())                            \
	R(icalcomponent *, icalcomponent_new_vevent, (void), ())                               \
	R(icalcomponent *, icalcomponent_new_clone, (icalcomponent *c), (c))                  \
	V(icalcomponent_free, (icalcomponent *c), (c))                                         \
	V(icalcomponent_add_component, (icalcomponent *parent, icalcomponent *child),          \
	  (parent, child))                                                                     \
	V(icalcomponent_add_property, (icalcomponent *c, icalproperty *p), (c, p))             \
	R(char *, icalcomponent_as_ical_string_r, (icalcomponent *c), (c))                    \
	R(icalcomponent_kind, icalcomponent_isa, (const icalcomponent *c), (c))               \
	R(const char *, icalcomponent_kind_to_string, (icalcomponent_kind k), (k))            \
	R(icalcomponent *, icalcomponent_get_parent, (icalcomponent *c), (c))                 \
	R(icalcomponent *, icalcomponent_get_first_component,                                 \
	  (icalcomponent *c, icalcomponent_kind k), (c, k))                                    \
	R(icalcomponent *, icalcomponent_get_next_component,                                  \
	  (icalcomponent *c, icalcomponent_kind k), (c, k))                                    \
	R(icalproperty *, icalcomponent_get_first_property,                                   \
	  (icalcomponent *c, icalproperty_kind k), (c, k))                                     \
	R(icalproperty *, icalcomponent_get_next_property,                                    \
	  (icalcomponent *c, icalproperty_kind k), (c, k))                                     \
	R(const char *, icalcomponent_get_uid, (icalcomponent *c), (c))                       \
	R(enum icalproperty_status, icalcomponent_get_status, (icalcomponent *c), (c))        \
	R(icaltimezone *, icalcomponent_get_timezone, (icalcomponent *c, const char *tzid),   \
	  (c, tzid))

#define ICAL_PROPERTIES(R, V)                                                                  \
	R(icalproperty *, icalproperty_new_version, (const char *v), (v))                     \
	R(icalproperty *, icalproperty_new_prodid, (const char *v), (v))                      \
	R(icalproperty *, icalproperty_new_method, (enum icalproperty_method v), (v))         \
	R(icalproperty *, icalproperty_new_uid, (const char *v), (v))                         \
	R(icalproperty *, icalproperty_new_summary, (const char *v), (v))                     \
	R(icalproperty *, icalproperty_new_description, (const char *v), (v))                 \
	R(icalproperty *, icalproperty_new_organizer, (const char *v), (v))                   \
	R(icalproperty *, icalproperty_new_attendee, (const char *v), (v))                    \
	R(icalproperty *, icalproperty_new_status, (enum icalproperty_status v), (v))         \
	R(icalproperty *, icalproperty_new_sequence, (int v), (v))                            \
	R(icalproperty *, icalproperty_new_dtstamp, (struct icaltimetype v), (v))             \
	R(icalproperty *, icalproperty_new_dtstart, (struct icaltimetype v), (v))             \
	R(icalproperty *, icalproperty_new_dtend, (struct icaltimetype v), (v))               \
	V(icalproperty_add_parameter, (icalproperty *p, icalparameter *v), (p, v))             \
	R(icalparameter *, icalproperty_get_first_parameter,                                  \
	  (icalproperty *p, icalparameter_kind k), (p, k))                                     \
	R(struct icaltimetype, icalproperty_get_dtstart, (const icalproperty *p), (p))        \
	R(int, icalproperty_get_sequence, (const icalproperty *p), (p))                       \
	R(const char *, icalproperty_get_value_as_string, (const icalproperty *p), (p))       \
	R(struct icaltimetype, icalproperty_get_dtend, (const icalproperty *p), (p))          \
	R(struct icaldurationtype, icalproperty_get_duration, (const icalproperty *p), (p))   \
	R(struct icalrecurrencetype, icalproperty_get_rrule, (const icalproperty *p), (p))    \
	R(struct icaldatetimeperiodtype, icalproperty_get_rdate, (const icalproperty *p), (p)) \
	R(struct icaltimetype, icalproperty_get_exdate, (const icalproperty *p), (p))         \
	R(struct icaltimetype, icalproperty_get_recurrenceid, (const icalproperty *p), (p))   \
	R(enum icalproperty_transp, icalproperty_get_transp, (const icalproperty *p), (p))    \
	R(const char *, icalproperty_get_xlicerror, (const icalproperty *p), (p))

#define ICAL_PARAMETERS(R, V)                                                                  \
	R(icalparameter *, icalparameter_new_role, (icalparameter_role v), (v))               \
	R(icalparameter *, icalparameter_new_partstat, (icalparameter_partstat v), (v))       \
	R(icalparameter *, icalparameter_new_rsvp, (icalparameter_rsvp v), (v))               \
	R(const char *, icalparameter_get_tzid, (const icalparameter *p), (p))                \
	R(icalparameter_range, icalparameter_get_range, (const icalparameter *p), (p))        \
	R(icalparameter_xlicerrortype, icalparameter_get_xlicerrortype,                        \
	  (const icalparameter *p), (p))

#define ICAL_TIMES(R, V)                                                                       \
	R(struct icaltimetype, icaltime_from_timet_with_zone,                                  \
	  (const time_t t, const int is_date, const icaltimezone *z), (t, is_date, z))         \
	R(time_t, icaltime_as_timet_with_zone, (const struct icaltimetype t,                   \
	  const icaltimezone *z), (t, z))                                                      \
	R(struct icaltimetype, icaltime_set_timezone, (struct icaltimetype *t,                 \
	  const icaltimezone *z), (t, z))                                                      \
	V(icaltime_adjust, (struct icaltimetype *t, const int days, const int hours,           \
	  const int minutes, const int seconds), (t, days, hours, minutes, seconds))          \
	R(int, icaltime_is_null_time, (const struct icaltimetype t), (t))                     \
	R(int, icaltime_is_valid_time, (const struct icaltimetype t), (t))                    \
	R(int, icaltime_is_utc, (const struct icaltimetype t), (t))                           \
	R(int, icaldurationtype_as_int, (struct icaldurationtype d), (d))                     \
	R(int, icaldurationtype_is_bad_duration, (struct icaldurationtype d), (d))            \
	R(icaltimezone *, icaltimezone_get_utc_timezone, (void), ())                           \
	R(icaltimezone *, icaltimezone_get_builtin_timezone, (const char *location),          \
	  (location))                                                                          \
	R(icalcomponent *, icaltimezone_get_component, (icaltimezone *z), (z))                \
	R(icaltimezone *, icaltimezone_new, (void), ())                                        \
	R(const char *, icaltimezone_get_tzid, (icaltimezone *z), (z))                        \
	R(int, icaltimezone_set_component, (icaltimezone *z, icalcomponent *c), (z, c))       \
	V(icaltimezone_free, (icaltimezone *z, int free_struct), (z, free_struct))            \
	R(icalrecur_iterator *, icalrecur_iterator_new,                                        \
	  (struct icalrecurrencetype rule, struct icaltimetype start), (rule, start))         \
	R(struct icaltimetype, icalrecur_iterator_next, (icalrecur_iterator *i), (i))         \
	V(icalrecur_iterator_free, (icalrecur_iterator *i), (i))

/* Not called by mecha: the unit tests read back what it wrote, through the shim too. */
#define ICAL_READING_BACK(R, V)                                                                \
	R(struct icaltimetype, icalcomponent_get_dtstart, (icalcomponent *c), (c))            \
	R(struct icaltimetype, icalcomponent_get_dtend, (icalcomponent *c), (c))              \
	R(icalproperty_method, icalcomponent_get_method, (icalcomponent *c), (c))             \
	R(int, icalcomponent_get_sequence, (icalcomponent *c), (c))                           \
	R(const char *, icalcomponent_get_summary, (icalcomponent *c), (c))                   \
	R(const char *, icalproperty_get_organizer, (const icalproperty *p), (p))             \
	R(const char *, icalproperty_get_attendee, (const icalproperty *p), (p))              \
	R(icalparameter_rsvp, icalparameter_get_rsvp, (const icalparameter *p), (p))          \
	R(time_t, icaltime_as_timet, (const struct icaltimetype t), (t))

static struct {
	ICAL_FUNCTIONS(DL_SHIM_PTR_R, DL_SHIM_PTR_V)
} fn;

ICAL_FUNCTIONS(DL_SHIM_DEF_R, DL_SHIM_DEF_V)

int dl_ical_resolve(void *handle, struct err *e)
{
	ICAL_FUNCTIONS(DL_SHIM_SET_R, DL_SHIM_SET_V)
	return 0;
}

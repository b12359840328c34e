/*
 * state — moved to src/requests/state.h (issue 21: the request record has one
 * module below the front door and the drain). This header only forwards, so
 * that code written against the old path still builds; include
 * "requests/state.h" in new code. Ownership: as requests/state.h says.
 */
#ifndef MECHA_FRONTDOOR_STATE_H
#define MECHA_FRONTDOOR_STATE_H

#include "requests/state.h"

#endif

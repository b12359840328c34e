/*
 * store — moved to src/requests/store.h (issue 21: the request record has one
 * module below the front door and the drain). This header only forwards, so
 * that code written against the old path still builds; include
 * "requests/store.h" in new code. Ownership: as requests/store.h says.
 */
#ifndef MECHA_FRONTDOOR_STORE_H
#define MECHA_FRONTDOOR_STORE_H

#include "requests/store.h"

#endif

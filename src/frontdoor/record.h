/*
 * record — moved to src/requests/record.h (issue 21: the request record has one
 * module below the front door and the drain). This header only forwards, so
 * that code written against the old path still builds; include
 * "requests/record.h" in new code. Ownership: as requests/record.h says.
 */
#ifndef MECHA_FRONTDOOR_RECORD_H
#define MECHA_FRONTDOOR_RECORD_H

#include "requests/record.h"

#endif

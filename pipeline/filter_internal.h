/*
 * filter_internal.h - reference counting of convoy_filter (internal).
 *
 * A filter starts with one reference, the caller's handle. Each stream that
 * uses it takes one more with filter_retain() and drops it with
 * filter_release() when destroyed; convoy_filter_destroy() drops the
 * caller's. The taps are freed when the count reaches zero. Counting is
 * atomic, so streams on different threads may share one filter.
 */
#ifndef CONVOY_FILTER_INTERNAL_H
#define CONVOY_FILTER_INTERNAL_H

#include "convoy.h"

/* Adds a reference; returns filter. filter must be live (count >= 1). */
convoy_filter *filter_retain(convoy_filter *filter);

/* Drops a reference, freeing the filter on the last one. NULL-safe. */
void filter_release(convoy_filter *filter);

#endif /* CONVOY_FILTER_INTERNAL_H */

/*
 * buffers.h - sample buffers of the program's passes: pinned host memory
 * (convoy_host_alloc) only where a GPU engine will move them over the bus,
 * plain aligned memory otherwise, so that a CPU run never starts CUDA.
 */
#ifndef CONVOY_CLI_BUFFERS_H
#define CONVOY_CLI_BUFFERS_H

#include "convoy.h"

#include <stddef.h>

/* bytes >= 1; 64-byte aligned either way; NULL when out of memory. */
void *buffer_alloc(size_t bytes, int pinned);

/* Frees a buffer_alloc() buffer with the same pinned; NULL is a no-op. */
void buffer_free(void *ptr, int pinned);

/* Whether buffers for a run on engine (an exact engine, as a stream or
 * pulse compressor reports it) should be pinned. */
int buffer_pinned_for(convoy_engine engine);

#endif /* CONVOY_CLI_BUFFERS_H */

/*
 * host_alloc.c - convoy_host_alloc / convoy_host_free: sample buffers that a
 * GPU stream can move over the bus directly (pinned) where a GPU is usable,
 * plain aligned memory otherwise.
 *
 * Each block starts with a 64-byte header recording how it was obtained, so
 * that free needs no CUDA call for plain memory; the caller's pointer is the
 * byte after the header, 64-byte aligned either way.
 */
#include "error_internal.h"
#ifdef CONVOY_HAVE_CUDA
#include "gpu_pipeline.h" /* pinned memory; a build without CUDA has only plain */
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_BYTES 64
#define MAGIC_PLAIN 0x636f6e766f79706cull  /* "convoypl" */
#define MAGIC_PINNED 0x636f6e766f797069ull /* "convoypi" */

typedef struct block_header {
  uint64_t magic;
} block_header;

void *convoy_host_alloc(size_t bytes) {
  if (bytes == 0) {
    convoy_error_set(CONVOY_ERR_INVALID_ARGUMENT, "convoy_host_alloc: 0 bytes");
    return NULL;
  }
  if (bytes > SIZE_MAX - 2 * HEADER_BYTES) {
    convoy_error_set(CONVOY_ERR_OUT_OF_MEMORY, "convoy_host_alloc: %zu bytes is too many", bytes);
    return NULL;
  }
  size_t total = (bytes + HEADER_BYTES + HEADER_BYTES - 1) / HEADER_BYTES * HEADER_BYTES;
  uint64_t magic = MAGIC_PINNED;
  unsigned char *base = NULL;
#ifdef CONVOY_HAVE_CUDA
  base = gpu_host_alloc_pinned(total); /* page-aligned when it succeeds */
#endif
  if (!base) {
    magic = MAGIC_PLAIN;
    base = aligned_alloc(HEADER_BYTES, total);
  }
  if (!base) {
    convoy_error_set(CONVOY_ERR_OUT_OF_MEMORY, "convoy_host_alloc: cannot allocate %zu bytes",
                     bytes);
    return NULL;
  }
  block_header h = {magic};
  memcpy(base, &h, sizeof h);
  return base + HEADER_BYTES;
}

static int header_of(const void *ptr, uint64_t *magic) {
  block_header h;
  memcpy(&h, (const unsigned char *)ptr - HEADER_BYTES, sizeof h);
  *magic = h.magic;
  return h.magic == MAGIC_PLAIN || h.magic == MAGIC_PINNED;
}

void convoy_host_free(void *ptr) {
  if (!ptr) return;
  uint64_t magic = 0;
  if (!header_of(ptr, &magic)) return; /* not ours: leaking beats freeing the wrong way */
  unsigned char *base = (unsigned char *)ptr - HEADER_BYTES;
  memset(base, 0, sizeof(block_header)); /* a double free then finds no magic */
#ifdef CONVOY_HAVE_CUDA
  if (magic == MAGIC_PINNED) {
    gpu_host_free_pinned(base);
    return;
  }
#endif
  free(base);
}

int convoy_host_is_pinned(const void *ptr) {
  uint64_t magic = 0;
  return ptr && header_of(ptr, &magic) && magic == MAGIC_PINNED;
}

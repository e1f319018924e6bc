/* buffers.c - pinned or plain sample buffers for the program's passes. */
#include "buffers.h"

#include <stdlib.h>

void *buffer_alloc(size_t bytes, int pinned) {
  if (pinned) return convoy_host_alloc(bytes);
  return aligned_alloc(64, (bytes + 63) / 64 * 64);
}

void buffer_free(void *ptr, int pinned) {
  if (pinned)
    convoy_host_free(ptr);
  else
    free(ptr);
}

int buffer_pinned_for(convoy_engine engine) {
  return convoy_engine_family(engine) == CONVOY_FAMILY_GPU;
}

/*
 * probe.c - what an installed libconvoy says about itself: its version,
 * whether it holds the CUDA engines, and the GPUs it finds (none is no error:
 * the CPU engines run). tests/install_check.sh builds it against the
 * installed copy.
 *
 *   probe VERSION HAVE_CUDA    exit 1 when the library is not that build
 */
#include "convoy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s VERSION HAVE_CUDA\n", argv[0]);
    return 2;
  }
  const char *version = convoy_version();
  int cuda = convoy_built_with_cuda();
  int gpus = convoy_gpu_count();
  printf("convoy %s, CUDA engines: %s, GPUs: %d", version, cuda ? "yes" : "no", gpus);
  if (gpus <= 0) printf(" (%s)", convoy_last_error());
  printf("\n");
  if (strcmp(version, argv[1]) != 0) {
    fprintf(stderr, "version %s, want %s\n", version, argv[1]);
    return 1;
  }
  if (cuda != atoi(argv[2])) {
    fprintf(stderr, "CUDA engines: %d, want %s\n", cuda, argv[2]);
    return 1;
  }
  return 0;
}

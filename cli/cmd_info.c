/* cmd_info.c - `convoy info`: version, build features, engines, devices. */
#include "argparse.h"
#include "commands.h"
#include "convoy.h"
#include "diag.h"
#include "help.h"
#include "scale_world.h"

#include <fftw3.h>
#include <sndfile.h>
#include <stdio.h>
#include <string.h>
#ifdef CONVOY_HAVE_LIVE
#include <portaudio.h>
#include <samplerate.h>
#endif

typedef struct info_options {
  int help;
} info_options;

static const arg_option info_opts[] = {ARG_FLAG("help", 'h', info_options, help, 1), ARG_TABLE_END};

/* info takes no positional argument. */
static int handle(arg_parser *p, int id, const char *val, void *target) {
  (void)id, (void)target;
  return diag_usage(p->cmd, "unexpected argument '%s'", val);
}

static void print_cuda_version(const char *label, int v) {
  if (v > 0)
    printf("    %-18s %d.%d\n", label, v / 1000, v % 1000 / 10);
  else
    printf("    %-18s none\n", label);
}

/* `convoy live`: the audio libraries it runs on, or that the build has none. */
static void print_live(void) {
#ifdef CONVOY_HAVE_LIVE
  const PaVersionInfo *pa = Pa_GetVersionInfo();
  const char *src = src_get_version(); /* "libsamplerate-0.2.2 (c) ..." */
  printf("  %-18s yes (PortAudio %d.%d.%d, %.*s)\n", "live audio", pa->versionMajor,
         pa->versionMinor, pa->versionSubMinor, (int)strcspn(src, " "), src);
#ifdef CONVOY_HAVE_JACK
  printf("  %-18s %s\n", "live backends", "jack, portaudio");
#else
  printf("  %-18s %s\n", "live backends", "portaudio (built without JACK)");
#endif
#else
  printf("  %-18s no (built without PortAudio and libsamplerate)\n", "live audio");
  printf("  %-18s %s\n", "live backends", "none");
#endif
}

/* `mpirun -np N convoy filter`: the MPI library, or that the build has none. */
static void print_mpi(void) {
  char lib[256];
  if (scale_world_library(lib, sizeof lib))
    printf("  %-18s yes (%s)\n", "MPI", lib);
  else
    printf("  %-18s no (built without MPI)\n", "MPI");
}

static void print_gpus(void) {
  int n = convoy_gpu_count();
  if (n <= 0) {
    const char *why = convoy_last_error();
    if (!convoy_built_with_cuda()) why = "built without CUDA";
    printf("GPUs:                none (%s)\n", why[0] ? why : "no CUDA device found");
    return;
  }
  printf("GPUs:                %d\n", n);
  for (int i = 0; i < n; i++) {
    convoy_gpu_info g;
    if (convoy_gpu_get_info(i, &g) != CONVOY_OK) {
      printf("  %d: (no information: %s)\n", i, convoy_last_error());
      continue;
    }
    printf("  %d: %s\n", i, g.name);
    printf("    %-18s %.1f GiB\n", "memory", (double)g.memory_bytes / (1024.0 * 1024.0 * 1024.0));
    printf("    %-18s %d.%d\n", "compute capability", (int)g.compute_major, (int)g.compute_minor);
    printf("    %-18s %d\n", "multiprocessors", (int)g.multiprocessors);
    printf("    %-18s %d\n", "copy engines", (int)g.copy_engines);
    print_cuda_version("CUDA driver", (int)g.driver_version);
    print_cuda_version("CUDA runtime", (int)g.runtime_version);
  }
}

int cmd_info(int argc, char **argv) {
  arg_parser p;
  arg_init(&p, argc, argv, info_opts);
  info_options o = {0};
  int rc = arg_parse(&p, &o, handle, &o.help);
  if (rc != CLI_EXIT_OK) return rc;
  if (o.help) {
    help_info(stdout);
    return CLI_EXIT_OK;
  }

  printf("convoy %s\n", convoy_version());
  printf("Build:\n");
  printf("  %-18s %s\n", "FFTW", fftwf_version);
  printf("  %-18s %s\n", "libsndfile", sf_version_string());
  printf("  %-18s %s\n", "CUDA engines", convoy_built_with_cuda() ? "yes" : "no");
  print_live();
  print_mpi();
  printf("Engines:\n");
  for (int32_t i = 0; i < convoy_engine_count(); i++) {
    convoy_engine e = convoy_engine_at(i);
    if (!convoy_engine_is_exact(e)) continue;
    printf("  %-18s %s\n", convoy_engine_name(e),
           convoy_engine_available(e) ? "available" : "not available");
  }
  printf("CPU threads:         %d\n", convoy_cpu_threads());
  print_gpus();
  if (fflush(stdout) != 0) {
    diag_error("stdout: write failed");
    return CLI_EXIT_FAIL;
  }
  return CLI_EXIT_OK;
}

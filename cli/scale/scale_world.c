/* scale_world.c - the processes of a job: MPI's ranks, or this one (scale_world.h). */
#define _POSIX_C_SOURCE 200809L
#include "scale_world.h"

#include "commands.h"
#include "diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CONVOY_HAVE_MPI
#include <mpi.h>
#endif

static scale_world world = {0, 1, 0, 1, 0};
static FILE *held;     /* a non-root rank's error lines since the last agree */
static char *held_buf; /* open_memstream's buffer of held */
static size_t held_len;

const scale_world *scale_world_get(void) {
  return &world;
}

#ifdef CONVOY_HAVE_MPI
/* Set by Open MPI's mpirun (OMPI_*), MPICH's hydra (PMI_*) and PMIx
 * servers: without one of them MPI would start a singleton job for
 * nothing. */
static int launched_by_mpi(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
                                     "MPI_LOCALNRANKS"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    if (getenv(vars[i])) return 1;
  return 0;
}

static void hold_messages(void) {
  held = open_memstream(&held_buf, &held_len);
  diag_set_stream(held ? held : stderr);
  diag_set_quiet(1);
}

int scale_world_start(int *argc, char ***argv) {
  if (!launched_by_mpi()) return 0;
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    diag_error("cannot start MPI");
    return -1;
  }
  world.mpi = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world.size);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world.rank, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &world.local_rank);
  MPI_Comm_size(local, &world.local_size);
  MPI_Comm_free(&local);
  if (world.rank != 0) hold_messages();
  return 0;
}

int scale_world_agree(int status) {
  if (!world.mpi) return status;
  int root_status = status, worst = status;
  MPI_Bcast(&root_status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (held) {
    fflush(held);
    if (status != CLI_EXIT_OK && root_status == CLI_EXIT_OK && held_len > 0)
      fwrite(held_buf, 1, held_len, stderr);
    rewind(held); /* the next step's lines start afresh */
    held_len = 0;
    if (held_buf) held_buf[0] = '\0';
  }
  return worst;
}

void scale_world_sum(int64_t *values, int n) {
  if (world.mpi) MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
}

void scale_world_min(int64_t *values, int n) {
  if (world.mpi) MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
}

double scale_world_max(double value) {
  double out = value;
  if (world.mpi) MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

void scale_world_share(char *buf, size_t size) {
  if (world.mpi) MPI_Bcast(buf, (int)size, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (size > 0) buf[size - 1] = '\0';
}

const char *scale_world_library(char *buf, size_t size) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  version[strcspn(version, "\n")] = '\0';
  snprintf(buf, size, "%s", version);
  return buf;
}

void scale_world_end(void) {
  if (!world.mpi) return;
  if (held) {
    diag_set_stream(NULL);
    fclose(held);
    free(held_buf);
    held = NULL;
  }
  MPI_Finalize();
  world.mpi = 0;
}

#else /* one process */

int scale_world_start(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  (void)held;
  (void)held_buf;
  (void)held_len;
  return 0;
}

int scale_world_agree(int status) {
  return status;
}

void scale_world_sum(int64_t *values, int n) {
  (void)values;
  (void)n;
}

void scale_world_min(int64_t *values, int n) {
  (void)values;
  (void)n;
}

double scale_world_max(double value) {
  return value;
}

void scale_world_share(char *buf, size_t size) {
  if (size > 0) buf[size - 1] = '\0';
}

const char *scale_world_library(char *buf, size_t size) {
  (void)buf;
  (void)size;
  return NULL;
}

void scale_world_end(void) {}

#endif

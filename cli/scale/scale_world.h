/*
 * scale_world.h - the processes of one `convoy filter` job: one process, or
 * the ranks of an MPI job (`mpirun -np N convoy filter ...`) in a build
 * with MPI (CONVOY_MPI).
 *
 * MPI is started only when the process was launched by an MPI launcher
 * (Open MPI's mpirun, MPICH's hydra, a PMIx server); otherwise, and in a
 * build without MPI, the job is this process alone (rank 0 of 1) and every
 * call below is a local no-op. Calls are collective: every rank makes the
 * same calls in the same order, from the thread that called
 * scale_world_start.
 *
 * Messages: rank 0 speaks for the job. The other ranks print no notices
 * and hold back their error lines; scale_world_agree prints them where
 * rank 0 did not fail, so that an error every rank meets (a bad option, a
 * missing file) is printed once and one only some meet (a read error on
 * another host) is printed by the rank that met it.
 */
#ifndef CONVOY_CLI_SCALE_WORLD_H
#define CONVOY_CLI_SCALE_WORLD_H

#include <stddef.h>
#include <stdint.h>

typedef struct scale_world {
  int rank, size;             /* this process's rank in the job, ranks in the job */
  int local_rank, local_size; /* the same among the job's processes on this host */
  int mpi;                    /* 1: MPI was started */
} scale_world;

/* Starts MPI where a launcher started this process (above) and fills the
 * job's shape. Returns 0, or -1 when MPI failed to start (one error line). */
int scale_world_start(int *argc, char ***argv);

/* The job's shape: a single process before scale_world_start. */
const scale_world *scale_world_get(void);

/* Every rank's exit status for the step just done, made one: the
 * largest of them (CLI_EXIT_* grow with severity). A rank that failed
 * where rank 0 did not prints its held-back error lines. */
int scale_world_agree(int status);

/* Sums (in place) n counters over the ranks. */
void scale_world_sum(int64_t *values, int n);

/* The smallest (in place) of n values over the ranks. */
void scale_world_min(int64_t *values, int n);

/* The largest of value over the ranks. */
double scale_world_max(double value);

/* Rank 0's string buf (size bytes, NUL-terminated) copied to every rank. */
void scale_world_share(char *buf, size_t size);

/* The MPI library this build runs on, its first line (e.g. "Open MPI
 * v4.1.4, ..."), in buf; NULL in a build without MPI. */
const char *scale_world_library(char *buf, size_t size);

/* Ends MPI, if started; held-back lines are dropped. */
void scale_world_end(void);

#endif /* CONVOY_CLI_SCALE_WORLD_H */

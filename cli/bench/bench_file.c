/* bench_file.c - times the convoy program filtering WAV files and raw captures, and cp. */
#define _POSIX_C_SOURCE 200809L

#include "bench_file.h"

#include "bench_util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sndfile.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The set a SIGINT/SIGTERM removes before the program dies of the signal,
 * so that an interrupted benchmark leaves no large files in TMPDIR. */
static bench_files *volatile signal_files;

static void remove_files(bench_files *files) {
  for (int t = 0; t < BENCH_FILE_SUBTYPES; t++) {
    if (files->input[t][0]) unlink(files->input[t]);
    if (files->output[t][0]) unlink(files->output[t]);
  }
  unlink(files->taps);
  rmdir(files->dir);
}

static void on_signal(int sig) {
  bench_files *files = signal_files;
  if (files) remove_files(files); /* unlink and rmdir are async-signal-safe */
  signal(sig, SIG_DFL);
  raise(sig);
}

static void catch_signals(bench_files *files) {
  signal_files = files;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

static convoy_status write_wav(const char *path, const float *signal, int64_t frames,
                               int32_t channels, int subtype, char *err, size_t err_size) {
  SF_INFO info;
  memset(&info, 0, sizeof info);
  info.samplerate = BENCH_FILE_RATE;
  info.channels = channels;
  info.format = SF_FORMAT_WAV | subtype;
  SNDFILE *f = sf_open(path, SFM_WRITE, &info);
  if (!f) {
    snprintf(err, err_size, "%s: %s", path, sf_strerror(NULL));
    return CONVOY_ERR_IO;
  }
  sf_command(f, SFC_SET_CLIPPING, NULL, SF_TRUE);
  sf_count_t written = sf_writef_float(f, signal, (sf_count_t)frames);
  int close_err = sf_close(f);
  if (written != (sf_count_t)frames || close_err != 0) {
    snprintf(err, err_size, "%s: write failed (%lld of %lld frames)", path, (long long)written,
             (long long)frames);
    return CONVOY_ERR_IO;
  }
  return CONVOY_OK;
}

static convoy_status write_raw(const char *path, const float *signal, int64_t samples, char *err,
                               size_t err_size) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    snprintf(err, err_size, "%s: %s", path, strerror(errno));
    return CONVOY_ERR_IO;
  }
  size_t wrote = fwrite(signal, sizeof(float), (size_t)samples, f);
  if (fclose(f) != 0 || wrote != (size_t)samples) {
    snprintf(err, err_size, "%s: write failed", path);
    return CONVOY_ERR_IO;
  }
  return CONVOY_OK;
}

/* The signal as 16-bit codes (x * 32767, rounded, saturated): a raw int16
 * capture. */
static convoy_status write_raw16(const char *path, const float *signal, int64_t samples, char *err,
                                 size_t err_size) {
  int16_t *codes = malloc(sizeof(int16_t) * (size_t)(samples > 0 ? samples : 1));
  if (!codes) {
    snprintf(err, err_size, "%s: out of memory", path);
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  for (int64_t i = 0; i < samples; i++) {
    const float v = signal[i] * 32767.0f;
    codes[i] = (int16_t)(v >= 32767.0f ? 32767 : v <= -32768.0f ? -32768 : lrintf(v));
  }
  FILE *f = fopen(path, "wb");
  size_t wrote = f ? fwrite(codes, sizeof *codes, (size_t)samples, f) : 0;
  free(codes);
  if (!f) {
    snprintf(err, err_size, "%s: %s", path, strerror(errno));
    return CONVOY_ERR_IO;
  }
  if (fclose(f) != 0 || wrote != (size_t)samples) {
    snprintf(err, err_size, "%s: write failed", path);
    return CONVOY_ERR_IO;
  }
  return CONVOY_OK;
}

int bench_files_have(const bench_files *files, bench_file_subtype subtype) {
  return subtype >= 0 && subtype < BENCH_FILE_SUBTYPES && files->input[subtype][0] != '\0';
}

convoy_status bench_files_prepare(bench_files *files, const float *signal, int64_t frames,
                                  int32_t channels, char *err, size_t err_size) {
  memset(files, 0, sizeof *files);
  files->frames = frames;
  files->channels = channels;
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !tmp[0]) tmp = "/tmp";
  if (strlen(tmp) + sizeof "/convoy-bench-XXXXXX" > sizeof files->dir) {
    snprintf(err, err_size, "TMPDIR is too long for a temporary directory name");
    return CONVOY_ERR_IO;
  }
  snprintf(files->dir, sizeof files->dir, "%s/convoy-bench-XXXXXX", tmp);
  if (!mkdtemp(files->dir)) {
    snprintf(err, err_size, "%s: cannot make a temporary directory: %s", files->dir,
             strerror(errno));
    files->dir[0] = '\0';
    return CONVOY_ERR_IO;
  }
  catch_signals(files);
  snprintf(files->input[BENCH_FILE_FLOAT], BENCH_FILE_PATH, "%s/in-float.wav", files->dir);
  snprintf(files->input[BENCH_FILE_PCM16], BENCH_FILE_PATH, "%s/in-pcm16.wav", files->dir);
  snprintf(files->output[BENCH_FILE_FLOAT], BENCH_FILE_PATH, "%s/out.wav", files->dir);
  snprintf(files->output[BENCH_FILE_PCM16], BENCH_FILE_PATH, "%s/out.wav", files->dir);
  if (channels <= 2) {
    const char *ext = channels == 1 ? "f32" : "cf32";
    snprintf(files->input[BENCH_FILE_RAW], BENCH_FILE_PATH, "%s/in.%s", files->dir, ext);
    snprintf(files->output[BENCH_FILE_RAW], BENCH_FILE_PATH, "%s/out.%s", files->dir, ext);
    const char *ext16 = channels == 1 ? "s16" : "cs16";
    snprintf(files->input[BENCH_FILE_RAW16], BENCH_FILE_PATH, "%s/in.%s", files->dir, ext16);
    snprintf(files->output[BENCH_FILE_RAW16], BENCH_FILE_PATH, "%s/out.%s", files->dir, ext16);
  }
  convoy_status st = write_wav(files->input[BENCH_FILE_FLOAT], signal, frames, channels,
                               SF_FORMAT_FLOAT, err, err_size);
  if (st == CONVOY_OK)
    st = write_wav(files->input[BENCH_FILE_PCM16], signal, frames, channels, SF_FORMAT_PCM_16, err,
                   err_size);
  if (st == CONVOY_OK && files->input[BENCH_FILE_RAW][0])
    st = write_raw(files->input[BENCH_FILE_RAW], signal, frames * channels, err, err_size);
  if (st == CONVOY_OK && files->input[BENCH_FILE_RAW16][0])
    st = write_raw16(files->input[BENCH_FILE_RAW16], signal, frames * channels, err, err_size);
  return st;
}

convoy_status bench_files_write_taps(bench_files *files, const float *taps, int64_t n_taps,
                                     char *err, size_t err_size) {
  snprintf(files->taps, sizeof files->taps, "%s/taps.txt", files->dir);
  FILE *f = fopen(files->taps, "w");
  if (!f) {
    snprintf(err, err_size, "%s: %s", files->taps, strerror(errno));
    return CONVOY_ERR_IO;
  }
  for (int64_t i = 0; i < n_taps; i++) fprintf(f, "%.9g\n", taps[i]);
  if (fclose(f) != 0) {
    snprintf(err, err_size, "%s: write failed", files->taps);
    return CONVOY_ERR_IO;
  }
  return CONVOY_OK;
}

void bench_files_remove(bench_files *files) {
  if (!files->dir[0]) return;
  signal_files = NULL;
  remove_files(files);
  files->dir[0] = '\0';
}

/* Spawns argv with stdout on /dev/null (stderr stays, for error messages);
 * returns the exit status, or -1 when it could not run or died of a signal. */
static int spawn_wait(const char *program, char *const argv[]) {
  posix_spawn_file_actions_t actions;
  if (posix_spawn_file_actions_init(&actions) != 0) return -1;
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int rc = posix_spawn(&pid, program, &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static convoy_status check_output(const bench_files *files, bench_file_subtype subtype, char *err,
                                  size_t err_size) {
  const char *output = files->output[subtype];
  if (subtype == BENCH_FILE_RAW || subtype == BENCH_FILE_RAW16) {
    struct stat st;
    const long long want = (long long)files->frames * files->channels *
                           (subtype == BENCH_FILE_RAW ? (long long)sizeof(float) : 2LL);
    if (stat(output, &st) != 0 || (long long)st.st_size != want) {
      snprintf(err, err_size, "%s: %lld bytes, expected %lld", output,
               stat(output, &st) == 0 ? (long long)st.st_size : -1LL, want);
      return CONVOY_ERR_FORMAT;
    }
    return CONVOY_OK;
  }
  SF_INFO info;
  memset(&info, 0, sizeof info);
  SNDFILE *f = sf_open(output, SFM_READ, &info);
  if (!f) {
    snprintf(err, err_size, "%s: not written: %s", output, sf_strerror(NULL));
    return CONVOY_ERR_IO;
  }
  sf_close(f);
  if (info.frames != (sf_count_t)files->frames || info.channels != files->channels) {
    snprintf(err, err_size, "%s: %lld frames x %d channels, expected %lld x %d", output,
             (long long)info.frames, info.channels, (long long)files->frames, (int)files->channels);
    return CONVOY_ERR_FORMAT;
  }
  return CONVOY_OK;
}

convoy_status bench_files_time_copy(bench_files *files, int runs, char *err, size_t err_size) {
  double *times = malloc(sizeof(double) * (size_t)runs);
  if (!times) {
    snprintf(err, err_size, "out of memory");
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  convoy_status st = CONVOY_OK;
  for (int t = 0; t < BENCH_FILE_SUBTYPES && st == CONVOY_OK; t++) {
    if (!bench_files_have(files, (bench_file_subtype)t)) continue;
    char arg0[] = "cp", in[BENCH_FILE_PATH], out[BENCH_FILE_PATH];
    snprintf(in, sizeof in, "%s", files->input[t]);
    snprintf(out, sizeof out, "%s", files->output[t]);
    char *argv[] = {arg0, in, out, NULL};
    for (int r = -1; r < runs; r++) { /* r = -1: warm-up */
      unlink(out);
      double t0 = bench_now();
      int rc = spawn_wait("/bin/cp", argv);
      double elapsed = bench_now() - t0;
      if (rc != 0) {
        snprintf(err, err_size, "cp %s %s: %s %d", in, out,
                 rc < 0 ? "failed to run or killed," : "exit status", rc);
        st = CONVOY_ERR_IO;
        break;
      }
      if (r >= 0) times[r] = elapsed;
    }
    unlink(out);
    if (st == CONVOY_OK)
      bench_stats(times, runs, &files->cp[t].median_s, &files->cp[t].min_s, &files->cp[t].max_s);
  }
  free(times);
  return st;
}

convoy_status bench_file_run(const bench_files *files, bench_file_subtype subtype,
                             const char *program, convoy_engine engine, int32_t threads,
                             int64_t fft_size, int runs, bench_file_result *res, char *err,
                             size_t err_size) {
  memset(res, 0, sizeof *res);
  char engine_name[32], input[BENCH_FILE_PATH], output[BENCH_FILE_PATH], taps[BENCH_FILE_PATH];
  snprintf(engine_name, sizeof engine_name, "%s", convoy_engine_name(engine));
  snprintf(input, sizeof input, "%s", files->input[subtype]);
  snprintf(output, sizeof output, "%s", files->output[subtype]);
  snprintf(taps, sizeof taps, "%s", files->taps);
  char arg0[] = "convoy", arg1[] = "filter", opt_taps[] = "--taps", opt_engine[] = "--engine",
       opt_q[] = "-q", opt_y[] = "-y", opt_threads[] = "--threads", n_threads[24],
       opt_fft_size[] = "--fft-size", n_fft_size[24];
  snprintf(n_threads, sizeof n_threads, "%d", (int)threads);
  snprintf(n_fft_size, sizeof n_fft_size, "%lld", (long long)fft_size);
  char *argv[15] = {arg0, arg1,       input,       output, opt_taps,
                    taps, opt_engine, engine_name, opt_q,  opt_y};
  int argc = 10;
  if (threads > 0) {
    argv[argc++] = opt_threads;
    argv[argc++] = n_threads;
  }
  if (fft_size > 0) {
    argv[argc++] = opt_fft_size;
    argv[argc++] = n_fft_size;
  }
  argv[argc] = NULL;

  double *times = malloc(sizeof(double) * (size_t)runs);
  if (!times) {
    snprintf(err, err_size, "out of memory");
    return CONVOY_ERR_OUT_OF_MEMORY;
  }
  convoy_status st = CONVOY_OK;
  for (int r = -1; r < runs; r++) { /* r = -1: warm-up and output check */
    unlink(output);
    double t0 = bench_now();
    int rc = spawn_wait(program, argv);
    double elapsed = bench_now() - t0;
    if (rc != 0) {
      size_t at = 0;
      for (int i = 0; i < argc && at < err_size; i++)
        at += (size_t)snprintf(err + at, err_size - at, "%s%s", i ? " " : "", argv[i]);
      if (at < err_size)
        snprintf(err + at, err_size - at, ": %s %d",
                 rc < 0 ? "failed to run or killed," : "exit status", rc);
      st = CONVOY_ERR_IO;
      break;
    }
    if (r < 0) {
      st = check_output(files, subtype, err, err_size);
      if (st != CONVOY_OK) break;
    } else {
      times[r] = elapsed;
    }
  }
  unlink(output);
  if (st == CONVOY_OK) bench_stats(times, runs, &res->median_s, &res->min_s, &res->max_s);
  free(times);
  return st;
}

/* bench_machine.c - describes the machine and the build for `convoy bench`. */
#include "bench_machine.h"

#include "convoy.h"

#include <fftw3.h>
#include <stdio.h>
#include <string.h>

/* Copies the value after ':' of the first line of path starting with key. */
static int read_proc_field(const char *path, const char *key, char *value, size_t size) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[8192];
  int found = -1;
  size_t key_len = strlen(key);
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, key, key_len) != 0) continue;
    char *colon = strchr(line, ':');
    if (!colon) continue;
    char *v = colon + 1;
    while (*v == ' ' || *v == '\t') v++;
    size_t len = strcspn(v, "\n");
    if (len >= size) len = size - 1;
    memcpy(value, v, len);
    value[len] = '\0';
    found = 0;
    break;
  }
  fclose(f);
  return found;
}

/* The vector extensions the CPU reports (from its /proc/cpuinfo flags). */
static void cpu_simd(char *buf, size_t size) {
  static const char *const wanted[] = {"sse4_2", "avx", "avx2", "fma", "avx512f", "asimd", "sve"};
  char flags[8192];
  buf[0] = '\0';
  if (read_proc_field("/proc/cpuinfo", "flags", flags, sizeof flags) != 0 &&
      read_proc_field("/proc/cpuinfo", "Features", flags, sizeof flags) != 0) {
    snprintf(buf, size, "unknown");
    return;
  }
  for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
    size_t n = strlen(wanted[i]);
    for (const char *p = strstr(flags, wanted[i]); p; p = strstr(p + 1, wanted[i])) {
      if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) {
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s", used ? " " : "", wanted[i]);
        break;
      }
    }
  }
  if (!buf[0]) snprintf(buf, size, "none");
}

void bench_machine_probe(bench_machine *m) {
  memset(m, 0, sizeof *m);
  if (read_proc_field("/proc/cpuinfo", "model name", m->cpu_model, sizeof m->cpu_model) != 0)
    snprintf(m->cpu_model, sizeof m->cpu_model, "unknown");
  m->cpu_threads = convoy_cpu_threads();
  char mem[64];
  long long kib = 0;
  if (read_proc_field("/proc/meminfo", "MemTotal", mem, sizeof mem) == 0 &&
      sscanf(mem, "%lld", &kib) == 1)
    m->memory_bytes = (int64_t)kib * 1024;
  snprintf(m->convoy_version, sizeof m->convoy_version, "%s", convoy_version());
  snprintf(m->fftw_version, sizeof m->fftw_version, "%s", fftwf_version);
#if defined(__clang__)
  snprintf(m->compiler, sizeof m->compiler, "clang %s", __clang_version__);
#elif defined(__GNUC__)
  snprintf(m->compiler, sizeof m->compiler, "gcc %s", __VERSION__);
#else
  snprintf(m->compiler, sizeof m->compiler, "unknown");
#endif
#ifdef __OPTIMIZE__
  m->optimised = 1;
#endif
#if defined(__SANITIZE_ADDRESS__)
  m->sanitised = 1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  m->sanitised = 1;
#endif
#endif
  cpu_simd(m->simd, sizeof m->simd);
  m->cuda_built = convoy_built_with_cuda();
  m->gpu_count = convoy_gpu_count();
  convoy_gpu_info info;
  if (m->gpu_count > 0 && convoy_gpu_get_info(0, &info) == CONVOY_OK)
    snprintf(m->gpu_name, sizeof m->gpu_name, "%s", info.name);
}

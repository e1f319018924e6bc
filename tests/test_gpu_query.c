/* test_gpu_query.c - the GPU device query: its no-device contract everywhere,
 * and sane properties on a machine with a GPU (skipped, 77, without one). */
#include "test_support.h"

#include <string.h>

static void check_no_device(const char *reason) {
  TS_CHECK(reason[0] != '\0', "count 0 must leave a reason in convoy_last_error()");
  printf("no usable GPU: %s\n", reason);
  if (!convoy_built_with_cuda())
    TS_CHECK(strstr(reason, "without CUDA") != NULL, "reason '%s'", reason);

  convoy_gpu_info info;
  memset(&info, 0x5a, sizeof info);
  convoy_status st = convoy_gpu_get_info(0, &info);
  TS_CHECK(st == CONVOY_ERR_NO_DEVICE, "get_info(0) -> %s", convoy_strerror(st));
  TS_CHECK(convoy_last_error()[0] != '\0', "get_info failure must set a message");
  TS_CHECK(info.name[0] == '\0' && info.memory_bytes == 0, "info must be zeroed on failure");
  TS_CHECK(!convoy_engine_available(CONVOY_ENGINE_GPU), "GPU engines available without a GPU");
}

static void check_device(int index) {
  convoy_gpu_info info;
  TS_CHECK_OK(convoy_gpu_get_info(index, &info));
  printf("GPU %d: %s, %.1f GiB, compute %d.%d, %d SMs, %d copy engines, driver %d, runtime %d\n",
         index, info.name, (double)info.memory_bytes / (1024.0 * 1024.0 * 1024.0),
         info.compute_major, info.compute_minor, info.multiprocessors, info.copy_engines,
         info.driver_version, info.runtime_version);
  TS_CHECK(info.name[0] != '\0', "empty device name");
  TS_CHECK(memchr(info.name, '\0', sizeof info.name) != NULL, "name not terminated");
  TS_CHECK(info.memory_bytes > 0, "memory %lld", (long long)info.memory_bytes);
  TS_CHECK(info.copy_engines >= 1, "copy engines %d", info.copy_engines);
  TS_CHECK(info.compute_major >= 1, "compute capability %d.%d", info.compute_major,
           info.compute_minor);
  TS_CHECK(info.multiprocessors >= 1, "multiprocessors %d", info.multiprocessors);
  TS_CHECK(info.runtime_version >= 1000, "runtime version %d", info.runtime_version);
  TS_CHECK(info.driver_version >= 1000, "driver version %d", info.driver_version);
}

int main(void) {
  int count = convoy_gpu_count();
  char reason[256];
  snprintf(reason, sizeof reason, "%s", convoy_last_error());
  printf("built with CUDA: %s; GPUs: %d\n", convoy_built_with_cuda() ? "yes" : "no", count);
  TS_CHECK(count >= 0, "count %d", count);
  TS_CHECK(convoy_gpu_count() == count, "count changed between calls");

  convoy_gpu_info info;
  convoy_status st = convoy_gpu_get_info(0, NULL);
  TS_CHECK(st == CONVOY_ERR_INVALID_ARGUMENT, "get_info(0, NULL) -> %s", convoy_strerror(st));

  if (count == 0) {
    check_no_device(reason);
    if (ts_finish() != 0) return 1;
    return TS_SKIP;
  }

  TS_CHECK(convoy_built_with_cuda(), "a GPU was counted in a build without CUDA");
  for (int i = 0; i < count; i++) check_device(i);
  st = convoy_gpu_get_info(count, &info);
  TS_CHECK(st == CONVOY_ERR_INVALID_ARGUMENT, "index %d -> %s", count, convoy_strerror(st));
  st = convoy_gpu_get_info(-1, &info);
  TS_CHECK(st == CONVOY_ERR_INVALID_ARGUMENT, "index -1 -> %s", convoy_strerror(st));
  return ts_finish();
}

/* gpu_device.cu - the device count, attributes and properties, cached. */
#include "gpu_device.cuh"

#include <mutex>

namespace {

constexpr int kCachedDevices = 64; /* devices past this are asked every time */

struct device_entry {
  bool facts_known, props_known;
  gp_device_facts facts;
  cudaDeviceProp props;
};

std::mutex g_lock;
device_entry g_devices[kCachedDevices];

cudaError_t read_facts(int device, gp_device_facts *f) {
  cudaError_t e = cudaDeviceGetAttribute(&f->sms, cudaDevAttrMultiProcessorCount, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&f->clock_khz, cudaDevAttrClockRate, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&f->mem_khz, cudaDevAttrMemoryClockRate, device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&f->bus_bits, cudaDevAttrGlobalMemoryBusWidth, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&f->l2_bytes, cudaDevAttrL2CacheSize, device);
  return e;
}

} // namespace

cudaError_t gp_device_count_query(int *count) {
  static std::once_flag once;
  static cudaError_t error = cudaSuccess;
  static int n = 0;
  std::call_once(once, [] {
    error = cudaGetDeviceCount(&n);
    if (error != cudaSuccess) {
      (void)cudaGetLastError();
      n = 0;
    }
  });
  *count = n;
  return error;
}

int gp_device_count(void) {
  int n = 0;
  return gp_device_count_query(&n) == cudaSuccess && n > 0 ? n : 0;
}

cudaError_t gp_device_facts_of(int device, gp_device_facts *out) {
  if (device < 0 || device >= kCachedDevices) return read_facts(device, out);
  std::lock_guard<std::mutex> lock(g_lock);
  device_entry &d = g_devices[device];
  if (!d.facts_known) {
    cudaError_t e = read_facts(device, &d.facts);
    if (e != cudaSuccess) return e;
    d.facts_known = true;
  }
  *out = d.facts;
  return cudaSuccess;
}

cudaError_t gp_device_props(int device, cudaDeviceProp *out) {
  if (device < 0 || device >= kCachedDevices) return cudaGetDeviceProperties(out, device);
  std::lock_guard<std::mutex> lock(g_lock);
  device_entry &d = g_devices[device];
  if (!d.props_known) {
    cudaError_t e = cudaGetDeviceProperties(&d.props, device);
    if (e != cudaSuccess) return e;
    d.props_known = true;
  }
  *out = d.props;
  return cudaSuccess;
}

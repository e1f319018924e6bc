/*
 * gpu_device.cuh - what the CUDA runtime says about the devices, asked once
 * per process and device (CUDA C++ only): the device count, the attributes
 * the cost models start from, and the device properties. None of these
 * change while a process runs.
 */
#ifndef CONVOY_GPU_DEVICE_CUH
#define CONVOY_GPU_DEVICE_CUH

#include <cuda_runtime.h>

/* cudaGetDeviceCount's answer, asked on the first call only (CUDA's last
 * error is cleared after a failure). */
cudaError_t gp_device_count_query(int *count);

/* Usable CUDA devices; 0 without a driver or GPU. */
int gp_device_count(void);

/* Attribute values as CUDA reports them; each cost model applies its own
 * fallbacks to values that are not positive. */
typedef struct gp_device_facts {
  int sms;       /* cudaDevAttrMultiProcessorCount */
  int clock_khz; /* cudaDevAttrClockRate */
  int mem_khz;   /* cudaDevAttrMemoryClockRate */
  int bus_bits;  /* cudaDevAttrGlobalMemoryBusWidth */
  int l2_bytes;  /* cudaDevAttrL2CacheSize */
} gp_device_facts;

/* The facts of `device`, remembered after the first success; after a
 * failure, the error of the first attribute that could not be read. */
cudaError_t gp_device_facts_of(int device, gp_device_facts *out);

/* cudaGetDeviceProperties of `device`, remembered after the first success. */
cudaError_t gp_device_props(int device, cudaDeviceProp *out);

#endif /* CONVOY_GPU_DEVICE_CUH */

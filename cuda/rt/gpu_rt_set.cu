/*
 * gpu_rt_set.cu - route sets of the GPU real-time convolver: impulse
 * responses cut into partitions of the block size, gain and the inverse
 * transform's 1/N folded in, transformed on the device, and the routes
 * sorted by output for the MAC kernel.
 *
 * All of it runs on the preparer's stream with stream-ordered allocations,
 * so that a set made or freed while blocks run does not wait for, or stall,
 * the device as cudaMalloc and cudaFree would.
 */
#include "gpu_conv_internal.cuh"
#include "gpu_rt_internal.cuh"

#include <new>
#include <stdlib.h>
#include <string.h>

namespace {

/* Floats of padded partitions per transform, and a cap in partitions. */
constexpr int64_t kChunkFloats = (int64_t)1 << 20;
constexpr int64_t kChunkMaxParts = 4096;

/* Transforms the padded partitions, in chunks, into set->spectra. order[i]
 * is the i-th route in output order. */
convoy_status transform(const grt_geom *g, grt_prep *pr, const convoy_rt_route *routes,
                        const int32_t *order, grt_set *set, char *err, size_t err_size) {
  const int64_t B = g->block, N = 2 * B, K = g->bins;
  int32_t ri = 0; /* route (in output order) and partition being packed */
  int64_t p = 0, done = 0;
  while (done < set->total_parts) {
    const int64_t count = set->total_parts - done < pr->chunk ? set->total_parts - done : pr->chunk;
    memset(pr->h_stage, 0, sizeof(float) * (size_t)(pr->chunk * N));
    for (int64_t c = 0; c < count; c++) {
      const convoy_rt_route *r = &routes[order[ri]];
      const float f = r->gain / (float)N;
      const int64_t from = p * B, n = r->n_taps - from < B ? r->n_taps - from : B;
      float *row = pr->h_stage + c * N;
      for (int64_t j = 0; j < n; j++) row[j] = r->taps[from + j] * f;
      if (++p * B >= r->n_taps) {
        p = 0;
        ri++;
      }
    }
    GP_CUDA(cudaMemcpyAsync(pr->d_stage, pr->h_stage, sizeof(float) * (size_t)(pr->chunk * N),
                            cudaMemcpyHostToDevice, pr->stream),
            "GPU real-time: IR upload");
    GP_CUFFT(cufftExecR2C(pr->plan, pr->d_stage, (cufftComplex *)pr->d_spec),
             "GPU real-time: IR transform");
    GP_CUDA(cudaMemcpyAsync(set->spectra + done * K, pr->d_spec,
                            sizeof(float2) * (size_t)(count * K), cudaMemcpyDeviceToDevice,
                            pr->stream),
            "GPU real-time: IR spectra");
    /* The host staging is refilled next round. */
    GP_CUDA(cudaStreamSynchronize(pr->stream), "GPU real-time: IR transform");
    done += count;
  }
  return CONVOY_OK;
}

/* Sorts the routes by output (stable) into the host tables. */
void sort_routes(const grt_geom *g, const convoy_rt_route *routes, int32_t n_routes, int32_t *index,
                 int32_t *order, int32_t *fill, int64_t *offsets, int64_t *total_parts) {
  const int32_t n_out = g->n_out;
  int32_t *out_begin = index, *route_in = index + n_out + 1, *route_parts = route_in + n_routes;
  for (int32_t r = 0; r < n_routes; r++) out_begin[routes[r].output + 1]++;
  for (int32_t o = 0; o < n_out; o++) out_begin[o + 1] += out_begin[o];
  memcpy(fill, out_begin, sizeof(int32_t) * (size_t)n_out);
  for (int32_t r = 0; r < n_routes; r++) order[fill[routes[r].output]++] = r;
  int64_t total = 0;
  for (int32_t i = 0; i < n_routes; i++) {
    const convoy_rt_route *r = &routes[order[i]];
    route_in[i] = r->input;
    route_parts[i] = (int32_t)((r->n_taps + g->block - 1) / g->block);
    offsets[i] = total * g->bins;
    total += route_parts[i];
  }
  *total_parts = total;
}

} // namespace

convoy_status grt_prep_create(const grt_geom *g, grt_prep *p, char *err, size_t err_size) {
  memset(p, 0, sizeof *p);
  const int64_t N = 2 * (int64_t)g->block;
  int64_t chunk = kChunkFloats / N;
  if (chunk > kChunkMaxParts) chunk = kChunkMaxParts;
  if (chunk > g->parts * (int64_t)g->n_in * g->n_out)
    chunk = g->parts * (int64_t)g->n_in * g->n_out;
  if (chunk < 1) chunk = 1;
  p->chunk = chunk;
  int least = 0, greatest = 0;
  GP_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest), "GPU real-time: stream priorities");
  GP_CUDA(cudaStreamCreateWithPriority(&p->stream, cudaStreamNonBlocking, least),
          "GPU real-time: IR stream");
  GP_CUDA(cudaHostAlloc((void **)&p->h_stage, sizeof(float) * (size_t)(chunk * N), 0),
          "GPU real-time: IR staging");
  GP_CUDA(cudaMalloc((void **)&p->d_stage, sizeof(float) * (size_t)(chunk * N)),
          "GPU real-time: IR staging");
  GP_CUDA(cudaMalloc((void **)&p->d_spec, sizeof(float2) * (size_t)(chunk * g->bins)),
          "GPU real-time: IR staging");
  GP_CUFFT(cufftCreate(&p->plan), "GPU real-time: IR transform plan");
  p->have_plan = 1;
  long long len = N, out_dist = g->bins;
  size_t work = 0;
  GP_CUFFT(cufftMakePlanMany64(p->plan, 1, &len, nullptr, 1, len, nullptr, 1, out_dist, CUFFT_R2C,
                               chunk, &work),
           "GPU real-time: IR transform plan");
  GP_CUFFT(cufftSetStream(p->plan, p->stream), "GPU real-time: IR transform stream");
  return CONVOY_OK;
}

void grt_prep_destroy(grt_prep *p) {
  if (p->stream) cudaStreamSynchronize(p->stream);
  if (p->have_plan) cufftDestroy(p->plan);
  cudaFree(p->d_spec);
  cudaFree(p->d_stage);
  cudaFreeHost(p->h_stage);
  if (p->stream) cudaStreamDestroy(p->stream);
  (void)cudaGetLastError();
  memset(p, 0, sizeof *p);
}

void grt_set_destroy(grt_prep *p, grt_set *set) {
  if (!set) return;
  void *mem[4] = {set->desc, set->index, set->offsets, set->spectra};
  for (int i = 0; i < 4; i++)
    if (mem[i]) cudaFreeAsync(mem[i], p->stream);
  cudaStreamSynchronize(p->stream);
  (void)cudaGetLastError();
  delete set;
}

convoy_status grt_set_create(const grt_geom *g, grt_prep *p, const convoy_rt_route *routes,
                             int32_t n_routes, grt_set **out, char *err, size_t err_size) {
  *out = nullptr;
  const int32_t n_out = g->n_out;
  /* Host tables: out_begin, route_in, route_parts (int32), then offsets. */
  const size_t n_index = (size_t)n_out + 1 + 2 * (size_t)n_routes;
  int32_t *index = (int32_t *)calloc(n_index, sizeof(int32_t));
  int32_t *order = (int32_t *)malloc(sizeof(int32_t) * (size_t)n_routes);
  int32_t *fill = (int32_t *)malloc(sizeof(int32_t) * (size_t)n_out);
  int64_t *offsets = (int64_t *)malloc(sizeof(int64_t) * (size_t)n_routes);
  grt_set *set = new (std::nothrow) grt_set();
  convoy_status st = CONVOY_OK;
  if (!index || !order || !fill || !offsets || !set) {
    st = convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                             "GPU real-time: out of host memory for %d routes", (int)n_routes);
  } else {
    sort_routes(g, routes, n_routes, index, order, fill, offsets, &set->total_parts);
    set->n_routes = n_routes;
  }
  grt_set_dev d;
  cudaError_t e = cudaSuccess;
  if (st == CONVOY_OK) {
    cudaStream_t s = p->stream;
    e = cudaMallocAsync((void **)&set->index, sizeof(int32_t) * n_index, s);
    if (e == cudaSuccess)
      e = cudaMallocAsync((void **)&set->offsets, sizeof(int64_t) * (size_t)n_routes, s);
    if (e == cudaSuccess)
      e = cudaMallocAsync((void **)&set->spectra,
                          sizeof(float2) * (size_t)(set->total_parts * g->bins), s);
    if (e == cudaSuccess) e = cudaMallocAsync((void **)&set->desc, sizeof(grt_set_dev), s);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(set->index, index, sizeof(int32_t) * n_index, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(set->offsets, offsets, sizeof(int64_t) * (size_t)n_routes,
                          cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) {
      d.out_begin = set->index;
      d.route_in = set->index + n_out + 1;
      d.route_parts = set->index + n_out + 1 + n_routes;
      d.route_off = set->offsets;
      d.spectra = set->spectra;
      e = cudaMemcpyAsync(set->desc, &d, sizeof d, cudaMemcpyHostToDevice, s);
    }
    /* The host tables and d are freed or go out of scope below. */
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) st = gp_cuda_fail(e, "GPU real-time: route set", err, err_size);
  }
  if (st == CONVOY_OK) st = transform(g, p, routes, order, set, err, err_size);
  free(index);
  free(order);
  free(fill);
  free(offsets);
  if (st != CONVOY_OK) {
    grt_set_destroy(p, set);
    return st;
  }
  *out = set;
  return CONVOY_OK;
}

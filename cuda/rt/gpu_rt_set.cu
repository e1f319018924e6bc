/*
 * gpu_rt_set.cu - route sets of the GPU real-time convolver: impulse
 * responses cut into each level's partitions (gpu_rt_internal.cuh), gain and
 * the inverse transform's 1/N folded in, transformed on the device, and the
 * routes sorted by output for the MAC kernels.
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

/* Transforms the padded partitions of one level, in chunks, into
 * set->spectra[level]. order[i] is the i-th route in output order; parts[i]
 * its partitions in this level. */
convoy_status transform(const grt_geom *g, grt_prep *pr, int level, const convoy_rt_route *routes,
                        const int32_t *order, const int32_t *parts, grt_set *set, char *err,
                        size_t err_size) {
  const grt_level &lv = g->level[level];
  const int64_t P = lv.size, N = 2 * P, K = lv.bins, chunk = pr->chunk[level];
  int32_t ri = 0; /* route (in output order) and partition being packed */
  int64_t p = 0, done = 0;
  while (done < set->total_parts[level]) {
    const int64_t left = set->total_parts[level] - done;
    const int64_t count = left < chunk ? left : chunk;
    memset(pr->h_stage, 0, sizeof(float) * (size_t)(chunk * N));
    for (int64_t c = 0; c < count; c++) {
      while (parts[ri] == 0) ri++;
      const convoy_rt_route *r = &routes[order[ri]];
      const float f = r->gain / (float)N;
      const int64_t from = lv.first_tap + p * P;
      const int64_t n = r->n_taps - from < P ? r->n_taps - from : P;
      float *row = pr->h_stage + c * N;
      for (int64_t j = 0; j < n; j++) row[j] = r->taps[from + j] * f;
      if (++p == parts[ri]) {
        p = 0;
        ri++;
      }
    }
    GP_CUDA(cudaMemcpyAsync(pr->d_stage, pr->h_stage, sizeof(float) * (size_t)(chunk * N),
                            cudaMemcpyHostToDevice, pr->stream),
            "GPU real-time: IR upload");
    GP_CUFFT(cufftExecR2C(pr->plan[level], pr->d_stage, (cufftComplex *)pr->d_spec),
             "GPU real-time: IR transform");
    GP_CUDA(cudaMemcpyAsync(set->spectra[level] + done * K, pr->d_spec,
                            sizeof(float2) * (size_t)(count * K), cudaMemcpyDeviceToDevice,
                            pr->stream),
            "GPU real-time: IR spectra");
    /* The host staging is refilled next round. */
    GP_CUDA(cudaStreamSynchronize(pr->stream), "GPU real-time: IR transform");
    done += count;
  }
  return CONVOY_OK;
}

/* Sorts the routes by output (stable) into the host tables: index holds
 * out_begin, route_in and each level's route_parts; offsets each level's
 * route_off. */
void sort_routes(const grt_geom *g, const convoy_rt_route *routes, int32_t n_routes, int32_t *index,
                 int32_t *order, int32_t *fill, int64_t *offsets, grt_set *set) {
  const int32_t n_out = g->n_out;
  int32_t *out_begin = index, *route_in = index + n_out + 1;
  for (int32_t r = 0; r < n_routes; r++) out_begin[routes[r].output + 1]++;
  for (int32_t o = 0; o < n_out; o++) out_begin[o + 1] += out_begin[o];
  memcpy(fill, out_begin, sizeof(int32_t) * (size_t)n_out);
  for (int32_t r = 0; r < n_routes; r++) order[fill[routes[r].output]++] = r;
  for (int32_t i = 0; i < n_routes; i++) route_in[i] = routes[order[i]].input;
  for (int l = 0; l < g->levels; l++) {
    int32_t *route_parts = route_in + (int64_t)(1 + l) * n_routes;
    int64_t total = 0;
    for (int32_t i = 0; i < n_routes; i++) {
      route_parts[i] = grt_level_parts(g, l, routes[order[i]].n_taps);
      offsets[(int64_t)l * n_routes + i] = total * g->level[l].bins;
      total += route_parts[i];
    }
    set->total_parts[l] = total;
  }
}

} // namespace

convoy_status grt_prep_create(const grt_geom *g, grt_prep *p, char *err, size_t err_size) {
  memset(p, 0, sizeof *p);
  int64_t stage = 1, spec = 1;
  for (int l = 0; l < g->levels; l++) {
    const int64_t N = 2 * (int64_t)g->level[l].size;
    int64_t chunk = kChunkFloats / N;
    if (chunk > kChunkMaxParts) chunk = kChunkMaxParts;
    if (chunk > g->level[l].parts * (int64_t)g->n_in * g->n_out)
      chunk = g->level[l].parts * (int64_t)g->n_in * g->n_out;
    if (chunk < 1) chunk = 1;
    p->chunk[l] = chunk;
    if (chunk * N > stage) stage = chunk * N;
    if (chunk * g->level[l].bins > spec) spec = chunk * g->level[l].bins;
  }
  int least = 0, greatest = 0;
  GP_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest), "GPU real-time: stream priorities");
  GP_CUDA(cudaStreamCreateWithPriority(&p->stream, cudaStreamNonBlocking, least),
          "GPU real-time: IR stream");
  GP_CUDA(cudaHostAlloc((void **)&p->h_stage, sizeof(float) * (size_t)stage, 0),
          "GPU real-time: IR staging");
  GP_CUDA(cudaMalloc((void **)&p->d_stage, sizeof(float) * (size_t)stage),
          "GPU real-time: IR staging");
  GP_CUDA(cudaMalloc((void **)&p->d_spec, sizeof(float2) * (size_t)spec),
          "GPU real-time: IR staging");
  for (int l = 0; l < g->levels; l++) {
    GP_CUFFT(cufftCreate(&p->plan[l]), "GPU real-time: IR transform plan");
    p->have_plan[l] = 1;
    long long len = 2 * (long long)g->level[l].size, out_dist = g->level[l].bins;
    size_t work = 0;
    GP_CUFFT(cufftMakePlanMany64(p->plan[l], 1, &len, nullptr, 1, len, nullptr, 1, out_dist,
                                 CUFFT_R2C, p->chunk[l], &work),
             "GPU real-time: IR transform plan");
    GP_CUFFT(cufftSetStream(p->plan[l], p->stream), "GPU real-time: IR transform stream");
  }
  return CONVOY_OK;
}

void grt_prep_destroy(grt_prep *p) {
  if (p->stream) cudaStreamSynchronize(p->stream);
  for (int l = 0; l < GRT_LEVELS; l++)
    if (p->have_plan[l]) cufftDestroy(p->plan[l]);
  cudaFree(p->d_spec);
  cudaFree(p->d_stage);
  cudaFreeHost(p->h_stage);
  if (p->stream) cudaStreamDestroy(p->stream);
  (void)cudaGetLastError();
  memset(p, 0, sizeof *p);
}

void grt_set_destroy(grt_prep *p, grt_set *set) {
  if (!set) return;
  void *mem[5] = {set->desc, set->index, set->offsets, set->spectra[GRT_HEAD],
                  set->spectra[GRT_TAIL]};
  for (int i = 0; i < 5; i++)
    if (mem[i]) cudaFreeAsync(mem[i], p->stream);
  cudaStreamSynchronize(p->stream);
  (void)cudaGetLastError();
  delete set;
}

convoy_status grt_set_create(const grt_geom *g, grt_prep *p, const convoy_rt_route *routes,
                             int32_t n_routes, grt_set **out, char *err, size_t err_size) {
  *out = nullptr;
  const int32_t n_out = g->n_out;
  /* Host tables: out_begin, route_in, route_parts per level (int32), then
   * route_off per level. */
  const size_t n_index = (size_t)n_out + 1 + (1 + GRT_LEVELS) * (size_t)n_routes;
  const size_t n_offsets = GRT_LEVELS * (size_t)(n_routes > 0 ? n_routes : 1);
  int32_t *index = (int32_t *)calloc(n_index, sizeof(int32_t));
  int32_t *order = (int32_t *)malloc(sizeof(int32_t) * (size_t)n_routes);
  int32_t *fill = (int32_t *)malloc(sizeof(int32_t) * (size_t)n_out);
  int64_t *offsets = (int64_t *)calloc(n_offsets, sizeof(int64_t));
  grt_set *set = new (std::nothrow) grt_set();
  convoy_status st = CONVOY_OK;
  if (!index || !order || !fill || !offsets || !set) {
    st = convoy_error_format(err, err_size, CONVOY_ERR_OUT_OF_MEMORY,
                             "GPU real-time: out of host memory for %d routes", (int)n_routes);
  } else {
    sort_routes(g, routes, n_routes, index, order, fill, offsets, set);
    set->n_routes = n_routes;
  }
  grt_set_dev d = {};
  cudaError_t e = cudaSuccess;
  if (st == CONVOY_OK) {
    cudaStream_t s = p->stream;
    e = cudaMallocAsync((void **)&set->index, sizeof(int32_t) * n_index, s);
    if (e == cudaSuccess)
      e = cudaMallocAsync((void **)&set->offsets, sizeof(int64_t) * n_offsets, s);
    for (int l = 0; l < g->levels && e == cudaSuccess; l++)
      e = cudaMallocAsync((void **)&set->spectra[l],
                          sizeof(float2) * (size_t)(set->total_parts[l] * g->level[l].bins + 1), s);
    if (e == cudaSuccess) e = cudaMallocAsync((void **)&set->desc, sizeof(grt_set_dev), s);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(set->index, index, sizeof(int32_t) * n_index, cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(set->offsets, offsets, sizeof(int64_t) * n_offsets,
                          cudaMemcpyHostToDevice, s);
    if (e == cudaSuccess) {
      d.out_begin = set->index;
      d.route_in = set->index + n_out + 1;
      for (int l = 0; l < g->levels; l++) {
        d.route_parts[l] = set->index + n_out + 1 + (size_t)(1 + l) * n_routes;
        d.route_off[l] = set->offsets + (size_t)l * n_routes;
        d.spectra[l] = set->spectra[l];
      }
      e = cudaMemcpyAsync(set->desc, &d, sizeof d, cudaMemcpyHostToDevice, s);
    }
    /* The host tables and d are freed or go out of scope below. */
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) st = gp_cuda_fail(e, "GPU real-time: route set", err, err_size);
  }
  for (int l = 0; l < g->levels && st == CONVOY_OK; l++)
    st = transform(g, p, l, routes, order, index + n_out + 1 + (size_t)(1 + l) * n_routes, set, err,
                   err_size);
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

/*
 * gpu_query.h - the CUDA side of the public GPU query (pipeline/gpu_query.c),
 * behind a C boundary: only convoy.h types cross it.
 */
#ifndef CONVOY_GPU_QUERY_H
#define CONVOY_GPU_QUERY_H

#include "convoy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* convoy_gpu_count(): the usable devices; 0 with the reason in
 * convoy_last_error(). */
int gpu_query_count(void);

/* convoy_gpu_get_info() for a zeroed, non-NULL info. */
convoy_status gpu_query_info(int index, convoy_gpu_info *info);

#ifdef __cplusplus
}
#endif

#endif /* CONVOY_GPU_QUERY_H */

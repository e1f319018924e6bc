/*
 * fftw_lock.h - one process-wide lock around FFTW's planner (internal).
 *
 * FFTW's execute functions may run concurrently on different data, but plan
 * creation and destruction share the planner's global state and must not.
 * Every convoy call to fftwf_plan_* and fftwf_destroy_plan holds this lock
 * (fftwf_malloc and fftwf_free need not). Code outside convoy that plans
 * single-precision FFTW transforms on other threads at the same time is not
 * covered by it.
 */
#ifndef CONVOY_FFTW_LOCK_H
#define CONVOY_FFTW_LOCK_H

void convoy_fftw_lock(void);
void convoy_fftw_unlock(void);

#endif /* CONVOY_FFTW_LOCK_H */

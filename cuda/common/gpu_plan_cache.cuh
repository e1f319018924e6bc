/*
 * gpu_plan_cache.cuh - plans chosen by timing, remembered per process (CUDA
 * C++ only): a fixed-size table behind a mutex, searched in table order;
 * when it is full, the oldest entry gives way.
 */
#ifndef CONVOY_GPU_PLAN_CACHE_CUH
#define CONVOY_GPU_PLAN_CACHE_CUH

#include <mutex>

template <typename Entry, int N> class gp_plan_cache {
public:
  /* Copies the first entry for which match(entry) holds into *out. */
  template <typename Match> bool find(Match match, Entry *out) {
    std::lock_guard<std::mutex> lock(mutex_);
    const int i = index_of(match);
    if (i < 0) return false;
    *out = table_[i];
    return true;
  }

  /* Adds e, even beside an entry that matches it. */
  void add(const Entry &e) {
    std::lock_guard<std::mutex> lock(mutex_);
    table_[slot()] = e;
  }

  /* Adds e unless an entry for which match(entry) holds is there already
   * (another thread added it meanwhile), and copies the entry kept into
   * *kept: the first answer stays. */
  template <typename Match> void add_first(Match match, const Entry &e, Entry *kept) {
    std::lock_guard<std::mutex> lock(mutex_);
    int i = index_of(match);
    if (i < 0) table_[i = slot()] = e;
    *kept = table_[i];
  }

private:
  template <typename Match> int index_of(Match match) const {
    for (int i = 0; i < used_; i++)
      if (match(table_[i])) return i;
    return -1;
  }

  /* Where a new entry goes: the next unused slot, or the oldest when full. */
  int slot() {
    if (used_ < N) return used_++;
    const int i = next_;
    next_ = (next_ + 1) % N;
    return i;
  }

  std::mutex mutex_;
  Entry table_[N] = {};
  int used_ = 0, next_ = 0;
};

#endif /* CONVOY_GPU_PLAN_CACHE_CUH */

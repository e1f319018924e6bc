#define _POSIX_C_SOURCE 200809L

#include "temp_cleanup.h"
#include "audio_file.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal handler needs lock-free atomic int");

enum { SLOT_FREE = 0, SLOT_FILLING = 1, SLOT_ACTIVE = 2 };

typedef struct temp_slot {
  atomic_int state;
  pid_t owner;
  char path[TEMP_CLEANUP_PATH_MAX];
} temp_slot;

static temp_slot slots[TEMP_CLEANUP_SLOTS];

static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

int temp_cleanup_register(const char *path) {
  size_t len = strlen(path);
  if (len >= TEMP_CLEANUP_PATH_MAX) return -1;
  for (int i = 0; i < TEMP_CLEANUP_SLOTS; i++) {
    int expected = SLOT_FREE;
    if (!atomic_compare_exchange_strong(&slots[i].state, &expected, SLOT_FILLING)) continue;
    memcpy(slots[i].path, path, len + 1);
    slots[i].owner = getpid();
    /* Release: the handler sees the path complete once it sees ACTIVE. */
    atomic_store_explicit(&slots[i].state, SLOT_ACTIVE, memory_order_release);
    return i;
  }
  return -1;
}

void temp_cleanup_unregister(int slot) {
  if (slot < 0 || slot >= TEMP_CLEANUP_SLOTS) return;
  atomic_store_explicit(&slots[slot].state, SLOT_FREE, memory_order_release);
}

void temp_cleanup_remove_all(void) {
  pid_t self = getpid();
  for (int i = 0; i < TEMP_CLEANUP_SLOTS; i++) {
    if (atomic_load_explicit(&slots[i].state, memory_order_acquire) != SLOT_ACTIVE) continue;
    if (slots[i].owner == self) unlink(slots[i].path);
  }
}

static void cleanup_handler(int sig) {
  int saved_errno = errno;
  temp_cleanup_remove_all();
  /* Die of the same signal so the parent sees why: restore the default
   * action and re-raise; the signal is blocked inside this handler and is
   * delivered as soon as the handler returns. */
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, NULL);
  raise(sig);
  errno = saved_errno;
}

static void cleanup_at_exit(void) {
  temp_cleanup_remove_all();
}

void temp_cleanup_install(void) {
  static int installed = 0;
  if (installed) return;
  installed = 1;
  atexit(cleanup_at_exit);
  for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++) {
    struct sigaction old;
    if (sigaction(cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = cleanup_handler;
    sigfillset(&sa.sa_mask); /* one cleanup at a time */
    sigaction(cleanup_signals[i], &sa, NULL);
  }
}

void audio_install_signal_cleanup(void) {
  temp_cleanup_install();
}

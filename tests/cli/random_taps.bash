# random_taps.bash - random_taps, sourced by the CLI tests (common.bash) and
# the bench scripts (no other side effects).

# random_taps N SEED: N pseudo-random taps with sum |h| <= 1, one per line.
random_taps() {
  awk -v n="$1" -v seed="$2" 'BEGIN { srand(seed); for (i = 0; i < n; i++) printf "%.9g\n", (2 * rand() - 1) / n }'
}

/* cpu_isa.c - cpu_isa_best(). */
#include "cpu_isa.h"

cpu_isa cpu_isa_best(void) {
#ifdef CPU_ISA_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return CPU_ISA_AVX512;
  if (__builtin_cpu_supports("avx2")) return CPU_ISA_AVX2;
#endif
  return CPU_ISA_GENERIC;
}

/*
 * cpu_isa.h - the widest x86 vector instruction set the CPU engines' kernels
 * are built for and this CPU runs (internal to libconvoy). Each kernel file
 * compiles its loops once per level with target attributes and picks one
 * with cpu_isa_best(). Thread-safe.
 */
#ifndef CONVOY_CPU_ISA_H
#define CONVOY_CPU_ISA_H

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define CPU_ISA_X86 1 /* the AVX2 and AVX-512 builds exist */
#endif

typedef enum cpu_isa { CPU_ISA_GENERIC = 0, CPU_ISA_AVX2 = 1, CPU_ISA_AVX512 = 2 } cpu_isa;

/* AVX512 when the CPU has AVX-512F, AVX2 when it has AVX2, else GENERIC
 * (always GENERIC off x86). */
cpu_isa cpu_isa_best(void);

#endif /* CONVOY_CPU_ISA_H */

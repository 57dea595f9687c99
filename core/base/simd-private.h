/* simd-private.h — compiling a hot loop for several instruction sets at once.
 *
 * AS_CLONES on a function makes GCC build it for AVX-512, AVX2+FMA and the baseline x86-64 and
 * pick one when the program loads (target_clones, an ifunc). The loops stay plain C that the
 * compiler vectorises, so the same source runs everywhere; elsewhere (other CPUs, Clang, the
 * sanitizer builds) the function is compiled once for the build's target. Private to the core. */
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)                                \
    && !defined(__SANITIZE_ADDRESS__)
#define AS_CLONES __attribute__ ((target_clones ("avx512f", "avx2,fma", "default")))
#else
#define AS_CLONES
#endif

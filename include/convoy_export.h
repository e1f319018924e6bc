/* CONVOY_API: the mark of a public function.
 *
 * The library is compiled with -fvisibility=hidden, so its internal functions
 * (engines, helpers shared between its rooms) are not exported when the
 * static archive is linked into a shared object; only declarations marked
 * CONVOY_API in the public headers are. Linking the archive into a program is not
 * affected: hidden symbols still resolve between objects of one link.
 * Define CONVOY_API before including a convoy header to override it. */
#ifndef CONVOY_EXPORT_H
#define CONVOY_EXPORT_H

#ifndef CONVOY_API
#if defined(__GNUC__) || defined(__clang__)
#define CONVOY_API __attribute__((visibility("default")))
#else
#define CONVOY_API
#endif
#endif

#endif /* CONVOY_EXPORT_H */

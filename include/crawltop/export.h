/* export.h: symbol visibility for libcrawltop.
 *
 * The library is built with -fvisibility=hidden; only declarations marked
 * CT_API are part of the ABI. */
#ifndef CRAWLTOP_EXPORT_H
#define CRAWLTOP_EXPORT_H

#if defined(CT_BUILDING_LIBRARY) && defined(__GNUC__)
#define CT_API __attribute__((visibility("default")))
#else
#define CT_API
#endif

/* Every declaration of a header sits between these, so that C++ links
 * with the C names. */
#ifdef __cplusplus
#define CT_BEGIN_DECLS extern "C" {
#define CT_END_DECLS }
#else
#define CT_BEGIN_DECLS
#define CT_END_DECLS
#endif

#endif

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

#endif

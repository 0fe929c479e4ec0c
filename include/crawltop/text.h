/* text.h: characters a person cannot see. Every program that shows text
 * from the store (paths, names, notes) on a terminal escapes control
 * characters; these are the printable-looking others it must not pass on
 * as they are: they draw nothing, or reorder what follows (a right-to-left
 * override makes "/txt.exe" read as another path), so two different paths
 * would look the same. */
#ifndef CRAWLTOP_TEXT_H
#define CRAWLTOP_TEXT_H

#include <stdbool.h>

#include "export.h"

CT_BEGIN_DECLS

/* Whether code point cp is a Unicode Default_Ignorable_Code_Point
 * (DerivedCoreProperties.txt, Unicode 15: the soft hyphen, zero-width
 * spaces and joiners, the bidirectional marks, embeddings, overrides and
 * isolates, the word joiner and invisible operators, variation selectors,
 * the byte order mark, the Hangul fillers, the tag characters and the
 * rest of U+E0000..U+E0FFF) or another format character (general
 * category Cf: U+0600..U+0605, U+06DD, U+070F, U+0890..U+0891, U+08E2,
 * U+110BD, U+110CD, U+13430..U+1343F, U+FFF9..U+FFFB). */
CT_API bool ct_char_invisible(unsigned long cp);

CT_END_DECLS

#endif

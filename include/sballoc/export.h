/* Which symbols the shared library exports: everything declared between
 * SBA_API_BEGIN and SBA_API_END in a public header, and nothing else. The
 * library is built with hidden visibility, so its passes and helpers can
 * neither clash with nor be replaced by an embedder's symbols of the same
 * name. */
#ifndef SBALLOC_EXPORT_H
#define SBALLOC_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define SBA_API_BEGIN _Pragma("GCC visibility push(default)")
#define SBA_API_END _Pragma("GCC visibility pop")
#else
#define SBA_API_BEGIN
#define SBA_API_END
#endif

#endif

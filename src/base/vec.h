/* Growable arrays held in an arena: a struct of {v, n, cap} and one push macro.
 * SBA_VEC_PUSH evaluates to false when the arena is out of memory. */
#ifndef SBA_VEC_H
#define SBA_VEC_H

#include "base/arena.h"

#define SBA_VEC(T) struct { T *v; uint32_t n, cap; }

#define SBA_VEC_PUSH(ar, vec, x)                                                   \
    (sba_arena_grow((ar), (void **)&(vec)->v, &(vec)->cap, (vec)->n + 1,            \
                    sizeof *(vec)->v)                                               \
         ? ((vec)->v[(vec)->n++] = (x), true)                                       \
         : false)

#endif

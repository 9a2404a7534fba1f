/* The heights mix of the generators ("q:1,h:1,f:2"), shared by gen.c and
 * planted.c. */
#ifndef SBA_GEN_HEIGHTS_H
#define SBA_GEN_HEIGHTS_H

#include <stdint.h>

#include "sballoc/bir.h"

/* Parses a mix into the weights of quarter, half and full tensors;
 * SBA_ERR_USAGE with a message naming the fault. */
sba_status sba_gen_parse_heights(const char *s, uint32_t w[3], sba_error *err);

#endif

/* See half-blocks.h. */
#include "half-blocks.h"

#include "half-vec.h"

LN_HALF_BLOCKS_DEFINE(neon)

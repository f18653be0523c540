#ifndef CAB_CZLIB_SHIM_H
#define CAB_CZLIB_SHIM_H
#include <zlib.h>

/// inflateInit is a macro over inflateInit_; Swift cannot call macros.
static inline int cab_inflate_init(z_stream *stream) {
    return inflateInit(stream);
}
#endif

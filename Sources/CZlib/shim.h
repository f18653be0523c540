#ifndef CAB_CZLIB_SHIM_H
#define CAB_CZLIB_SHIM_H
#include <zlib.h>

/// inflateInit is a macro over inflateInit_; Swift cannot call macros.
static inline int cab_inflate_init(z_stream *stream) {
    return inflateInit(stream);
}

/// inflateInit2 for a gzip member (RFC 1952): 15 window bits plus 16, the gzip wrapper.
static inline int cab_inflate_init_gzip(z_stream *stream) {
    return inflateInit2(stream, 15 + 16);
}

/// deflateInit2 writing a gzip member (15 window bits plus 16, the gzip wrapper; memLevel 8, the default strategy).
static inline int cab_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
#endif

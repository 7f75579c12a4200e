#ifndef POSTERN_COPENSSLINIT_H
#define POSTERN_COPENSSLINIT_H
#include <stddef.h>

/// 1 when libcrypto was initialised at load time without its exit-time cleanup (see openssl_init.c).
int postern_openssl_initialized_without_atexit(void);

/// Writes `count` bytes from OpenSSL's RAND_bytes to `out`, through a 4 KiB pool per thread for requests up to
/// 256 bytes (see random_pool.c); 1 on success, 0 when RAND_bytes fails. For public values only (identifiers):
/// secrets are drawn from RAND_bytes at the moment they are made.
int postern_random_bytes(unsigned char *out, size_t count);
#endif

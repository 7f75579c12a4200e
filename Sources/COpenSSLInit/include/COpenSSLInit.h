#ifndef POSTERN_COPENSSLINIT_H
#define POSTERN_COPENSSLINIT_H
/// 1 when libcrypto was initialised at load time without its exit-time cleanup (see openssl_init.c).
int postern_openssl_initialized_without_atexit(void);
#endif

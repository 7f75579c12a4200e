// libcrypto 3 frees its global tables (providers, name maps, error strings) from an atexit handler. A process
// that exits while another thread is still inside libcrypto (a worker computing a hash, a handler signing a
// token) then crashes in that thread: seen as a segfault or a malloc corruption abort at the end of a test run.
// Initialising libcrypto before main with OPENSSL_INIT_NO_ATEXIT keeps those tables for the life of the process;
// the operating system reclaims them at exit. The first initialisation wins, so this runs as a constructor.
#include <openssl/crypto.h>
#include "COpenSSLInit.h"

static int initialized = 0;

__attribute__((constructor)) static void postern_openssl_init(void) {
    initialized = OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

int postern_openssl_initialized_without_atexit(void) { return initialized; }

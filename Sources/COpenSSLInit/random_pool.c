// Random identifiers for the hot path (issue 15): every RAND_bytes call pays the DRBG's locking, parameter handling
// and AES-CTR set-up whatever the length, a noticeable share of a challenge's CPU, so each thread
// draws 4 KiB at a time from RAND_bytes into a thread-local pool and hands out slices, wiping every slice it hands
// out. The bytes are RAND_bytes output as before, only drawn earlier; no two callers get the same bytes (the pool
// is per thread, and a forked child discards the pool it inherited). Only public values come from here (challenge
// ids, jti): keys, API keys, salts and nonces are drawn from RAND_bytes when they are made, so no future secret
// waits in memory.
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <string.h>
#include "COpenSSLInit.h"

#define POOL_SIZE 4096
// Longer requests (keys, salts of more than 256 bytes) go to RAND_bytes directly.
#define POOL_MAX_REQUEST 256

static _Thread_local unsigned char pool[POOL_SIZE];
static _Thread_local size_t available = 0; // the unused bytes are the last `available` of `pool`

// In a child of fork, the thread that forked is the only one: drop its inherited pool, which the parent also
// holds, so the child never hands out bytes the parent hands out.
static void discard_pool_in_child(void) {
    OPENSSL_cleanse(pool, sizeof(pool));
    available = 0;
}

__attribute__((constructor)) static void postern_random_pool_init(void) {
    pthread_atfork(NULL, NULL, discard_pool_in_child);
}

int postern_random_bytes(unsigned char *out, size_t count) {
    if (count == 0) return 1;
    if (count > POOL_MAX_REQUEST) return count <= 0x7fffffff && RAND_bytes(out, (int)count) == 1;
    if (available < count) {
        available = 0; // the leftover is never handed out; RAND_bytes overwrites the whole pool
        if (RAND_bytes(pool, POOL_SIZE) != 1) return 0;
        available = POOL_SIZE;
    }
    unsigned char *slice = pool + (POOL_SIZE - available);
    memcpy(out, slice, count);
    OPENSSL_cleanse(slice, count);
    available -= count;
    return 1;
}
